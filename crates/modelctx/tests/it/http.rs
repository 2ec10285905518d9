//! Streamable HTTP on 127.0.0.1: both eras on one endpoint (CHECKLIST §10.3, §11.3–11.6),
//! spoken with a real HTTP client.

use crate::common::http::{Answer, Endpoint, ask, released, start_serving};

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use modelctx::server::LegacySession;
use modelctx::server::{RequestContext, Server, ToolDef};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{
    HttpOptions, HttpStores, MemoryEventStore, SessionStore, StoreError, StoreFuture,
};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

async fn slow(ctx: RequestContext) -> String {
    for step in 1..=2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        ctx.progress(f64::from(step), Some(2.0), None).await;
    }
    "done".into()
}

fn server() -> Server {
    Server::builder("http-test", "1")
        .tool(ToolDef::new("echo", || async { "echo" }))
        .tool(ToolDef::new("job", || async { "job done" }).tasks(modelctx::server::TaskSupport::Optional))
        .tool(ToolDef::new("slow", slow))
        .tool(ToolDef::new("ask", ask))
        .tool(ToolDef::new("released", released))
        .tool(ToolDef::new("sleepy", || async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "woke"
        }))
        .build()
        .unwrap()
}

async fn start(options: HttpOptions) -> Endpoint {
    start_serving(server(), options).await
}

/// Reads a streamed body until `done` finds what it wants in the text so far.
async fn read_until<T>(body: &mut hyper::body::Incoming, mut done: impl FnMut(&str) -> Option<T>) -> T {
    let mut text = String::new();
    loop {
        if let Some(found) = done(&text) {
            return found;
        }
        let frame = tokio::time::timeout(WAIT, body.frame()).await.unwrap().unwrap().unwrap();
        text.push_str(std::str::from_utf8(&frame.into_data().unwrap_or_default()).unwrap());
    }
}

/// The text of a streamed body up to where it holds `wanted`.
async fn read_text_until(body: &mut hyper::body::Incoming, wanted: &str) -> String {
    read_until(body, |text| text.contains(wanted).then(|| text.to_owned())).await
}

/// The first JSON-RPC message of a streamed SSE body.
async fn first_message(body: &mut hyper::body::Incoming) -> Value {
    read_until(body, |text| {
        text.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .find_map(|data| serde_json::from_str(data).ok())
    })
    .await
}

impl Endpoint {
    async fn modern(&self, method: &str, name: Option<&str>, params: Value) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": with_modern_meta(params, json!({}))});
        let mut headers = vec![
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name {
            headers.push(("mcp-name", name));
        }
        self.send("POST", &headers, &body.to_string()).await
    }
}

/// HTTP-10, HTTP-12: a modern request is answered with JSON, or with a stream when its handler
/// reports progress; what that stream carries belongs to the request (its progress token),
/// and no stream carries a JSON-RPC request.
#[tokio::test]
async fn http_10_12_modern_requests_get_json_or_a_stream_when_the_handler_reports_progress() {
    let endpoint = start(HttpOptions::default()).await;
    let answer = endpoint.modern("tools/call", Some("echo"), json!({"name": "echo"})).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.headers["content-type"], "application/json");
    assert_eq!(answer.json()["result"]["resultType"], "complete");

    let mut params = json!({"name": "slow"});
    params["_meta"] = json!({"progressToken": "p"});
    let answer = endpoint.modern("tools/call", Some("slow"), params).await;
    assert_eq!(answer.headers["content-type"], "text/event-stream");
    assert_eq!(answer.headers["x-accel-buffering"], "no", "HTTP-14");
    let events = answer.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[2]["result"]["content"][0]["text"], "done", "HTTP-13: the stream ends with the answer");
    for event in &events[..2] {
        assert_eq!(event["params"]["progressToken"], "p", "about this request: {event}");
    }
    assert!(events.iter().all(|e| !(e.get("method").is_some() && e.get("id").is_some())), "{events:?}");
}

/// HTTP-09: a notification the server accepts is answered `202` with no body; one it cannot
/// read is an HTTP error status.
#[tokio::test]
async fn http_09_an_accepted_notification_is_202_without_a_body() {
    let endpoint = start(HttpOptions::default()).await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": with_modern_meta(json!({"requestId": 99}), json!({}))});
    let headers = [
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "notifications/cancelled"),
    ];
    let accepted = endpoint.send("POST", &headers, &note.to_string()).await;
    assert_eq!((accepted.status, accepted.body.as_str()), (202, ""));
    let unreadable = endpoint.send("POST", &headers, "{not json").await;
    assert!((400..500).contains(&unreadable.status), "{}: {}", unreadable.status, unreadable.body);
}

