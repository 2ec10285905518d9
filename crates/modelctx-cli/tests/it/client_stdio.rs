//! The client over stdio with real child processes: `modelctx serve everything` in both eras,
//! a server that crashes, and shutdown that leaves no process behind.

use modelctx_protocol::Method;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use modelctx::client::{Client, ClientOptions, EraMode, StdioCommand};
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
    assert!(
        error.is_closed() && error.to_string().ends_with("the server sh exited with status 3"),
        "{error}"
    );
    let missing = Client::spawn(&StdioCommand::new("/no/such/server"), options()).await.err().unwrap();
    assert!(missing.is_spawn() && missing.to_string().contains("started: /no/such/server: "), "{missing}");
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
        assert!(error.is_timeout(), "{error}");
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
            logs += usize::from(note.method == Method::LoggingMessage);
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

/// What crossed the pipes of one stdio session: the lines modelctx's client wrote to the
/// server's stdin, and the lines `modelctx serve everything` wrote to its stdout.
struct Recorded {
    stdin: Vec<serde_json::Value>,
    stdout: Vec<serde_json::Value>,
}

/// Every line of `path` as JSON; a line that is not one JSON-RPC message fails the test.
fn messages_of(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|line| {
            if let Err(e) = modelctx::protocol::jsonrpc::parse_message(line.as_bytes()) {
                panic!("not a JSON-RPC message: {line:?}: {}", e.error.message);
            }
            serde_json::from_str(line).unwrap()
        })
        .collect()
}

/// A session in `mode` through pipes that are recorded: the start (discover or initialize), a
/// tool call that logs, an elicitation (a retry in 2026-07-28, a live request before), and a
/// long call cancelled by dropping it.
async fn record_session(mode: EraMode) -> Recorded {
    let dir = tempfile::tempdir().unwrap();
    let (stdin, stdout) = (dir.path().join("stdin.jsonl"), dir.path().join("stdout.jsonl"));
    let recorded = StdioCommand::new("sh").args([
        "-c",
        r#"tee -a "$1" | "$0" serve everything | tee -a "$2""#,
        env!("CARGO_BIN_EXE_modelctx"),
        stdin.to_str().unwrap(),
        stdout.to_str().unwrap(),
    ]);
    let handlers = modelctx::client::ClientHandlers::default().on_elicit(|_| async {
        let content = [
            ("username".to_owned(), modelctx::protocol::types::ElicitValue::String("ada".into())),
            ("email".to_owned(), modelctx::protocol::types::ElicitValue::String("ada@example.com".into())),
        ];
        modelctx::protocol::v2026::ElicitResult {
            action: modelctx::protocol::types::ElicitAction::Accept,
            content: Some(content.into_iter().collect()),
        }
    });
    let options = ClientOptions { mode, handlers, ..options() };
    let client = Client::spawn(&recorded, options).await.unwrap();
    client.call_tool("test_tool_with_logging", json!({})).await.unwrap();
    let asked = client.call_tool("test_elicitation", json!({"message": "Who are you?"})).await.unwrap();
    assert_ne!(asked.is_error, Some(true));
    let long = client.call_tool("long_running_operation", json!({"steps": 100, "step_ms": 50}));
    assert!(tokio::time::timeout(Duration::from_millis(200), long).await.is_err(), "still running");
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.close().await;
    Recorded { stdin: messages_of(&stdin), stdout: messages_of(&stdout) }
}

/// The recorded 2026-07-28 session, made once for every test that reads it.
async fn modern_session() -> &'static Recorded {
    static MODERN: tokio::sync::OnceCell<Recorded> = tokio::sync::OnceCell::const_new();
    MODERN.get_or_init(|| record_session(EraMode::Modern)).await
}

/// LIFE-02, LIFE-05: a 2025-11-25 client starts with `initialize` carrying its protocol
/// version, capabilities and identity, then sends `notifications/initialized` before anything
/// else.
#[tokio::test]
async fn life_02_05_a_legacy_client_initializes_then_says_so() {
    let recorded = record_session(EraMode::Legacy).await;
    let (initialize, initialized) = (&recorded.stdin[0], &recorded.stdin[1]);
    assert_eq!(initialize["method"], "initialize", "{initialize}");
    let params = &initialize["params"];
    assert_eq!(params["protocolVersion"], "2025-11-25", "the latest legacy version: {params}");
    assert!(params["capabilities"]["elicitation"].is_object(), "{params}");
    assert_eq!(params["clientInfo"]["name"], "stdio-test", "{params}");
    assert_eq!(initialized["method"], "notifications/initialized", "{initialized}");
}

