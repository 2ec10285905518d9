//! `modelctx host --config FILE …` and `--config FILE --server NAME`, end to end: three
//! servers from one config file (two spawned over stdio, one over Streamable HTTP on
//! 127.0.0.1), one registry of namespaced tools, calls routed to their server, and risky
//! tools refused without --yes when nobody is at a terminal.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::support::http::HttpServer;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");

/// A config file in a fresh temporary directory, removed when dropped.
struct Config {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

/// Two stdio servers (everything, bench) and the HTTP server at `url`; the bench server's
/// command comes from `${MODELCTX_BIN}` to exercise expansion.
fn config(url: &str) -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    let file = json!({"mcpServers": {
        "everything": {"command": BIN, "args": ["serve", "everything"]},
        "bench": {"command": "${MODELCTX_BIN}", "args": ["serve", "bench"], "timeoutMs": 5000},
        "remote": {"url": url, "headers": {"X-Trace": "${TRACE:-cli-test}"}, "trustAnnotations": true}
    }});
    std::fs::write(&path, file.to_string()).unwrap();
    Config { _dir: dir, path }
}

fn modelctx(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("MODELCTX_BIN", BIN)
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("modelctx runs")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
    })
}

fn serve_http() -> HttpServer {
    let mut command = Command::new(BIN);
    command.args(["serve", "bench", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    HttpServer::start(command)
}

#[test]
fn a_host_holds_three_servers_behind_one_registry() {
    let remote = serve_http();
    let config = config(&remote.url());
    let file = config.path.to_str().unwrap();
    let status = json_of(&modelctx(&["host", "--config", file, "status", "--json"]));
    let states: Vec<(&str, &str)> = status
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        states,
        [("bench", "connected"), ("everything", "connected"), ("remote", "connected")],
        "{status}"
    );
    let tools = json_of(&modelctx(&["host", "--config", file, "tools", "list", "--json"]));
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in ["bench__add", "everything__add", "remote__add", "remote__echo"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let sum = modelctx(&["host", "--config", file, "tools", "call", "remote__add", "a=2", "b=40", "--json"]);
    assert!(sum.status.success(), "{}", String::from_utf8_lossy(&sum.stderr));
    assert_eq!(json_of(&sum)["structuredContent"]["sum"], 42.0);
}

#[test]
fn a_risky_tool_needs_yes_off_a_terminal() {
    let remote = serve_http();
    let config = config(&remote.url());
    let file = config.path.to_str().unwrap();
    // `fail` has no annotations: by the spec's defaults it may be destructive and open-world.
    let refused = modelctx(&["host", "--config", file, "tools", "call", "everything__fail"]);
    assert_eq!(refused.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("pass --yes"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let allowed = modelctx(&["host", "--config", file, "tools", "call", "everything__fail", "--yes"]);
    assert_eq!(allowed.status.code(), Some(1), "it ran, and reported its error");
    let unknown = modelctx(&["host", "--config", file, "tools", "call", "nowhere__tool"]);
    assert_eq!(unknown.status.code(), Some(4));
}

#[test]
fn one_server_of_a_config_file_is_a_target_for_every_command() {
    let remote = serve_http();
    let config = config(&remote.url());
    let file = config.path.to_str().unwrap();
    for server in ["bench", "remote"] {
        let sum =
            modelctx(&["tools", "call", "add", "a=1", "b=2", "--json", "--config", file, "--server", server]);
        assert_eq!(json_of(&sum)["structuredContent"]["sum"], 3.0, "{server}");
    }
    let missing = modelctx(&["ping", "--config", file, "--server", "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("it has: bench, everything, remote"));
    let broken_dir = tempfile::tempdir().unwrap();
    let broken = broken_dir.path().join("mcp.json");
    std::fs::write(&broken, r#"{"mcpServers": {"db": {"comand": "x"}}}"#).unwrap();
    let unknown_field = modelctx(&["host", "--config", broken.to_str().unwrap(), "status"]);
    assert_eq!(unknown_field.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown_field.stderr).contains(r#"unknown field "comand""#));
}

/// VS Code's `envFile` and `inputs` from the command line: the file's variables reach the
/// server; an `${input:ID}` with nobody at a terminal to answer it fails the command with a
/// message that names the input and the way out.
#[test]
fn an_env_file_is_read_and_an_unanswerable_input_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("server.env"), "WHICH=everything\n").unwrap();
    let path = dir.path().join("mcp.json");
    // The server runs only if WHICH, from the file, reaches its environment.
    let file = json!({"servers": {"e": {"command": "sh", "args": ["-c", "exec \"$0\" serve \"$WHICH\"", BIN], "envFile": "server.env"}}});
    std::fs::write(&path, file.to_string()).unwrap();
    let listed = modelctx(&["host", "--config", path.to_str().unwrap(), "tools", "list", "--json"]);
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("e__echo"),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );

    let file = json!({
        "inputs": [{"type": "promptString", "id": "key", "description": "API key", "password": true}],
        "servers": {"e": {"command": BIN, "args": ["serve", "everything"], "env": {"KEY": "${input:key}"}}}
    });
    std::fs::write(&path, file.to_string()).unwrap();
    let refused = modelctx(&["host", "--config", path.to_str().unwrap(), "status"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("asks for the input \"key\"") && stderr.contains("${input:key}: it was not given"),
        "{stderr}"
    );
}