#[tokio::test]
async fn http_19_21_34_modern_header_and_method_errors_have_their_statuses() {
    let endpoint = start(HttpOptions::default()).await;
    let mismatch = endpoint.modern("tools/call", Some("other"), json!({"name": "echo"})).await;
    assert_eq!((mismatch.status, mismatch.json()["error"]["code"].clone()), (400, json!(-32020)));
    let unknown = endpoint.modern("no/such", None, json!({})).await;
    assert_eq!((unknown.status, unknown.json()["error"]["code"].clone()), (404, json!(-32601)));
    let unknown_tool = endpoint.modern("tools/call", Some("nope"), json!({"name": "nope"})).await;
    assert_eq!((unknown_tool.status, unknown_tool.json()["error"]["code"].clone()), (200, json!(-32602)));
}

#[tokio::test]
async fn http_03_a_foreign_origin_is_403_and_a_large_body_413() {
    let endpoint = start(HttpOptions { max_body_bytes: 256, ..HttpOptions::default() }).await;
    let answer = endpoint.send("POST", &[("origin", "https://evil.example")], "{}").await;
    assert_eq!(answer.status, 403);
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#, "a".repeat(300));
    assert_eq!(endpoint.send("POST", &[("content-type", "application/json")], &big).await.status, 413);
}

