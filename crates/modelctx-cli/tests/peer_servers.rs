//! modelctx's client against servers built with the official SDKs, over stdio: the Python SDK
//! (`mcp`) and the TypeScript SDK v1 (`@modelcontextprotocol/sdk`, `initialize` era only).
//!
//! They need the SDKs that `scripts/interop.sh` installs, so they are ignored by a plain
//! `cargo test`; the script runs them with `--ignored` and tells them where the SDKs are:
//! `MODELCTX_PEER_PYTHON` (the venv's python) and `MODELCTX_PEER_NODE_DIR`
//! (interop/typescript, with its node_modules).

use std::path::PathBuf;

use modelctx::client::{Client, ClientOptions, StdioCommand};
use modelctx::protocol::types::Implementation;
use serde_json::{Value, json};

fn required(variable: &str) -> String {
    std::env::var(variable)
        .unwrap_or_else(|_| panic!("{variable} is not set: run these through scripts/interop.sh"))
}

fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../interop")
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("modelctx-interop", "1"))
}

fn text(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Lists, calls, reads and gets everything the peer server offers; returns its era.
async fn drive(server: StdioCommand, name: &str) -> String {
    let client = Client::spawn(&server, options()).await.unwrap();
    let info = client.server().info.clone().expect("the peer names itself");
    assert_eq!(info.name, name);
    let mut tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    tools.sort();
    assert_eq!(tools, ["add", "echo"]);
    let sum = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(text(&sum.content)[0]["text"], "42", "{sum:?}");
    let echo = client.call_tool("echo", json!({"message": "from modelctx"})).await.unwrap();
    assert_eq!(text(&echo.content)[0]["text"], "from modelctx");
    let resources = client.list_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "peer://greeting"), "{resources:?}");
    let contents = client.read_resource("peer://greeting").await.unwrap();
    assert!(text(&contents)[0]["text"].as_str().unwrap().starts_with("hello from"));
    let messages = client.get_prompt("review", json!({"code": "x = 1"})).await.unwrap();
    assert_eq!(text(&messages)[0]["content"]["text"], "Please review: x = 1");
    let version = client.server().version.to_string();
    client.close().await;
    version
}

#[tokio::test]
#[ignore = "needs the Python SDK; run by scripts/interop.sh"]
async fn the_python_sdk_server_over_stdio() {
    let python = required("MODELCTX_PEER_PYTHON");
    let server = StdioCommand::new(python).args([interop_dir().join("python/peer_server.py")]);
    let version = drive(server, "python-peer").await;
    eprintln!("python SDK server: negotiated {version}");
}

#[tokio::test]
#[ignore = "needs the TypeScript SDK; run by scripts/interop.sh"]
async fn the_typescript_sdk_v1_server_over_stdio_falls_back_to_initialize() {
    let dir = PathBuf::from(required("MODELCTX_PEER_NODE_DIR"));
    let server = StdioCommand::new("node").args([dir.join("peer-server.mjs")]).current_dir(&dir);
    let version = drive(server, "typescript-peer").await;
    assert_eq!(version, "2025-11-25", "SDK v1 knows no server/discover: the probe falls back");
}
