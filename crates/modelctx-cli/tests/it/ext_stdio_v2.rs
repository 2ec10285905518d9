//! HTTP over stdio (experimental; the draft transport `stdio-v2`) between real processes:
//! `modelctx serve --experimental --stdio-v2` spawned by the client, by a host's config
//! (`"type": "stdio-v2"`) through the gateway, and by the command line. Each test is named after
//! what the working group's documents require of it (docs/extensions.md); the protocol over
//! the pipe is tested in process in the library's `ext_stdio_v2`.

use std::process::Command;
use std::time::Duration;

use modelctx::client::{Client, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::types::Implementation;
use serde_json::json;

use crate::gateway::{bin, connect, gateway, options as gateway_options};
use crate::support::{WAIT, run_bounded};

/// `modelctx serve --experimental --stdio-v2 everything`, run by `sh -c SCRIPT` where the
/// script names the command `"$0" serve …`.
fn served_by(script: &str) -> StdioCommand {
    StdioCommand::new("sh").args(["-c", script, bin()])
}

fn http_over_stdio() -> StdioCommand {
    StdioCommand::new(bin()).args(["serve", "--experimental", "--stdio-v2", "everything"])
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("stdio-v2-test", "1"))
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

/// The socket inodes a process holds open.
fn socket_inodes(pid: u32) -> Vec<String> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap();
    let links = fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok());
    let inodes = links.filter_map(|link| {
        let link = link.to_string_lossy().into_owned();
        Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
    });
    inodes.collect()
}

/// Whether process `pid` is gone (or a zombie).
fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'))
    })
}

/// "Distinguish HTTP-over-stdio servers from legacy stdio servers during startup … client
/// configuration determines the framing before communication begins": a client of HTTP over
/// stdio started on a server of JSON-RPC lines fails at once, saying which transport it
/// expected and how the server ended; a client of lines on a server of HTTP over stdio fails
/// too. Neither hangs.
#[tokio::test]
async fn the_transport_is_chosen_by_configuration_and_a_mismatch_fails_at_once() {
    let lines = StdioCommand::new(bin()).args(["serve", "everything"]);
    let refused = tokio::time::timeout(WAIT, Client::spawn_stdio_v2(&lines, options())).await.unwrap();
    let refused = refused.err().expect("a server of lines is refused").to_string();
    assert!(refused.contains("stdio-v2") && refused.contains("exited"), "{refused}");

    let refused = tokio::time::timeout(WAIT, Client::spawn(&http_over_stdio(), options())).await.unwrap();
    let refused = refused.err().expect("a server of HTTP/2 is no server of lines").to_string();
    assert!(refused.contains("exited") || refused.contains("closed"), "{refused}");
}

/// "Run locally without opening a network port … no listener or new connection permissions
/// are required", and "define … EOF, shutdown": the server holds no TCP or UDP socket while it
/// serves, and exits when the client goes (its stdin closed) — in both eras.
#[tokio::test]
async fn no_port_is_opened_and_the_server_exits_when_its_client_goes() {
    for mode in [EraMode::Modern, EraMode::Legacy] {
        let client =
            Client::spawn_stdio_v2(&http_over_stdio(), ClientOptions { mode, ..options() }).await.unwrap();
        assert_eq!(client.transport(), "stdio-v2");
        let echoed = client.call_tool("echo", json!({"message": "over the pipe"})).await.unwrap();
        assert_eq!(text(&echoed), "over the pipe");
        let pid = client.server_pid().expect("a child process");
        let inet: String = ["tcp", "tcp6", "udp", "udp6"]
            .iter()
            .map(|table| std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default())
            .collect();
        let sockets = socket_inodes(pid);
        let network = sockets.iter().filter(|inode| inet.contains(&format!(" {inode} "))).count();
        assert_eq!(network, 0, "the server holds no network socket ({sockets:?})");
        client.close().await;
        let deadline = std::time::Instant::now() + WAIT;
        while !gone(pid) {
            assert!(std::time::Instant::now() < deadline, "the server outlived its client");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// "Define … stderr behavior": the server's stdout carries HTTP/2 frames only (it begins with
/// the server's SETTINGS frame, and every frame is whole), its diagnostics go to stderr.
#[tokio::test]
async fn stdout_carries_only_http2_frames_and_diagnostics_go_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("stdout.bin"), dir.path().join("stderr.log"));
    let script = format!(
        r#"RUST_LOG=debug "$0" serve --experimental --stdio-v2 everything 2>{} | tee {}"#,
        err.display(),
        out.display()
    );
    let client = Client::spawn_stdio_v2(&served_by(&script), options()).await.unwrap();
    client.call_tool("echo", json!({"message": "hi"})).await.unwrap();
    client.close().await;
    let bytes = std::fs::read(&out).unwrap();
    let mut at = 0;
    let mut frames = Vec::new();
    while at < bytes.len() {
        assert!(at + 9 <= bytes.len(), "a frame header is cut at byte {at}");
        let length =
            usize::from(bytes[at]) << 16 | usize::from(bytes[at + 1]) << 8 | usize::from(bytes[at + 2]);
        frames.push(bytes[at + 3]);
        at += 9 + length;
    }
    assert_eq!(at, bytes.len(), "the last frame is whole");
    assert_eq!(frames.first(), Some(&0x4), "the server's preface is a SETTINGS frame");
    assert!(frames.contains(&0x1) && frames.contains(&0x0), "HEADERS and DATA frames: {frames:?}");
    let logged = std::fs::read_to_string(&err).unwrap();
    assert!(!logged.is_empty(), "the server's diagnostics are on stderr");
}

/// A host's config names the transport (`"type": "stdio-v2"`), and the gateway serves such a
/// server beside the others: its tools called through the gateway in both eras.
#[tokio::test]
async fn a_host_config_entry_of_type_stdio_v2_is_served_through_the_gateway() {
    let config = r#"{"mcpServers": {"v2": {"type": "stdio-v2", "command": "${BIN}",
        "args": ["serve", "--experimental", "--stdio-v2", "everything"], "prefix": "v2"}}}"#;
    let (gateway, _dir) = gateway(config);
    for mode in [EraMode::Modern, EraMode::Legacy] {
        let client = connect(&gateway, gateway_options(mode)).await;
        let echoed = client.call_tool("v2__echo", json!({"message": "through the gateway"})).await.unwrap();
        assert_eq!(text(&echoed), "through the gateway", "{mode:?}");
    }
}

/// The command line: `--stdio-v2` says the command after `--` speaks HTTP over stdio.
#[test]
fn the_command_line_drives_a_server_of_http_over_stdio() {
    let mut command = Command::new(bin());
    command.args(["tools", "call", "echo", "message=hi", "--stdio-v2", "--", bin()]);
    command.args(["serve", "--experimental", "--stdio-v2", "everything"]);
    let output = run_bounded(command, WAIT);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "hi");
}