#[tokio::test]
async fn legacy_sessions_live_from_initialize_to_delete() {
    let endpoint = start(HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)), "HTTP-56");
    let with_session = [
        ("content-type", "application/json"),
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let ping = endpoint.send("POST", &with_session, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).await;
    assert_eq!((ping.status, ping.json()["result"].clone()), (200, json!({})));
    let note = endpoint
        .send("POST", &with_session, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    assert_eq!(note.status, 202, "HTTP-09");
    let unknown =
        endpoint.send("POST", &with_session, r#"{"jsonrpc":"2.0","id":3,"method":"no/such"}"#).await;
    assert_eq!(unknown.status, 200, "a legacy -32601 is never a 404 (which would mean: session gone)");
    let missing = endpoint
        .send(
            "POST",
            &[("content-type", "application/json"), ("mcp-protocol-version", "2025-11-25")],
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        )
        .await;
    assert_eq!(missing.status, 400, "HTTP-58");
    assert_eq!(endpoint.send("DELETE", &with_session, "").await.status, 200);
    let gone = endpoint.send("POST", &with_session, r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    assert_eq!(gone.status, 404, "HTTP-59");
}

#[tokio::test]
async fn legacy_questions_travel_on_the_request_stream_and_answers_by_post() {
    let endpoint = start(HttpOptions::default()).await;
    let session = endpoint.initialize(json!({"elicitation": {}})).await;
    // Send the call, read the stream's first event (the server's question), answer it by POST.
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask"}}"#;
    let response = endpoint
        .open("POST", &[("content-type", "application/json"), ("mcp-session-id", &session)], call)
        .await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let question = first_message(&mut body).await;
    assert_eq!(question["method"], "elicitation/create");
    let reply = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    let posted = endpoint
        .send(
            "POST",
            &[("content-type", "application/json"), ("mcp-session-id", &session)],
            &reply.to_string(),
        )
        .await;
    assert_eq!(posted.status, 202);
    let rest = tokio::time::timeout(WAIT, body.collect()).await.unwrap().unwrap().to_bytes();
    let rest = String::from_utf8(rest.to_vec()).unwrap();
    let last: Value =
        serde_json::from_str(rest.lines().rev().find_map(|l| l.strip_prefix("data: ")).unwrap()).unwrap();
    assert_eq!(last["id"], 7);
    assert_eq!(last["result"]["content"][0]["text"], "Decline");
}

#[tokio::test]
async fn http_50_a_session_stream_opens_with_a_priming_event_and_carries_changes() {
    let endpoint = start(HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let response =
        endpoint.open("GET", &[("accept", "text/event-stream"), ("mcp-session-id", &session)], "").await;
    assert_eq!(response.headers()["content-type"], "text/event-stream", "HTTP-50");
    let mut body = response.into_body();
    endpoint.server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    let text = read_text_until(&mut body, "list_changed").await;
    assert!(text.starts_with("id: "), "HTTP-44: a priming event with an id first: {text}");
    assert!(text.contains("notifications/tools/list_changed"));
    let no_session = endpoint.send("GET", &[], "").await;
    assert_eq!(no_session.status, 400);
}

/// Reads a streamed body to its end (it must end).
async fn ended(body: &mut hyper::body::Incoming) {
    while let Some(frame) = tokio::time::timeout(WAIT, body.frame()).await.expect("the stream ended") {
        if frame.is_err() {
            return;
        }
    }
}

/// Opens `session`'s GET stream.
async fn session_stream(endpoint: &Endpoint, session: &str) -> hyper::body::Incoming {
    endpoint
        .open("GET", &[("accept", "text/event-stream"), ("mcp-session-id", session)], "")
        .await
        .into_body()
}

/// The status of a `ping` in `session`.
async fn ping(endpoint: &Endpoint, session: &str) -> u16 {
    let headers = [("content-type", "application/json"), ("mcp-session-id", session)];
    endpoint.send("POST", &headers, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).await.status
}

/// A session's GET stream ends with the session: at DELETE, and once the store has let it go
/// (here evicted by a newer session); while the stream is open the session stays in use,
/// however long its client sends nothing else. (The stream used to outlive its session and
/// go on delivering.)
#[tokio::test]
async fn a_sessions_get_stream_ends_with_the_session_and_keeps_it_in_use() {
    let options = HttpOptions {
        session_idle_timeout: Duration::from_millis(400),
        max_sessions: 1,
        ..HttpOptions::default()
    };
    let endpoint = start(options).await;
    let deleted = endpoint.initialize(json!({})).await;
    let mut stream = session_stream(&endpoint, &deleted).await;
    read_text_until(&mut stream, "id: ").await;
    let headers = [("mcp-session-id", deleted.as_str())];
    assert_eq!(endpoint.send("DELETE", &headers, "").await.status, 200);
    ended(&mut stream).await;

    let listening = endpoint.initialize(json!({})).await;
    let mut stream = session_stream(&endpoint, &listening).await;
    read_text_until(&mut stream, "id: ").await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        ping(&endpoint, &listening).await,
        200,
        "an open stream keeps its session past the idle timeout"
    );
    let newer = endpoint.initialize(json!({})).await;
    ended(&mut stream).await;
    assert_eq!(ping(&endpoint, &listening).await, 404, "evicted by the newer session");
    assert_eq!(ping(&endpoint, &newer).await, 200);
}

#[tokio::test]
async fn http_54_a_released_legacy_stream_resumes_with_last_event_id() {
    let endpoint = start(HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "released", "_meta": {"progressToken": "p"}}});
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-session-id", session.as_str()),
    ];
    // The POST stream ends early: priming event (id + retry), the progress, no answer.
    let first = endpoint.send("POST", &headers, &call.to_string()).await;
    assert!(first.body.starts_with("id: ") && first.body.contains("retry: "), "HTTP-44/45: {}", first.body);
    assert!(first.events().iter().all(|e| e.get("id") != Some(&json!(9))), "{}", first.body);
    let last_id = first.body.lines().rev().find_map(|l| l.strip_prefix("id: ")).unwrap().to_owned();
    // Resume: the rest of that stream, ending with the answer.
    let resumed = endpoint
        .send(
            "GET",
            &[("accept", "text/event-stream"), ("mcp-session-id", &session), ("last-event-id", &last_id)],
            "",
        )
        .await;
    let answer = resumed
        .events()
        .into_iter()
        .find(|e| e.get("id") == Some(&json!(9)))
        .expect("the answer after resuming");
    assert_eq!(answer["result"]["content"][0]["text"], "after the break");
    assert!(
        resumed.events().iter().all(|e| e["method"] != "notifications/progress"),
        "HTTP-55: nothing replayed twice"
    );
}

/// The last SSE event id of a body.
fn last_event_id(body: &str) -> Option<String> {
    body.lines().rev().find_map(|l| l.strip_prefix("id: ")).map(str::to_owned)
}

