//! modelctx's client against servers written by others, over stdio and Streamable HTTP: the
//! Python SDK (`mcp`), the TypeScript SDK v2 (`@modelcontextprotocol/server`, both eras), the
//! TypeScript SDK v1 (`@modelcontextprotocol/sdk`, `initialize` era only) and the npm reference
//! server `@modelcontextprotocol/server-everything` (SDK v1, `initialize` era only).
//!
//! They need what `scripts/interop.sh` installs, so they are ignored by a plain `cargo test`;
//! the script runs them with `--ignored` and tells them where it is: `MODELCTX_PEER_PYTHON`
//! (the venv's python) and `MODELCTX_PEER_NODE_DIR` (interop/typescript, with its
//! node_modules). Every HTTP server here listens on 127.0.0.1 only.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::http::HttpServer;
use modelctx::client::{Client, ClientOptions, StdioCommand};
use modelctx::protocol::Era;
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

/// A client of the HTTP peer `server`.
async fn http_client(server: &HttpServer, options: ClientOptions) -> Client {
    Client::connect_http(&server.url(), Default::default(), options).await.unwrap()
}

fn node_dir() -> PathBuf {
    PathBuf::from(required("MODELCTX_PEER_NODE_DIR"))
}

/// `node ARGS…` run in the TypeScript interop directory.
fn node(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("node");
    command.args(args).current_dir(dir);
    command
}

/// Lists, calls, reads and gets everything the peer server offers; returns its era.
async fn drive_spawned(server: StdioCommand, name: &str) -> String {
    drive(Client::spawn(&server, options()).await.unwrap(), name).await
}

/// Lists, calls, reads and gets everything the peer server offers; returns its era.
async fn drive(client: Client, name: &str) -> String {
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
    let version = drive_spawned(server, "python-peer").await;
    eprintln!("python SDK server: negotiated {version}");
}

#[tokio::test]
#[ignore = "needs the Python SDK; run by scripts/interop.sh"]
async fn the_python_sdk_server_over_streamable_http() {
    let mut command = Command::new(required("MODELCTX_PEER_PYTHON"));
    command.arg(interop_dir().join("python/peer_server.py")).arg("--http");
    let peer = HttpServer::start(command);
    let version = drive(http_client(&peer, options()).await, "python-peer").await;
    eprintln!("python SDK server over HTTP: negotiated {version}");
}

#[tokio::test]
#[ignore = "needs the TypeScript SDK; run by scripts/interop.sh"]
async fn the_typescript_sdk_v2_server_over_stdio_speaks_the_current_revision() {
    let dir = node_dir();
    let server = StdioCommand::new("node").args(["peer-server-v2.mjs"]).current_dir(&dir);
    let version = drive_spawned(server, "typescript-v2-peer").await;
    assert_eq!(version, "2026-07-28", "SDK v2 answers server/discover");
}

#[tokio::test]
#[ignore = "needs the TypeScript SDK; run by scripts/interop.sh"]
async fn the_typescript_sdk_v2_server_over_streamable_http_speaks_the_current_revision() {
    let peer = HttpServer::start(node(&node_dir(), &["peer-server-v2.mjs", "--http"]));
    let version = drive(http_client(&peer, options()).await, "typescript-v2-peer").await;
    assert_eq!(version, "2026-07-28", "SDK v2 answers server/discover over HTTP");
}

#[tokio::test]
#[ignore = "needs the TypeScript SDK; run by scripts/interop.sh"]
async fn the_typescript_sdk_v2_server_in_either_pinned_era() {
    use modelctx::client::EraMode;
    for (mode, version) in [(EraMode::Legacy, "2025-11-25"), (EraMode::Modern, "2026-07-28")] {
        let server = StdioCommand::new("node").args(["peer-server-v2.mjs"]).current_dir(node_dir());
        let client = Client::spawn(&server, ClientOptions { mode, ..options() }).await.unwrap();
        assert_eq!(drive(client, "typescript-v2-peer").await, version, "{mode:?} over stdio");
        let peer = HttpServer::start(node(&node_dir(), &["peer-server-v2.mjs", "--http"]));
        let client = http_client(&peer, ClientOptions { mode, ..options() }).await;
        assert_eq!(drive(client, "typescript-v2-peer").await, version, "{mode:?} over HTTP");
    }
}

#[tokio::test]
#[ignore = "needs the TypeScript SDK; run by scripts/interop.sh"]
async fn the_typescript_sdk_v1_server_over_stdio_falls_back_to_initialize() {
    let dir = PathBuf::from(required("MODELCTX_PEER_NODE_DIR"));
    let server = StdioCommand::new("node").args([dir.join("peer-server.mjs")]).current_dir(&dir);
    let version = drive_spawned(server, "typescript-peer").await;
    assert_eq!(version, "2025-11-25", "SDK v1 knows no server/discover: the probe falls back");
}