/// STDIO-02: everything the server writes on stdout is an MCP message (its logs go to
/// stderr), one per line.
#[tokio::test]
async fn stdio_02_the_server_writes_only_messages_to_stdout() {
    let recorded = modern_session().await;
    assert!(recorded.stdout.len() >= 4, "answers were written: {:?}", recorded.stdout);
}

/// STDIO-03: everything the client writes on the server's stdin is an MCP message.
#[tokio::test]
async fn stdio_03_the_client_writes_only_messages_to_stdin() {
    let recorded = modern_session().await;
    assert!(recorded.stdin.iter().all(|m| m["jsonrpc"] == "2.0"), "{:?}", recorded.stdin);
}

/// STDIO-05: a 2026-07-28 client writes no JSON-RPC responses, even when the server needs an
/// answer from it (the elicitation travels as `input_required` and a retried request).
#[tokio::test]
async fn stdio_05_a_modern_client_writes_no_responses() {
    let recorded = modern_session().await;
    let responses: Vec<_> =
        recorded.stdin.iter().filter(|m| m.get("result").is_some() || m.get("error").is_some()).collect();
    assert!(responses.is_empty(), "{responses:?}");
    let retried = recorded.stdin.iter().filter(|m| m["params"]["name"] == "test_elicitation").count();
    assert_eq!(retried, 2, "the elicitation was asked and answered by a retry");
}

/// STDIO-06: a 2026-07-28 server writes no JSON-RPC requests to stdout.
#[tokio::test]
async fn stdio_06_base_31_a_modern_server_writes_no_requests() {
    let recorded = modern_session().await;
    let requests: Vec<_> =
        recorded.stdout.iter().filter(|m| m.get("method").is_some() && m.get("id").is_some()).collect();
    assert!(requests.is_empty(), "{requests:?}");
}

/// TOOL-18, MRTR-11, MRTR-12, MRTR-13, MRTR-16: the client answers every input request, then
/// retries the call under a new JSON-RPC id, with its `_meta`, echoing the `requestState` it
/// was given exactly (and sending none the first time).
#[tokio::test]
async fn tool_18_mrtr_11_12_13_16_a_retry_answers_everything_under_a_new_id() {
    let recorded = modern_session().await;
    let calls: Vec<_> = recorded.stdin.iter().filter(|m| m["params"]["name"] == "test_elicitation").collect();
    assert_eq!(calls.len(), 2, "asked, then retried");
    let (first, retry) = (calls[0], calls[1]);
    assert_ne!(first["id"], retry["id"]);
    assert!(first["params"].get("requestState").is_none(), "no state was given yet");
    let asked = recorded.stdout.iter().find(|m| m["id"] == first["id"]).expect("the first round's answer");
    assert_eq!(asked["result"]["resultType"], "input_required");
    assert_eq!(retry["params"]["requestState"], asked["result"]["requestState"], "echoed exactly");
    let keys = |value: &serde_json::Value| -> Vec<String> {
        value.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    assert_eq!(keys(&retry["params"]["inputResponses"]), keys(&asked["result"]["inputRequests"]));
    assert_eq!(retry["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
}

/// CANCEL-02: a 2026-07-28 server sends no `notifications/cancelled`, even when the client
/// cancels one of its requests (it only ends `subscriptions/listen` that way).
#[tokio::test]
async fn cancel_02_a_modern_server_sends_no_cancelled_notification() {
    let recorded = modern_session().await;
    assert!(recorded.stdin.iter().any(|m| m["method"] == "notifications/cancelled"), "the client cancelled");
    assert!(
        recorded.stdout.iter().all(|m| m["method"] != "notifications/cancelled"),
        "{:?}",
        recorded.stdout
    );
}

/// STDIO-07 and CANCEL-03: the client cancels a request by sending `notifications/cancelled`
/// with its id, and only one it issued and that was still running (no answer came for it).
#[tokio::test]
async fn stdio_07_cancel_03_the_client_cancels_its_running_request_by_id() {
    let recorded = modern_session().await;
    let long = recorded.stdin.iter().find(|m| m["params"]["name"] == "long_running_operation").expect("sent");
    let cancelled: Vec<_> =
        recorded.stdin.iter().filter(|m| m["method"] == "notifications/cancelled").collect();
    assert_eq!(cancelled.len(), 1, "{cancelled:?}");
    assert_eq!(cancelled[0]["params"]["requestId"], long["id"]);
    assert!(
        recorded.stdout.iter().all(|m| m["id"] != long["id"]),
        "the cancelled call had not been answered"
    );
}