#[tokio::test]
async fn instances_sharing_stores_serve_one_session_and_resume_each_others_streams() {
    let stores = HttpStores::in_memory(Duration::from_secs(60), 16);
    let options = HttpOptions { stores: Some(stores), ..HttpOptions::default() };
    let (a, b) = (start(options.clone()).await, start(options).await);
    let session = a.initialize(json!({})).await;
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-session-id", session.as_str()),
    ];
    let echo = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo"}});
    let json_only = [("content-type", "application/json"), ("mcp-session-id", session.as_str())];
    let on_b = b.send("POST", &json_only, &echo.to_string()).await;
    assert_eq!(on_b.status, 200, "the session opened on one instance is known to the other: {}", on_b.body);
    assert_eq!(on_b.json()["result"]["content"][0]["text"], "echo");

    // A stream released on `a` resumes on `b`: what was logged so far, then (reconnecting,
    // as its retry delay says) the rest, until the answer.
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "released", "_meta": {"progressToken": "p"}}});
    let first = a.send("POST", &headers, &call.to_string()).await;
    let mut last_id = last_event_id(&first.body).expect("a priming event id");
    let mut seen = first.events();
    for _ in 0..100 {
        if seen.iter().any(|e| e.get("id") == Some(&json!(9))) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        let resumed = b
            .send(
                "GET",
                &[("accept", "text/event-stream"), ("mcp-session-id", &session), ("last-event-id", &last_id)],
                "",
            )
            .await;
        assert_eq!(resumed.status, 200, "{}", resumed.body);
        if let Some(id) = last_event_id(&resumed.body) {
            last_id = id;
        }
        seen.extend(resumed.events());
    }
    let answer = seen.iter().find(|e| e.get("id") == Some(&json!(9))).expect("the answer, resumed on b");
    assert_eq!(answer["result"]["content"][0]["text"], "after the break");
    let progress = seen.iter().filter(|e| e["method"] == "notifications/progress").count();
    assert_eq!(progress, 1, "HTTP-55: nothing replayed twice");

    // Ended on `b`, the session is gone on `a` too.
    assert_eq!(b.send("DELETE", &[("mcp-session-id", session.as_str())], "").await.status, 200);
    let ping = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    assert_eq!(a.send("POST", &headers, ping).await.status, 404, "HTTP-59 on every instance");
}

/// A session store whose backend is down.
struct Unreachable;

impl SessionStore for Unreachable {
    fn create<'a>(&'a self, _: &'a str, _: LegacySession) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError("connection refused".into())) })
    }
    fn get<'a>(&'a self, _: &'a str) -> StoreFuture<'a, Option<LegacySession>> {
        Box::pin(async { Err(StoreError("connection refused".into())) })
    }
    fn update<'a>(&'a self, _: &'a str, _: &'a LegacySession, _: LegacySession) -> StoreFuture<'a, bool> {
        Box::pin(async { Err(StoreError("connection refused".into())) })
    }
    fn remove<'a>(&'a self, _: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError("connection refused".into())) })
    }
}

#[tokio::test]
async fn a_failing_session_store_is_an_error_the_client_can_read_not_a_lost_session() {
    let stores = HttpStores {
        sessions: std::sync::Arc::new(Unreachable),
        events: std::sync::Arc::new(MemoryEventStore::new(Default::default())),
    };
    let endpoint = start(HttpOptions { stores: Some(stores), ..HttpOptions::default() }).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let refused = endpoint.send("POST", &[("content-type", "application/json")], &init.to_string()).await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.json()["error"]["message"], "Internal error: connection refused");
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let lookup =
        endpoint.send("POST", &[("content-type", "application/json"), ("mcp-session-id", "s1")], ping).await;
    assert_eq!(lookup.status, 503, "not 404, which would tell the client its session is gone; to retry");
    assert_eq!(lookup.json()["id"], 2);
    assert!(
        lookup.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the session store failed: connection refused")
    );
    let stream = endpoint.send("GET", &[("accept", "text/event-stream"), ("mcp-session-id", "s1")], "").await;
    assert_eq!(stream.status, 503);
    let end = endpoint.send("DELETE", &[("mcp-session-id", "s1")], "").await;
    assert_eq!(end.status, 503);
}

/// Instances that share stores and a bus need no sticky sessions: a legacy client's answer
/// posted to one instance reaches the handler waiting on another, and a change on one
/// instance reaches a session stream held by another.
#[tokio::test]
async fn instances_on_a_bus_relay_answers_and_changes_to_each_other() {
    let stores = HttpStores::in_memory(Duration::from_secs(60), 16);
    let bus = std::sync::Arc::new(modelctx::store::LocalBus::new());
    let options = HttpOptions { stores: Some(stores), ..HttpOptions::default() };
    let instance = || {
        let mut builder = Server::builder("http-test", "1").tool(ToolDef::new("ask", ask));
        builder = builder.bus(bus.clone());
        builder.build().unwrap()
    };
    let (a, b) = (start_serving(instance(), options.clone()).await, start_serving(instance(), options).await);
    let session = a.initialize(json!({"elicitation": {}})).await;
    let headers = [("content-type", "application/json"), ("mcp-session-id", session.as_str())];

    // The session stream is held by `a`; the change happens on `b`.
    let stream = a.open("GET", &[("accept", "text/event-stream"), ("mcp-session-id", &session)], "").await;
    let mut stream = stream.into_body();
    read_text_until(&mut stream, "id: ").await;
    b.server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    read_text_until(&mut stream, "notifications/tools/list_changed").await;

    // The question is asked on `b`'s stream; its answer is posted to `a`.
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask"}}"#;
    let mut asked = b.open("POST", &headers, call).await.into_body();
    let question = first_message(&mut asked).await;
    assert_eq!(question["method"], "elicitation/create");
    let reply = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    assert_eq!(a.send("POST", &headers, &reply.to_string()).await.status, 202);
    let rest = read_text_until(&mut asked, "\"id\":7").await;
    assert!(rest.contains("Decline"), "the handler on b got the answer posted to a: {rest}");
}