/// The npm reference server `@modelcontextprotocol/server-everything` (legacy era only).
fn server_everything(dir: &Path) -> PathBuf {
    dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// Drives the npm reference server: its echo and get-sum tools, a static resource, a prompt
/// with arguments, and completion-free paging of every list.
async fn drive_server_everything(client: Client) {
    assert_eq!(client.era(), Era::Legacy, "server-everything speaks only the initialize era");
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert!(tools.iter().any(|t| t == "echo") && tools.iter().any(|t| t == "get-sum"), "{tools:?}");
    let echo = client.call_tool("echo", json!({"message": "from modelctx"})).await.unwrap();
    assert_eq!(text(&echo.content)[0]["text"], "Echo: from modelctx");
    let sum = client.call_tool("get-sum", json!({"a": 2, "b": 40})).await.unwrap();
    assert!(text(&sum.content)[0]["text"].as_str().unwrap().contains("42"), "{sum:?}");
    let resources = client.list_resources().await.unwrap();
    let document = resources
        .iter()
        .find(|r| r.uri.starts_with("demo://resource/static/document/"))
        .unwrap_or_else(|| panic!("a static document among {resources:?}"));
    let contents = client.read_resource(&document.uri).await.unwrap();
    assert_eq!(text(&contents)[0]["uri"], document.uri.as_str());
    assert!(!client.list_resource_templates().await.unwrap().is_empty());
    let messages = client.get_prompt("args-prompt", json!({"city": "Lisbon"})).await.unwrap();
    assert_eq!(text(&messages)[0]["content"]["text"], "What's weather in Lisbon?");
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test]
#[ignore = "needs npm's @modelcontextprotocol/server-everything; run by scripts/interop.sh"]
async fn the_npm_everything_server_over_stdio() {
    let dir = node_dir();
    let server = StdioCommand::new("node").args([server_everything(&dir).as_os_str(), "stdio".as_ref()]);
    drive_server_everything(Client::spawn(&server, options()).await.unwrap()).await;
}

#[tokio::test]
#[ignore = "needs npm's @modelcontextprotocol/server-everything; run by scripts/interop.sh"]
async fn the_npm_everything_server_over_streamable_http() {
    let dir = node_dir();
    // It listens on every interface at $PORT: loopback.mjs binds it to 127.0.0.1 and prints the port.
    let everything = server_everything(&dir);
    let mut command = node(&dir, &["--import", "./loopback.mjs"]);
    command.arg(everything).arg("streamableHttp").env("PORT", "0");
    let peer = HttpServer::start(command);
    drive_server_everything(http_client(&peer, options()).await).await;
}

/// `modelctx ARGS… --json -- node server-everything stdio`: its exit status and JSON output.
fn cli_against_server_everything(args: &[&str]) -> (i32, Value) {
    let dir = node_dir();
    let output = Command::new(env!("CARGO_BIN_EXE_modelctx"))
        .args(args)
        .arg("--json")
        .arg("--")
        .arg("node")
        .arg(server_everything(&dir))
        .arg("stdio")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("modelctx runs");
    let shown = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), shown)
}

#[test]
#[ignore = "needs npm's @modelcontextprotocol/server-everything; run by scripts/interop.sh"]
fn the_cli_drives_the_npm_everything_server() {
    let (code, found) = cli_against_server_everything(&["discover"]);
    assert_eq!((code, &found["protocolVersion"]), (0, &json!("2025-11-25")), "{found}");
    let (_, tools) = cli_against_server_everything(&["tools", "list"]);
    assert!(tools.as_array().unwrap().iter().any(|t| t["name"] == "get-sum"), "{tools}");
    // get-sum's schema says numbers: a=2 must arrive as 2, not "2".
    let (code, sum) = cli_against_server_everything(&["tools", "call", "get-sum", "a=2", "b=40"]);
    assert_eq!(code, 0, "{sum}");
    assert!(sum["content"][0]["text"].as_str().unwrap().contains("42"), "{sum}");
    let (_, echoed) = cli_against_server_everything(&["tools", "call", "echo", "message=hi"]);
    assert_eq!(echoed["content"][0]["text"], "Echo: hi");
    let (_, messages) = cli_against_server_everything(&["prompts", "get", "args-prompt", "city=Lisbon"]);
    assert_eq!(messages[0]["content"]["text"], "What's weather in Lisbon?");
    let (_, templates) = cli_against_server_everything(&["resources", "templates"]);
    assert!(!templates.as_array().unwrap().is_empty(), "{templates}");
    let (code, refused) = cli_against_server_everything(&["tools", "call", "get-sum", "a=2"]);
    assert_ne!(code, 0, "a missing argument is refused one way or another: {refused}");
}
