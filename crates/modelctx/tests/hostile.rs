//! What a hostile or broken peer sends must never stop, starve or exhaust a server: each test
//! is one way a peer tried to, over the real newline framing on a byte stream.

mod common;

use common::within;
use modelctx::server::{Server, ToolDef};
use modelctx::transport::serve_connection;
use modelctx_protocol::types::Implementation;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// A server on one end of a byte stream; the test holds the other end.
fn serve()
-> (tokio::io::WriteHalf<DuplexStream>, tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>) {
    let server = Server::builder(Implementation::new("hostile", "1"))
        .tool(ToolDef::new("echo", || async { "still here" }))
        .build()
        .unwrap();
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(serve_connection(server, read, write, std::future::pending()));
    let (read, write) = tokio::io::split(ours);
    (write, BufReader::new(read).lines())
}

fn modern_call(id: u64) -> Vec<u8> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "echo", "_meta": meta}});
    format!("{request}\n").into_bytes()
}

/// A line that is not UTF-8 is a parse error for that line alone (it used to end the
/// connection, and `modelctx serve` with it, losing every later request).
#[tokio::test]
async fn a_line_that_is_not_utf8_is_answered_and_the_stream_goes_on() {
    let (mut to_server, mut from_server) = serve();
    let mut bad = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"".to_vec();
    bad.extend_from_slice(b"\xff\xfe\"}\n");
    to_server.write_all(&bad).await.unwrap();
    // A lone surrogate escape, and CRLF framing, are no more fatal.
    to_server
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":{\"s\":\"\\ud800\"}}\r\n")
        .await
        .unwrap();
    to_server.write_all(&modern_call(3)).await.unwrap();
    let mut answers = Vec::new();
    for _ in 0..3 {
        let line = within(from_server.next_line()).await.unwrap().expect("an answer per line");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert_eq!(answers[0]["error"]["code"], -32700, "{}", answers[0]);
    assert!(answers[0]["error"]["message"].as_str().unwrap().contains("UTF-8"), "{}", answers[0]);
    assert!(answers[1].get("error").is_some(), "{}", answers[1]);
    assert_eq!(answers[2]["id"], 3);
    assert_eq!(answers[2]["result"]["content"][0]["text"], "still here");
}
