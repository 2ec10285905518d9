//! Interceptors (experimental; SEP-2624) in the gateway, between real processes: `modelctx
//! gateway --experimental` runs the interceptors of `modelctx serve --experimental guard` around
//! the calls it relays to `serve everything` — a validator refusing, a mutator redacting
//! requests or results, audit mode; a config naming an interceptor its server lacks stops the
//! start.

use std::io::Write as _;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::gateway::{MODES, bin, connect, gateway_with, options};
use crate::support::{WAIT, run_bounded};

/// `everything` under no prefix and the guard, with `interceptors` as the config's.
fn config(interceptors: serde_json::Value) -> String {
    json!({
        "mcpServers": {
            "ev": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": ""},
            "guard": {"command": "${BIN}", "args": ["serve", "--experimental", "guard"]}
        },
        "interceptors": interceptors
    })
    .to_string()
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

/// "Mutator … PII redaction": the redactor rewrites the call's arguments as they arrive, so the
/// backend never sees the address; "only validations with severity: error MUST block": a
/// blocked term refuses the call with `-32602` naming the interceptor and where the term was.
/// Both eras.
#[tokio::test]
async fn the_gateway_redacts_and_refuses_through_a_backends_interceptors() {
    let interceptors = json!([
        {"server": "guard", "interceptor": "pii-redactor"},
        {"server": "guard", "interceptor": "blocked-terms", "config": {"terms": ["drop table"]}},
        {"server": "guard", "interceptor": "audit-log"}
    ]);
    let (gateway, _dir) = gateway_with(&config(interceptors), &["--experimental"]);
    for (mode, era) in MODES {
        let client = connect(&gateway, options(mode)).await;
        let echoed =
            client.call_tool("echo", json!({"message": "mail ada@example.com today"})).await.unwrap();
        assert_eq!(text(&echoed), "mail [EMAIL] today", "{era:?}");
        let refused =
            client.call_tool("echo", json!({"message": "please DROP TABLE users"})).await.unwrap_err();
        let error = refused.rpc_error().unwrap_or_else(|| panic!("{refused}"));
        assert_eq!(error.code.0, -32602, "{era:?}: {refused}");
        let found = &error.data.as_ref().unwrap()["validationErrors"][0];
        assert_eq!(found["interceptor"], "blocked-terms");
        assert!(found["message"].as_str().unwrap().contains("drop table"), "{found}");
    }
}

/// "Interceptors in audit mode MUST NOT block execution regardless of results", and "hook
/// overrides can only narrow": the blocked-terms validator overridden to audit lets a blocked
/// term through, and the redactor narrowed to the response phase leaves the request as it was
/// and redacts the result on its way back.
#[tokio::test]
async fn audit_mode_never_blocks_and_a_narrowed_redactor_rewrites_only_results() {
    let interceptors = json!([
        {"server": "guard", "interceptor": "pii-redactor", "hooks": [{"events": ["tools/call"], "phase": "response"}]},
        {"server": "guard", "interceptor": "blocked-terms", "config": {"terms": ["drop table"]}, "mode": "audit"}
    ]);
    let (gateway, _dir) = gateway_with(&config(interceptors), &["--experimental"]);
    let client = connect(&gateway, options(modelctx::client::EraMode::Auto)).await;
    let echoed = client.call_tool("echo", json!({"message": "DROP TABLE of ada@example.com"})).await.unwrap();
    assert_eq!(text(&echoed), "DROP TABLE of [EMAIL]");
}

/// A config naming an interceptor its server does not host stops the gateway as it starts,
/// saying what the server hosts; without --experimental the interceptors are refused.
#[test]
fn a_misnamed_interceptor_or_a_missing_experimental_flag_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    let wrong = config(json!([{"server": "guard", "interceptor": "pii-scrubber"}]));
    std::fs::File::create(&path).unwrap().write_all(wrong.replace("${BIN}", bin()).as_bytes()).unwrap();
    let mut command = Command::new(bin());
    command
        .args(["gateway", "--experimental", "--http", "127.0.0.1:0", "--config"])
        .arg(&path)
        .stdin(Stdio::null());
    let output = run_bounded(command, WAIT);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("\"pii-scrubber\"") && stderr.contains("pii-redactor"), "{stderr}");

    let mut command = Command::new(bin());
    command.args(["gateway", "--http", "127.0.0.1:0", "--config"]).arg(&path).stdin(Stdio::null());
    let output = run_bounded(command, WAIT);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--experimental"), "{stderr}");
}
