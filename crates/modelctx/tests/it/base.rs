//! The base protocol's message rules, on the wire as a peer sees it (BASE-*): raw lines in,
//! raw lines out, on a pipe as on stdio.

use crate::common::{WAIT, builder};
use modelctx::server::ToolDef;
use modelctx::testing::with_modern_meta;
use modelctx::transport::serve_connection;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// BASE-06: a result response carries the request's own `id` — a string kept as that
/// string, a number as that number — and a `result`, and no `error`.
#[tokio::test]
async fn base_06_a_result_carries_the_requests_id_and_a_result() {
    let server = builder().tool(ToolDef::new("hello", || async { "hello" })).build().unwrap();
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
    let (client_read, mut client_write) = tokio::io::split(client_side);
    let mut lines = BufReader::new(client_read).lines();
    for id in [json!("call-7"), json!(0), json!(9_007_199_254_740_991_i64)] {
        let params = with_modern_meta(json!({"name": "hello", "arguments": {}}), json!({}));
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        client_write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
        let line = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap();
        let response: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(response["jsonrpc"], "2.0");
        assert_eq!(response["id"], id, "{line}");
        assert!(response["result"].is_object() && response.get("error").is_none(), "{line}");
    }
}
