//! Utilities and the connection itself: progress, logging, cancellation, request ids, ping,
//! and bad input on the wire.

use std::sync::Arc;

use crate::common::{ERAS, Era, WAIT, builder, first_text, params_of, within};
use modelctx::server::{Limits, RequestContext, Server, ServerOptions, State, ToolDef};
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::jsonrpc::{ErrorResponse, Message, ParseLimits, RequestId, Response};
use modelctx_protocol::meta;
use modelctx_protocol::types::LoggingLevel;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};

/// Params for `tools/call` of `name` in `era`, with `_meta` entries (modern: plus the required
/// ones).
fn call(era: Era, name: &str, extra_meta: Value) -> Value {
    let params = json!({"name": name, "_meta": extra_meta});
    match era {
        Era::Modern => with_modern_meta(params, json!({})),
        Era::Legacy => params,
    }
}

// ---------------------------------------------------------------------------------------
// Progress

fn progress_server() -> Server {
    builder()
        .tool(ToolDef::new("steps", |ctx: RequestContext| async move {
            ctx.progress(1.0, Some(3.0), Some("first step".into())).await;
            ctx.progress(1.0, Some(3.0), None).await; // not an increase: dropped
            ctx.progress(0.5, Some(3.0), None).await; // a decrease: dropped
            ctx.progress(2.0, Some(3.0), None).await;
            ctx.progress(2.5, None, None).await;
            ctx.progress(3.0, Some(3.0), Some("done".into())).await;
            "three steps"
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn prog_02_progress_is_sent_with_a_token_and_always_increases() {
    for (era, token) in [(Era::Modern, json!("progress-1")), (Era::Legacy, json!(7))] {
        let client = era.connect(progress_server()).await;
        let result =
            era.ok(&client, "tools/call", json!({"name": "steps", "_meta": {"progressToken": token}})).await;
        assert_eq!(first_text(&result), "three steps");
        let progress = params_of(&client.take_notifications().await, "notifications/progress");
        let values: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
        assert_eq!(values, [1.0, 2.0, 2.5, 3.0], "{era:?}: {progress:?}");
        assert!(progress.iter().all(|p| p["progressToken"] == token), "{era:?}: {progress:?}");
        assert_eq!(progress[0]["total"], 3.0, "{era:?}");
        assert_eq!(progress[0]["message"], "first step", "{era:?}");
        assert!(progress[2].get("total").is_none(), "{era:?}");
    }
}

#[tokio::test]
async fn prog_03_no_progress_without_a_progress_token() {
    for era in ERAS {
        let client = era.connect(progress_server()).await;
        let result = era.ok(&client, "tools/call", json!({"name": "steps"})).await;
        assert_eq!(first_text(&result), "three steps");
        assert_eq!(client.take_notifications().await, Vec::new(), "{era:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Logging

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn logging_server() -> Server {
    builder()
        .tool(ToolDef::new("log_everything", |ctx: RequestContext| async move {
            for level in LEVELS {
                ctx.log(level, Some("tests"), json!({"at": level})).await;
            }
            "logged"
        }))
        .build()
        .unwrap()
}

/// The levels of the `notifications/message` that arrived with a request's answer.
async fn logged_levels(client: &TestClient) -> Vec<String> {
    params_of(&client.take_notifications().await, "notifications/message")
        .iter()
        .map(|p| {
            assert_eq!(p["logger"], "tests");
            assert_eq!(p["data"]["at"], p["level"]);
            p["level"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[tokio::test]
async fn log_02_a_modern_request_without_a_log_level_gets_no_log_messages() {
    let client = Era::Modern.connect(logging_server()).await;
    let result = Era::Modern.ok(&client, "tools/call", json!({"name": "log_everything"})).await;
    assert_eq!(first_text(&result), "logged");
    assert_eq!(client.take_notifications().await, Vec::new());
}

#[tokio::test]
async fn log_03_a_modern_request_with_a_log_level_gets_messages_at_or_above_it() {
    let client = Era::Modern.connect(logging_server()).await;
    let call_at = |level: &str| {
        Era::Modern.ok(
            &client,
            "tools/call",
            call(Era::Modern, "log_everything", json!({meta::LOG_LEVEL: level})),
        )
    };
    call_at("warning").await;
    assert_eq!(logged_levels(&client).await, ["warning", "error", "critical", "alert", "emergency"]);
    call_at("debug").await;
    assert_eq!(logged_levels(&client).await.len(), 8);
    call_at("emergency").await;
    assert_eq!(logged_levels(&client).await, ["emergency"]);
    // The level was this request's only: the next request without one gets nothing.
    Era::Modern.ok(&client, "tools/call", json!({"name": "log_everything"})).await;
    assert_eq!(client.take_notifications().await, Vec::new());
}

#[tokio::test]
async fn log_04_an_unrecognised_modern_log_level_is_invalid_params() {
    let client = Era::Modern.connect(logging_server()).await;
    let error = within(
        client.request("tools/call", call(Era::Modern, "log_everything", json!({meta::LOG_LEVEL: "loud"}))),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.0, -32602, "{}", error.message);
}

#[tokio::test]
async fn log_05_a_legacy_session_gets_log_messages_only_after_set_level() {
    let client = Era::Legacy.connect(logging_server()).await;
    Era::Legacy.ok(&client, "tools/call", json!({"name": "log_everything"})).await;
    assert_eq!(client.take_notifications().await, Vec::new(), "no level set yet");

    Era::Legacy.ok(&client, "logging/setLevel", json!({"level": "error"})).await;
    Era::Legacy.ok(&client, "tools/call", json!({"name": "log_everything"})).await;
    assert_eq!(logged_levels(&client).await, ["error", "critical", "alert", "emergency"]);

    // The level stays with the session, and can change.
    Era::Legacy.ok(&client, "logging/setLevel", json!({"level": "notice"})).await;
    Era::Legacy.ok(&client, "tools/call", json!({"name": "log_everything"})).await;
    assert_eq!(
        logged_levels(&client).await,
        ["notice", "warning", "error", "critical", "alert", "emergency"]
    );

    let error = Era::Legacy.err(&client, "logging/setLevel", json!({"level": "loud"})).await;
    assert_eq!(error.code.0, -32602, "{}", error.message);
}

// ---------------------------------------------------------------------------------------
// Cancellation, request ids, ping

/// What the blocking tools report to the test.
#[derive(Clone)]
struct Probe {
    /// The handler is running.
    started: mpsc::UnboundedSender<()>,
    /// The handler's cancellation token was tripped.
    tripped: mpsc::UnboundedSender<()>,
    /// The handler's future was dropped: its processing stopped.
    stopped: mpsc::UnboundedSender<()>,
    /// `gate` waits for a permit here.
    gate: Arc<Semaphore>,
}

struct Receivers {
    started: mpsc::UnboundedReceiver<()>,
    tripped: mpsc::UnboundedReceiver<()>,
    stopped: mpsc::UnboundedReceiver<()>,
    gate: Arc<Semaphore>,
}

/// Sends on drop.
struct DropSignal(mpsc::UnboundedSender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// A server with `forever` (runs until cancelled), `gate` (waits for a permit), and `quick`.
fn blocking_server(options: ServerOptions) -> (Server, Receivers) {
    let (started, started_rx) = mpsc::unbounded_channel();
    let (tripped, tripped_rx) = mpsc::unbounded_channel();
    let (stopped, stopped_rx) = mpsc::unbounded_channel();
    let gate = Arc::new(Semaphore::new(0));
    let probe = Probe { started, tripped, stopped, gate: gate.clone() };
    let server = builder()
        .options(options)
        .state(probe)
        .tool(ToolDef::new("forever", |ctx: RequestContext, State(probe): State<Probe>| async move {
            let _stopped = DropSignal(probe.stopped.clone());
            let token = ctx.cancellation().clone();
            tokio::spawn(async move {
                token.cancelled().await;
                let _ = probe.tripped.send(());
            });
            let _ = probe.started.send(());
            std::future::pending::<()>().await;
            "never"
        }))
        .tool(ToolDef::new("gate", |State(probe): State<Probe>| async move {
            let _ = probe.started.send(());
            probe.gate.acquire().await.expect("the gate stays open").forget();
            "through the gate"
        }))
        .tool(ToolDef::new("quick", || async { "quick" }))
        .build()
        .unwrap();
    let receivers = Receivers { started: started_rx, tripped: tripped_rx, stopped: stopped_rx, gate };
    (server, receivers)
}

async fn signal(receiver: &mut mpsc::UnboundedReceiver<()>, what: &str) {
    tokio::time::timeout(WAIT, receiver.recv())
        .await
        .unwrap_or_else(|_| panic!("timed out waiting until {what}"))
        .unwrap_or_else(|| panic!("the server dropped its probe before {what}"));
}

#[tokio::test]
async fn cancel_05_stdio_08_a_cancelled_request_stops_and_gets_no_response() {
    for era in ERAS {
        let (server, mut probe) = blocking_server(ServerOptions::default());
        let client = era.connect(server).await;
        let mut cancelled = client.send_request("tools/call", call(era, "forever", json!({}))).await;
        signal(&mut probe.started, "the handler started").await;

        client
            .notify(
                "notifications/cancelled",
                json!({"requestId": cancelled.id(), "reason": "changed my mind"}),
            )
            .await;
        signal(&mut probe.tripped, "the handler's cancellation token tripped").await;
        signal(&mut probe.stopped, "the handler stopped").await;

        // A later request is answered; the cancelled one never is.
        let later = era.ok(&client, "tools/call", json!({"name": "quick"})).await;
        assert_eq!(first_text(&later), "quick");
        assert_eq!(cancelled.try_response(), None, "{era:?}: a cancelled request was answered");
        assert_eq!(client.next_unmatched(crate::common::BRIEF).await, None, "{era:?}");

        // Its id is free again once it is gone.
        let id = cancelled.id().clone();
        let reused = within(client.request_with_id(id, "tools/call", call(era, "quick", json!({})))).await;
        assert!(reused.is_ok(), "{era:?}: {reused:?}");
    }
}

#[tokio::test]
async fn cancel_07_base_12_cancelling_an_unknown_or_finished_request_is_ignored() {
    for era in ERAS {
        let (server, _probe) = blocking_server(ServerOptions::default());
        let client = era.connect(server).await;
        let finished = client.send_request("tools/call", call(era, "quick", json!({}))).await;
        let id = finished.id().clone();
        within(finished.response()).await.unwrap();
        for params in [json!({"requestId": id}), json!({"requestId": "never-sent"}), json!({}), Value::Null] {
            client.notify("notifications/cancelled", params).await;
        }
        // Notifications get no answer; the connection serves on.
        assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
        assert_eq!(client.next_unmatched(crate::common::BRIEF).await, None);
    }
}

/// Writes a request line whose answer goes to [`TestClient::next_unmatched`].
async fn send_raw_request(client: &TestClient, era: Era, id: &str, tool: &str) {
    let line =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call(era, tool, json!({}))});
    client.send_line(&line.to_string()).await;
}

async fn next_unmatched(client: &TestClient) -> Message {
    client.next_unmatched(WAIT).await.expect("an answer arrives")
}

#[tokio::test]
async fn base_05_a_duplicate_id_of_a_request_in_flight_is_invalid_request() {
    for era in ERAS {
        let (server, mut probe) = blocking_server(ServerOptions::default());
        let client = era.connect(server).await;
        send_raw_request(&client, era, "dup", "gate").await;
        signal(&mut probe.started, "the first request is in flight").await;

        send_raw_request(&client, era, "dup", "quick").await;
        match next_unmatched(&client).await {
            Message::Error(ErrorResponse { id, error }) => {
                assert_eq!(id, Some(RequestId::String("dup".into())), "{era:?}");
                assert_eq!(error.code.0, -32600, "{era:?}: {}", error.message);
            }
            other => panic!("{era:?}: expected the duplicate's error, got {}", other.to_json()),
        }

        // The first request is unaffected and answers when it finishes.
        probe.gate.add_permits(1);
        match next_unmatched(&client).await {
            Message::Response(Response { id, result }) => {
                assert_eq!(id, RequestId::String("dup".into()));
                assert_eq!(first_text(&Value::Object(result)), "through the gate", "{era:?}");
            }
            other => panic!("{era:?}: expected the first request's result, got {}", other.to_json()),
        }
        // Once answered, the id may be used again.
        let again =
            within(client.request_with_id("dup".into(), "tools/call", call(era, "quick", json!({})))).await;
        assert!(again.is_ok(), "{era:?}: {again:?}");
    }
}

#[tokio::test]
async fn life_10_ping_in_a_session_is_answered_while_other_requests_run() {
    let (server, mut probe) = blocking_server(ServerOptions::default());
    let client = Era::Legacy.connect(server).await;
    let slow = client.send_request("tools/call", json!({"name": "gate"})).await;
    signal(&mut probe.started, "the slow request is in flight").await;
    assert_eq!(Era::Legacy.ok(&client, "ping", json!({})).await, json!({}));
    assert_eq!(Era::Legacy.ok(&client, "ping", Value::Null).await, json!({}));
    // Other requests are not held up by it either.
    assert_eq!(first_text(&Era::Legacy.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
    probe.gate.add_permits(1);
    let result = Value::Object(within(slow.response()).await.unwrap());
    assert_eq!(first_text(&result), "through the gate");
}

// ---------------------------------------------------------------------------------------
// Bad input on the wire

async fn expect_error(client: &TestClient, code: i64, id: Option<RequestId>) {
    match next_unmatched(client).await {
        Message::Error(error) => {
            assert_eq!(error.error.code.0, code, "{}", error.error.message);
            assert_eq!(error.id, id);
        }
        other => panic!("expected a {code} error, got {}", other.to_json()),
    }
}

#[tokio::test]
async fn base_01_a_malformed_line_is_a_parse_error_and_the_next_request_is_answered() {
    for era in ERAS {
        let (server, _probe) = blocking_server(ServerOptions::default());
        let client = era.connect(server).await;
        let bad = [
            ("{not json", -32700),
            ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"} trailing", -32700),
            ("\"a string\"", -32600),
        ];
        for (line, code) in bad {
            client.send_line(line).await;
            expect_error(&client, code, None).await;
            assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
        }
        // Blank lines are skipped without an answer.
        client.send_line("").await;
        client.send_line("   ").await;
        assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
        assert_eq!(client.next_unmatched(crate::common::BRIEF).await, None);
    }
}

#[tokio::test]
async fn base_01_a_batch_is_invalid_request() {
    for era in ERAS {
        let (server, _probe) = blocking_server(ServerOptions::default());
        let client = era.connect(server).await;
        let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call(era, "quick", json!({}))}]);
        client.send_line(&batch.to_string()).await;
        expect_error(&client, -32600, None).await;
        assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
    }
}

#[tokio::test]
async fn base_11_an_invalid_request_with_a_readable_id_is_answered_with_that_id() {
    let (server, _probe) = blocking_server(ServerOptions::default());
    let client = Era::Modern.connect(server).await;
    client.send_line(r#"{"id": 41, "method": "tools/list"}"#).await; // no "jsonrpc"
    expect_error(&client, -32600, Some(RequestId::Number(41))).await;
    client.send_line(r#"{"jsonrpc": "2.0", "id": 42, "method": "tools/list", "params": [1]}"#).await;
    expect_error(&client, -32602, Some(RequestId::Number(42))).await;
    assert_eq!(first_text(&Era::Modern.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
}

#[tokio::test]
async fn stdio_01_an_oversize_line_is_invalid_request_and_the_stream_continues() {
    let limits = Limits {
        parse: ParseLimits { max_message_bytes: 512, ..ParseLimits::default() },
        ..Limits::default()
    };
    for era in ERAS {
        let (server, _probe) = blocking_server(ServerOptions { limits, ..ServerOptions::default() });
        let client = era.connect(server).await;
        let oversize = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": call(era, "quick", json!({"padding": "x".repeat(2000)}))});
        client.send_line(&oversize.to_string()).await;
        expect_error(&client, -32600, None).await;
        assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");

        // An oversize line and a good one in a single write: only the first is refused.
        let good = json!({"jsonrpc": "2.0", "id": "after-oversize", "method": "tools/call",
                          "params": call(era, "quick", json!({}))});
        client.send_line(&format!("{oversize}\n{good}")).await;
        expect_error(&client, -32600, None).await;
        match next_unmatched(&client).await {
            Message::Response(response) => {
                assert_eq!(response.id, RequestId::String("after-oversize".into()))
            }
            other => panic!("{era:?}: expected the good request's answer, got {}", other.to_json()),
        }
        // And the stream goes on.
        assert_eq!(first_text(&era.ok(&client, "tools/call", json!({"name": "quick"})).await), "quick");
    }
}

#[tokio::test]
async fn limits_requests_beyond_the_queue_are_held_in_order_and_a_held_one_can_be_cancelled() {
    let limits = Limits { max_in_flight: 1, max_queued: 1, ..Limits::default() };
    for era in ERAS {
        let (server, mut probe) = blocking_server(ServerOptions { limits, ..ServerOptions::default() });
        let client = era.connect(server).await;
        let running = client.send_request("tools/call", call(era, "gate", json!({}))).await;
        signal(&mut probe.started, "the first request runs").await;
        let queued = client.send_request("tools/call", call(era, "gate", json!({}))).await;

        // The queue is full: the connection holds what it reads next instead of refusing it.
        let mut held = client.send_request("tools/call", call(era, "quick", json!({}))).await;
        let mut cancelled = client.send_request("tools/call", call(era, "quick", json!({}))).await;
        let mut after = client.send_request("tools/call", call(era, "quick", json!({}))).await;
        // A cancellation reaches a held request too: it is never run, and gets no response.
        client.notify("notifications/cancelled", json!({"requestId": cancelled.id()})).await;
        // Session requests are answered by the reader, whatever the queue holds.
        if era == Era::Legacy {
            assert_eq!(Era::Legacy.ok(&client, "ping", json!({})).await, json!({}));
        }
        tokio::time::sleep(crate::common::BRIEF).await;
        assert!(
            held.try_response().is_none() && after.try_response().is_none(),
            "{era:?}: held, not refused"
        );

        probe.gate.add_permits(2);
        for pending in [running, queued] {
            let result = Value::Object(within(pending.response()).await.unwrap());
            assert_eq!(first_text(&result), "through the gate", "{era:?}");
        }
        for pending in [held, after] {
            let result = Value::Object(within(pending.response()).await.unwrap());
            assert_eq!(first_text(&result), "quick", "{era:?}");
        }
        assert_eq!(cancelled.try_response(), None, "{era:?}: a cancelled held request was answered");
        assert_eq!(client.next_unmatched(crate::common::BRIEF).await, None, "{era:?}");
    }
}

#[tokio::test]
async fn limits_past_the_read_ahead_the_connection_stops_reading_until_a_request_is_let_in() {
    let limits = Limits { max_in_flight: 1, max_queued: 0, max_read_ahead: 1, ..Limits::default() };
    let (server, mut probe) = blocking_server(ServerOptions { limits, ..ServerOptions::default() });
    let era = Era::Legacy;
    let client = era.connect(server).await;
    let running = client.send_request("tools/call", call(era, "gate", json!({}))).await;
    signal(&mut probe.started, "the first request runs").await;
    let held = client.send_request("tools/call", call(era, "quick", json!({}))).await;
    // One request held fills the read-ahead: the ping behind it is not read yet.
    let mut ping = client.send_request("ping", json!({})).await;
    tokio::time::sleep(crate::common::BRIEF).await;
    assert!(ping.try_response().is_none(), "read past the read-ahead");

    probe.gate.add_permits(1);
    within(running.response()).await.unwrap();
    assert_eq!(first_text(&Value::Object(within(held.response()).await.unwrap())), "quick");
    assert_eq!(within(ping.response()).await.unwrap(), serde_json::Map::new(), "read once room came");
}
