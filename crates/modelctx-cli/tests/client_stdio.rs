//! The client over stdio with real child processes: `modelctx serve everything` in both eras,
//! a server that crashes, and shutdown that leaves no process behind.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use modelctx::client::{Client, ClientError, ClientOptions, EraMode, StdioCommand};
use modelctx::protocol::ProtocolVersion;
use modelctx::protocol::jsonrpc::ParseLimits;
use modelctx::protocol::types::Implementation;
use serde_json::json;

fn everything() -> StdioCommand {
    StdioCommand::new(env!("CARGO_BIN_EXE_modelctx")).args(["serve", "everything"])
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("stdio-test", "1"))
}

/// Whether process `pid` is gone — neither running nor a zombie awaiting its parent.
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the parenthesised command name.
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('X')),
    }
}

async fn wait_gone(pid: u32) -> bool {
    for _ in 0..500 {
        if gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// What a test's tracing subscriber writes, kept to be read back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.0.lock().unwrap()).lines().map(str::to_owned).collect()
    }
}

/// A server that writes one 3 MB line on stderr before it serves: the client reads stderr in
/// lines of at most its message limit, logs that a longer one was dropped, and serves on. It
/// used to read stderr in unbounded lines, so one server could make the host hold any amount
/// (hardening issue).
#[tokio::test]
async fn an_endless_stderr_line_is_dropped_not_held() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
    let _default = tracing::subscriber::set_default(subscriber);
    let max = 65_536;
    let noisy = StdioCommand::new("sh").args([
        "-c",
        "head -c 3000000 /dev/zero | tr '\\0' x >&2; echo >&2; exec \"$0\" serve everything",
        env!("CARGO_BIN_EXE_modelctx"),
    ]);
    let limits = ParseLimits { max_message_bytes: max, ..ParseLimits::default() };
    let client = Client::spawn(&noisy, ClientOptions { limits, ..options() }).await.unwrap();
    let echo = client.call_tool("echo", json!({"message": "still served"})).await.unwrap();
    assert_eq!(serde_json::to_value(&echo.content).unwrap()[0]["text"], "still served");
    let marker = format!("(a line over {max} bytes, not shown)");
    for _ in 0..500 {
        if captured.lines().iter().any(|line| line.contains(&marker)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let lines = captured.lines();
    assert!(lines.iter().any(|line| line.contains(&marker)), "no note of the dropped line");
    let longest = lines.iter().map(String::len).max().unwrap_or(0);
    assert!(longest < max, "a log line of {longest} bytes");
}

#[tokio::test]
async fn both_eras_list_and_call_the_everything_server() {
    for (mode, version) in
        [(EraMode::Auto, ProtocolVersion::V2026_07_28), (EraMode::Legacy, ProtocolVersion::V2025_11_25)]
    {
        let client = Client::spawn(&everything(), ClientOptions { mode, ..options() }).await.unwrap();
        assert_eq!(client.server().version, version, "{mode:?}");
        assert_eq!(client.server().info.as_ref().unwrap().name, "modelctx-everything");
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|tool| tool.name == "echo"), "{mode:?}");
        let echo = client.call_tool("echo", json!({"message": "over stdio"})).await.unwrap();
        assert_eq!(serde_json::to_value(&echo.content).unwrap()[0]["text"], "over stdio");
        let resources = client.list_resources().await.unwrap();
        assert!(resources.iter().any(|r| r.uri == "everything://pixel.png"), "{mode:?}");
        let templates = client.list_resource_templates().await.unwrap();
        assert!(templates.iter().any(|t| t.uri_template == "everything://items/{id}"), "{mode:?}");
        let item = client.read_resource("everything://items/7").await.unwrap();
        assert_eq!(serde_json::to_value(&item).unwrap()[0]["text"], r#"{"id":7,"name":"item 7"}"#);
        assert!(client.list_prompts().await.unwrap().iter().any(|p| p.name == "greeting"));
        let greeting = client.get_prompt("greeting", json!({"name": "Ada"})).await.unwrap();
        assert_eq!(
            serde_json::to_value(&greeting).unwrap()[0]["content"]["text"],
            "Please greet Ada warmly."
        );
        let add = client.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
        assert_eq!(add.structured_content, Some(json!({"sum": 42.0})));
        let exit = client.close().await;
        let exit = exit.expect("the server's exit is known");
        assert!(exit.ends_with("/modelctx exited"), "closing stdin ends the server cleanly: {exit}");
    }
}

