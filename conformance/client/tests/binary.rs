//! The `conformance-client` binary as the suite runs it: a scenario from the environment, the
//! server URL as its last argument, the exit status as the verdict. Here the server is a
//! modelctx server on 127.0.0.1 with the suite's `add_numbers` tool.

use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use modelctx::schemars::JsonSchema;
use modelctx::serde::Deserialize;
use modelctx::server::{Args, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use serde_json::{Value, json};

/// The arguments of the suite's `add_numbers`.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "modelctx::serde")]
#[schemars(crate = "modelctx::schemars")]
struct Numbers {
    a: f64,
    b: f64,
}

/// Serves a server whose `add_numbers` records the arguments of every call; returns its URL.
async fn serve(calls: Arc<Mutex<Vec<Value>>>) -> String {
    let add = ToolDef::new("add_numbers", move |Args(Numbers { a, b }): Args<Numbers>| {
        calls.lock().unwrap().push(json!({"a": a, "b": b}));
        async move { (a + b).to_string() }
    });
    let server = Server::builder("conformance-client-test", "1").tool(add).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), std::future::pending()));
    url
}

/// Runs the binary on `scenario` at `version` against `url`, off the runtime's threads.
async fn run(scenario: &str, version: &str, url: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_conformance-client"));
    command.env("MCP_CONFORMANCE_SCENARIO", scenario).env("MCP_CONFORMANCE_PROTOCOL_VERSION", version);
    command.arg(url);
    tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_call_scenario_calls_add_numbers_in_either_revision() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let url = serve(calls.clone()).await;
    for version in ["2025-11-25", "2026-07-28"] {
        let output = run("tools_call", version, &url).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{version}: {stderr}");
    }
    assert_eq!(*calls.lock().unwrap(), [json!({"a": 5.0, "b": 3.0}), json!({"a": 5.0, "b": 3.0})]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_that_fails_exits_1_and_says_why() {
    let url = serve(Arc::default()).await;
    let server_gone = url.replace("/mcp", "/nowhere");
    let output = run("tools_call", "2026-07-28", &server_gone).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("conformance-client: tools_call:"));
}

#[test]
fn without_a_url_it_is_a_usage_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_conformance-client")).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).starts_with("usage: conformance-client URL"));
}
