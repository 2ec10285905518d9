//! `modelctx serve` as a deployment configures it: a Redis that cannot be reached stops the
//! start with a message naming it, and the names the server answers under are its options.
//! (Many instances sharing Redis behind a balancer: `tests/cluster/`, by `scripts/cluster.sh`.)

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::http::HttpServer;
use crate::support::{modern, run_bounded};
use serde_json::json;

#[test]
fn an_unreachable_redis_stops_the_start_and_says_where_it_was_looked_for() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    // Port 1 on loopback: nothing listens there.
    command.args(["serve", "everything", "--http", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1"]);
    command.env("NO_COLOR", "1").stdin(Stdio::null());
    let output = run_bounded(command, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot reach Redis at redis://127.0.0.1:1"), "{stderr}");
    assert!(stderr.contains("fix --redis"), "it says what to do: {stderr}");
    assert!(!stderr.contains("listening on"), "it never served: {stderr}");
}

#[test]
fn an_allowed_host_is_served_and_another_is_refused_naming_the_option_that_would_allow_it() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command.args(["serve", "everything", "--http", "127.0.0.1:0", "--allowed-host", "mcp.example.com"]);
    command.env("NO_COLOR", "1").stdin(Stdio::null());
    let server = HttpServer::start(command);
    let discover =
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": modern(json!({}))});
    let (status, answer) = server.post_as("mcp.example.com", &discover);
    assert_eq!(status, 200, "{answer}");
    let (status, refused) = server.post_as("other.example.org:443", &discover);
    assert_eq!(status, 403);
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("--allowed-host other.example.org"), "{message}");
}