/// T25-21: a legacy session's tasks are its own: another session (with no principal to tell
/// them apart, the session is the context) neither reads nor lists them.
#[tokio::test]
async fn t25_21_a_sessions_tasks_are_invisible_to_another_session() {
    let endpoint = start(HttpOptions::default()).await;
    let (mine, theirs) = (endpoint.initialize(json!({})).await, endpoint.initialize(json!({})).await);
    let call = |session: &str, id: u32, method: &str, params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let session = session.to_owned();
        let endpoint = &endpoint;
        async move {
            endpoint
                .send("POST", &[("content-type", "application/json"), ("mcp-session-id", &session)], &body)
                .await
                .json()
        }
    };
    let created = call(&mine, 2, "tools/call", json!({"name": "job", "arguments": {}, "task": {}})).await;
    let task = created["result"]["task"]["taskId"].as_str().expect("a task").to_owned();
    assert_eq!(call(&mine, 3, "tasks/get", json!({"taskId": task})).await["result"]["taskId"], task.as_str());
    let foreign = call(&theirs, 3, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(foreign["error"]["code"], -32602, "another session's task is not found: {foreign}");
    let listed = call(&theirs, 4, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "nor listed");
    let own = call(&mine, 4, "tasks/list", json!({})).await;
    assert_eq!(own["result"]["tasks"].as_array().map(Vec::len), Some(1));
}

/// HTTP-01: one MCP endpoint path serves every method of both eras; other paths are 404.
/// HTTP-53: the SSE event ids of a session's streams are unique across them, each naming its
/// stream.
#[tokio::test]
async fn http_01_53_one_endpoint_path_and_event_ids_unique_across_a_sessions_streams() {
    let endpoint = start(HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let sse = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-session-id", session.as_str()),
    ];
    let mut ids = Vec::new();
    for id in 2..=3 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "slow", "_meta": {"progressToken": id}}});
        let streamed = endpoint.send("POST", &sse, &call.to_string()).await;
        ids.extend(streamed.body.lines().filter_map(|l| l.strip_prefix("id: ")).map(str::to_owned));
    }
    let streams: std::collections::BTreeSet<&str> =
        ids.iter().filter_map(|id| id.split('-').next()).collect();
    assert_eq!(streams.len(), 2, "each stream names itself: {ids:?}");
    let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no id twice in the session: {ids:?}");

    let modern = endpoint.modern("server/discover", None, json!({})).await;
    assert_eq!(modern.status, 200, "the same path serves 2026-07-28");
    let elsewhere = endpoint.url.replace("/mcp", "/other");
    let request = Request::builder()
        .method("POST")
        .uri(&elsewhere)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)))
        .unwrap();
    let response = tokio::time::timeout(WAIT, endpoint.client.request(request)).await.unwrap().unwrap();
    assert_eq!(response.status(), 404, "one endpoint path only");
}

/// A session id is a bearer of the session: none reaches the log at `INFO` (an eviction used to
/// be logged with the evicted session's id), while what happened to sessions is still logged.
#[tokio::test]
async fn no_session_id_reaches_the_info_log() {
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);

    let endpoint = start(HttpOptions { max_sessions: 2, ..HttpOptions::default() }).await;
    let mut sessions = Vec::new();
    for _ in 0..4 {
        sessions.push(endpoint.initialize(json!({})).await);
    }
    let last = &sessions[3];
    let with_session = [("mcp-session-id", last.as_str()), ("mcp-protocol-version", "2025-11-25")];
    assert_eq!(endpoint.send("DELETE", &with_session, "").await.status, 200);

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("evicting the least recently used session"), "the evictions are logged: {log}");
    for session in &sessions {
        assert!(!log.contains(session.as_str()), "session {session} in the log: {log}");
    }
}