#[tokio::test]
async fn dropping_a_client_leaves_no_child_process_behind() {
    let client = Client::spawn(&everything(), options()).await.unwrap();
    let pid = client.server_pid().expect("a spawned server has a pid");
    assert!(!gone(pid));
    drop(client);
    assert!(wait_gone(pid).await, "the server {pid} still runs or is a zombie after the client was dropped");
}

#[tokio::test]
async fn a_server_that_ignores_eof_is_terminated() {
    let options =
        ClientOptions { shutdown_grace: Duration::from_millis(100), mode: EraMode::Legacy, ..options() };
    // Answers `initialize`, then ignores EOF and SIGTERM: only SIGKILL ends it.
    let stubborn = StdioCommand::new("sh").args([
        "-c",
        r#"trap '' TERM; read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}}'; while :; do sleep 1; done"#,
    ]);
    let client = Client::spawn(&stubborn, options).await.unwrap();
    let pid = client.server_pid().unwrap();
    let exit = client.close().await;
    assert_eq!(exit.as_deref(), Some("the server sh was ended by signal 9"));
    assert!(wait_gone(pid).await);
}

#[tokio::test]
async fn a_crashing_server_fails_the_pending_call_with_its_exit() {
    let crashing = StdioCommand::new("sh").args(["-c", "read -r line; echo 'dying' >&2; exit 3"]);
    let error = Client::spawn(&crashing, options()).await.err().expect("no server to talk to");
    assert_eq!(error, ClientError::Closed("the server sh exited with status 3".into()));
    let missing = Client::spawn(&StdioCommand::new("/no/such/server"), options()).await.err().unwrap();
    assert!(
        matches!(missing, ClientError::Spawn { ref detail, .. } if detail.starts_with("/no/such/server: ")),
        "{missing}"
    );
    // The I/O error underneath is kept.
    let source = std::error::Error::source(&missing).and_then(|s| s.downcast_ref::<std::io::Error>());
    assert_eq!(source.map(std::io::Error::kind), Some(std::io::ErrorKind::NotFound), "{missing:?}");
}

#[tokio::test]
async fn progress_reaches_its_callback_and_keeps_a_long_call_alive() {
    for mode in [EraMode::Auto, EraMode::Legacy] {
        // 5 steps of 120 ms: longer than the 350 ms limit, but each report starts it again.
        let options = ClientOptions { mode, request_timeout: Duration::from_millis(350), ..options() };
        let client = Client::spawn(&everything(), options).await.unwrap();
        let mut reports = Vec::new();
        let args = json!({"steps": 5, "step_ms": 120});
        let result = client
            .call_tool_with_progress("long_running_operation", args.clone(), |p| reports.push(p))
            .await
            .unwrap();
        assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "finished 5 steps", "{mode:?}");
        let steps: Vec<f64> = reports.iter().map(|p| p.progress).collect();
        assert_eq!(steps, [1.0, 2.0, 3.0, 4.0, 5.0], "{mode:?}");
        assert_eq!(reports[0].total, Some(5.0));
        // Without progress the same call runs out of time.
        let error = client.call_tool("long_running_operation", args).await.unwrap_err();
        assert!(matches!(error, ClientError::Timeout { .. }), "{error}");
    }
}

#[tokio::test]
async fn log_level_and_completion_in_both_eras() {
    use modelctx::protocol::types::LoggingLevel;
    for mode in [EraMode::Auto, EraMode::Legacy] {
        let client = Client::spawn(&everything(), ClientOptions { mode, ..options() }).await.unwrap();
        let mut notes = client.notifications();
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        client.call_tool("long_running_operation", json!({"steps": 2, "step_ms": 1})).await.unwrap();
        let mut logs = 0;
        while let Ok(note) = notes.try_recv() {
            logs += usize::from(note.method == "notifications/message");
        }
        assert_eq!(logs, 2, "one log per step at info, {mode:?}");
        let completion = client
            .complete(
                json!({"type": "ref/prompt", "name": "greeting"}),
                json!({"name": "color", "value": "b"}),
                None,
            )
            .await
            .unwrap();
        assert_eq!(completion.values, ["blue"], "{mode:?}");
    }
}
