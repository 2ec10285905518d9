//! The `modelctx-everything` binary as a host runs it: a real child process on stdio, in both
//! protocol eras, serving exactly what the library's `everything` server serves.

use std::process::{Command, Stdio};

use modelctx::client::{Client, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::ProtocolVersion;
use modelctx::protocol::types::Implementation;
use serde_json::{Value, json};

const BINARY: &str = env!("CARGO_BIN_EXE_modelctx-everything");

fn options(mode: EraMode) -> ClientOptions {
    ClientOptions { mode, ..ClientOptions::new(Implementation::new("everything-binary-test", "1")) }
}

/// Every tool, resource and prompt a client of `mode` is offered, as JSON.
async fn listing(client: &Client) -> Value {
    json!({
        "tools": client.list_tools().await.unwrap(),
        "resources": client.list_resources().await.unwrap(),
        "templates": client.list_resource_templates().await.unwrap(),
        "prompts": client.list_prompts().await.unwrap(),
    })
}

/// The same listing from the library's `everything` server, served in this process.
async fn library_listing(mode: EraMode) -> Value {
    let server = modelctx_servers::everything::builder().build().unwrap();
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_side);
    let serving = tokio::spawn(modelctx::transport::serve_connection(
        server,
        server_read,
        server_write,
        std::future::pending(),
    ));
    let (client_read, client_write) = tokio::io::split(client_side);
    let client = Client::connect(client_read, client_write, options(mode)).await.unwrap();
    let listing = listing(&client).await;
    serving.abort();
    listing
}

#[tokio::test]
async fn the_binary_serves_the_everything_server_in_both_eras() {
    for (mode, version) in
        [(EraMode::Auto, ProtocolVersion::V2026_07_28), (EraMode::Legacy, ProtocolVersion::V2025_11_25)]
    {
        let client = Client::spawn(&StdioCommand::new(BINARY), options(mode)).await.unwrap();
        assert_eq!(client.server().version, version, "{mode:?}");
        assert_eq!(client.server().info.as_ref().unwrap().name, "modelctx-everything");
        let listed = listing(&client).await;
        assert!(listed["tools"].as_array().unwrap().len() > 30, "{mode:?}: {listed}");
        assert_eq!(listed, library_listing(mode).await, "{mode:?}: the binary lists what the library serves");
        let echo = client.call_tool("echo", json!({"message": "from a host"})).await.unwrap();
        assert_eq!(serde_json::to_value(&echo.content).unwrap()[0]["text"], "from a host");
        // Input validation is on: a wrong argument is a tool error naming the field.
        let invalid = client.call_tool("add", json!({"a": "two", "b": 1})).await.unwrap();
        assert_eq!(invalid.is_error, Some(true), "{mode:?}");
        let why = serde_json::to_value(&invalid.content).unwrap()[0]["text"].as_str().unwrap().to_owned();
        assert!(why.contains("/a"), "{mode:?}: {why}");
        let exit = client.close().await.expect("the server's exit is known");
        assert!(
            exit.ends_with("/modelctx-everything exited"),
            "closing stdin ends the server cleanly: {exit}"
        );
    }
}

#[test]
fn version_help_and_unknown_arguments() {
    let version = Command::new(BINARY).arg("--version").output().unwrap();
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("modelctx-everything {}", env!("CARGO_PKG_VERSION"))
    );
    let help = Command::new(BINARY).arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("RUST_LOG"));
    let unknown = Command::new(BINARY).arg("--http").stdin(Stdio::null()).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2), "a usage error, not a server that ignores its arguments");
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("--http"));
}

#[test]
fn an_unreadable_rust_log_is_reported_and_the_server_serves_on() {
    let answered = Command::new(BINARY)
        .env("RUST_LOG", "=not a filter=")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            let request = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }}});
            writeln!(child.stdin.take().unwrap(), "{request}")?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(answered.status.success());
    let answer: Value = serde_json::from_slice(&answered.stdout).unwrap();
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "modelctx-everything",
        "{answer}"
    );
    assert!(String::from_utf8_lossy(&answered.stderr).contains("RUST_LOG"));
}
