//! Streams and versions of Streamable HTTP on 127.0.0.1, against the real server, spoken with
//! a plain HTTP client (and, for the client's own duties, with ours): what a request without
//! `MCP-Protocol-Version` gets (HTTP-22, HTTP-43), the client's reconnection after the server's
//! `retry` (HTTP-46), what a GET stream carries (HTTP-51), one stream per message (HTTP-52),
//! and elicitation answers bound to the session and user that were asked (ELIC-18).

use modelctx_protocol::Method;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use modelctx::client::{Client, ClientOptions, EraMode};
use modelctx::server::{Principal, RequestContext, Server, ToolDef};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{Authenticator, Denial, HttpOptions, McpHttp, RequestHead};
use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::era::ServerVersions;
use modelctx_protocol::types::Implementation;
use serde_json::{Value, json};

use crate::common::WAIT;
use crate::common::http::{Answer, Endpoint, ask, messages, released, start_serving};

async fn slow(ctx: RequestContext) -> String {
    for step in 1..=2 {
        ctx.progress(f64::from(step), Some(2.0), None).await;
    }
    "done".into()
}

/// Answers at once, and tells of progress after its answer from work that goes on.
async fn lingering(ctx: RequestContext) -> String {
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.progress(1.0, None, Some("after the answer".into())).await;
    });
    "answered".into()
}

fn server(versions: ServerVersions) -> Server {
    Server::builder("streams-test", "1")
        .versions(versions)
        .tool(ToolDef::new("echo", || async { "echo" }))
        .tool(ToolDef::new("lingering", lingering))
        .tool(ToolDef::new("ask", ask))
        .tool(ToolDef::new("released", released))
        .tool(ToolDef::new("slow", slow))
        .build()
        .unwrap()
}

/// A server that serves 2025-06-18 and later only: no client without `MCP-Protocol-Version`.
fn from_2025_06_18() -> ServerVersions {
    ServerVersions::new([
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ])
}

/// Serves `server` with `options` on a loopback port.
async fn start(server: Server, options: HttpOptions) -> Endpoint {
    start_serving(server, options).await
}

impl Answer {
    /// The JSON-RPC error code of a JSON answer.
    fn code(&self) -> Value {
        self.json()["error"]["code"].clone()
    }
}

/// Whether `message` is a JSON-RPC response (a result or an error).
fn is_response(message: &Value) -> bool {
    message.get("result").is_some() || message.get("error").is_some()
}

/// The last SSE event id of `text`.
fn last_event_id(text: &str) -> Option<String> {
    text.lines().rev().find_map(|l| l.strip_prefix("id: ")).map(str::to_owned)
}

/// Reads a streamed body until its text so far holds `wanted`.
async fn read_until(body: &mut hyper::body::Incoming, text: &mut String, wanted: &str) {
    while !text.contains(wanted) {
        let frame = tokio::time::timeout(WAIT, body.frame()).await.expect("in time").unwrap().unwrap();
        text.push_str(std::str::from_utf8(&frame.into_data().unwrap_or_default()).unwrap());
    }
}

/// The rest of a streamed body, to its end.
async fn read_to_end(body: hyper::body::Incoming, text: &mut String) {
    let rest = tokio::time::timeout(WAIT, body.collect()).await.expect("the stream ends").unwrap().to_bytes();
    text.push_str(std::str::from_utf8(&rest).unwrap());
}

const SSE: &str = "application/json, text/event-stream";

impl Endpoint {
    /// Opens the session's standalone GET stream and reads its priming event.
    async fn get_stream(&self, session: &str) -> (hyper::body::Incoming, String) {
        let response =
            self.open("GET", &[("accept", "text/event-stream"), ("mcp-session-id", session)], "").await;
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let (mut body, mut text) = (response.into_body(), String::new());
        read_until(&mut body, &mut text, "\n\n").await;
        assert!(text.starts_with("id: "), "a priming event first: {text}");
        (body, text)
    }

    /// Starts a call in `session` answered on an SSE stream, and returns the stream.
    async fn call_streamed(&self, session: &str, id: u32, params: Value) -> hyper::body::Incoming {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let headers = [("content-type", "application/json"), ("accept", SSE), ("mcp-session-id", session)];
        let response = self.open("POST", &headers, &call.to_string()).await;
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        response.into_body()
    }

    /// Posts a client message (an answer) in `session`, with `extra` headers.
    async fn post_in(&self, session: &str, message: &Value, extra: &[(&str, &str)]) -> Answer {
        let mut headers = vec![("content-type", "application/json"), ("mcp-session-id", session)];
        headers.extend_from_slice(extra);
        self.send("POST", &headers, &message.to_string()).await
    }
}

/// The answer to the elicitation `question` with `action`.
fn reply(question: &Value, action: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": action, "content": {"name": "x"}}})
}

/// The first of `found` whose method is `method`.
fn find<'a>(found: &'a [Value], method: &str) -> &'a Value {
    found.iter().find(|m| m["method"] == method).unwrap_or_else(|| panic!("no {method} in {found:?}"))
}

/// HTTP-22: a server that does not support clients older than 2025-06-18 rejects a request
/// that omits `MCP-Protocol-Version`, per Server Validation (`400` + `-32020`); a dual-era
/// server (which does take 2025-03-26 clients, through `initialize`) does the same for
/// session-less requests — the MAY is not taken there. Inside a legacy session the version is
/// known from `initialize`, so the 2025-11-25 rules apply (2026-07-28 defers to them for those
/// revisions): the request is served at the negotiated version, and a 2025-03-26 session,
/// whose clients never send the header, is served as 2025-03-26.
#[tokio::test]
async fn http_22_a_request_without_the_version_header_is_refused_unless_its_session_names_the_version() {
    for versions in [from_2025_06_18(), ServerVersions::default()] {
        let endpoint = start(server(versions.clone()), HttpOptions::default()).await;
        let params = with_modern_meta(json!({"name": "echo"}), json!({}));
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
        let named =
            [("content-type", "application/json"), ("mcp-method", "tools/call"), ("mcp-name", "echo")];
        let headerless = endpoint.send("POST", &named, &body).await;
        assert_eq!(
            (headerless.status, headerless.code()),
            (400, json!(-32020)),
            "{versions:?}: {}",
            headerless.body
        );
        let with = [named.as_slice(), &[("mcp-protocol-version", "2026-07-28")]].concat();
        let served = endpoint.send("POST", &with, &body).await;
        assert_eq!(served.status, 200, "the same request with the header is served: {}", served.body);
        // Neither modern `_meta` nor a session: nothing names a version.
        let bare = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        let bare = endpoint.send("POST", &[("content-type", "application/json")], bare).await;
        assert_eq!((bare.status, bare.code()), (400, json!(-32020)), "{versions:?}: {}", bare.body);

        let session = endpoint.initialize(json!({})).await;
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}});
        let in_session = endpoint.post_in(&session, &call, &[]).await;
        assert_eq!(in_session.status, 200, "{}", in_session.body);
        assert_eq!(in_session.json()["result"]["content"][0]["text"], "echo");
    }
    // A 2025-03-26 client is not supported here: its `initialize` is answered with 2025-11-25.
    let endpoint = start(server(from_2025_06_18()), HttpOptions::default()).await;
    let (_, negotiated) = endpoint.initialize_at("2025-03-26", json!({}), &[]).await;
    assert_eq!(negotiated, "2025-11-25");
    // The dual-era server supports it: its session is 2025-03-26 and header-less requests in it
    // are served at that version.
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let (session, negotiated) = endpoint.initialize_at("2025-03-26", json!({}), &[]).await;
    assert_eq!(negotiated, "2025-03-26");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let served = endpoint.post_in(&session, &ping, &[]).await;
    assert_eq!((served.status, served.json()["result"].clone()), (200, json!({})), "{}", served.body);
}

/// HTTP-43: in a session, a request without `MCP-Protocol-Version` takes the version
/// negotiated at `initialize` (the "other way to identify the version"), not 2025-03-26 —
/// naming 2025-03-26 in a 2025-11-25 session is refused. An invalid or unsupported value is
/// `400`, on POST and on the session's GET and DELETE alike. A request with no session and no
/// header (nothing to tell the version by) is `400`, which is also what a 2025-03-26 request
/// without the session this server requires gets.
#[tokio::test]
async fn http_43_a_missing_version_is_the_sessions_and_an_invalid_or_unsupported_one_is_400() {
    let versions = ServerVersions::new([ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28]);
    let endpoint = start(server(versions), HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let version = |value: &'static str| [("mcp-protocol-version", value)];
    let served = endpoint.post_in(&session, &ping, &[]).await;
    assert_eq!(
        (served.status, served.json()["result"].clone()),
        (200, json!({})),
        "no header: {}",
        served.body
    );
    assert_eq!(endpoint.post_in(&session, &ping, &version("2025-11-25")).await.status, 200);
    for value in ["2025-03-26", "2025-06-18", "garbage", "2025-13-45", "2099-01-01"] {
        let refused = endpoint.post_in(&session, &ping, &version(value)).await;
        assert_eq!(refused.status, 400, "POST with {value}: {}", refused.body);
        let get =
            [("accept", "text/event-stream"), ("mcp-session-id", &session), ("mcp-protocol-version", value)];
        let refused = endpoint.send("GET", &get, "").await;
        assert_eq!(refused.status, 400, "GET with {value}: {}", refused.body);
        let delete = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", value)];
        assert_eq!(endpoint.send("DELETE", &delete, "").await.status, 400, "DELETE with {value}");
    }
    assert_eq!(endpoint.post_in(&session, &ping, &[]).await.status, 200, "a refused DELETE ends nothing");
    let (stream, _) = endpoint.get_stream(&session).await;
    drop(stream);
    let get = [
        ("accept", "text/event-stream"),
        ("mcp-session-id", &session),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let stream = endpoint.open("GET", &get, "").await;
    assert_eq!(stream.status(), 200, "the session's own version");
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    drop(stream);
    let none = endpoint.send("POST", &[("content-type", "application/json")], &ping.to_string()).await;
    assert_eq!(none.status, 400, "{}", none.body);
    let delete = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    assert_eq!(endpoint.send("DELETE", &delete, "").await.status, 200);
}

/// A request as the [`proxy`] passed it on.
struct Passed {
    method: String,
    last_event_id: Option<String>,
    /// The JSON-RPC method of the body.
    rpc: Option<String>,
    arrived: Instant,
    sent: Arc<Mutex<Sent>>,
}

/// When the proxy passed on the last frame of an answer, and the SSE text so far.
type Sent = (Option<Instant>, String);

type Log = Arc<Mutex<Vec<Passed>>>;

/// The reconnection delay the proxy sets: longer than the client's own default (1 s), so a
/// client that ignored it would reconnect too soon.
const RETRY_MS: u64 = 1800;

/// `server` behind a loopback proxy that logs each request and sets `retry: RETRY_MS` on the
/// server's SSE answers; with `cut`, it closes the first standalone GET stream right after
/// its priming event, as a server closing the connection to be polled.
async fn proxy(server: Server, cut: bool) -> (String, Log) {
    let mcp = McpHttp::new(server, HttpOptions::default());
    let log: Log = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (record, first_cut) = (log.clone(), Arc::new(AtomicBool::new(cut)));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (mcp, record, first_cut) = (mcp.clone(), record.clone(), first_cut.clone());
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let (mcp, record, first_cut) = (mcp.clone(), record.clone(), first_cut.clone());
                    async move {
                        let arrived = Instant::now();
                        let (parts, body) = request.into_parts();
                        let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                        let rpc = serde_json::from_slice::<Value>(&body)
                            .ok()
                            .and_then(|v| v["method"].as_str().map(str::to_owned));
                        let last_event_id =
                            parts.headers.get("last-event-id").map(|v| v.to_str().unwrap().to_owned());
                        let method = parts.method.to_string();
                        let response = mcp.handle(hyper::Request::from_parts(parts, Full::new(body))).await;
                        let sent = Arc::new(Mutex::new((None, String::new())));
                        let standalone = method == "GET" && last_event_id.is_none();
                        record.lock().unwrap().push(Passed {
                            method,
                            last_event_id,
                            rpc,
                            arrived,
                            sent: sent.clone(),
                        });
                        let (parts, mut body) = response.into_parts();
                        if parts.headers.get("content-type").is_none_or(|v| v != "text/event-stream") {
                            return Ok::<_, std::convert::Infallible>(hyper::Response::from_parts(
                                parts, body,
                            ));
                        }
                        let retry = format!("retry: {RETRY_MS}\n");
                        if standalone && first_cut.swap(false, Ordering::SeqCst) {
                            let priming = body.frame().await.unwrap().unwrap().into_data().unwrap();
                            let priming = String::from_utf8(priming.to_vec())
                                .unwrap()
                                .replace("data:", &format!("{retry}data:"));
                            *sent.lock().unwrap() = (Some(Instant::now()), priming.clone());
                            let cut = Full::new(Bytes::from(priming)).boxed_unsync();
                            return Ok(hyper::Response::from_parts(parts, cut));
                        }
                        let body = body.map_frame(move |frame| {
                            frame.map_data(|data| {
                                let text = String::from_utf8_lossy(&data).replace("retry: 1000\n", &retry);
                                let mut sent = sent.lock().unwrap();
                                sent.0 = Some(Instant::now());
                                sent.1.push_str(&text);
                                Bytes::from(text)
                            })
                        });
                        Ok(hyper::Response::from_parts(parts, body.boxed_unsync()))
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (url, log)
}

fn legacy_client() -> ClientOptions {
    ClientOptions { mode: EraMode::Legacy, ..ClientOptions::new(Implementation::new("streams-client", "1")) }
}

/// HTTP-46: when the server ends a POST's stream before its answer, having sent an event id
/// and `retry`, the client waits at least that many milliseconds, then reconnects with a GET
/// carrying the last event id it saw, and gets its answer there.
#[tokio::test]
async fn http_46_a_client_waits_the_servers_retry_before_resuming_its_answer_stream() {
    let (url, log) = proxy(server(ServerVersions::default()), false).await;
    let client = Client::connect_http(&url, Default::default(), legacy_client()).await.unwrap();
    let result = client.call_tool("released", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "after the break");
    let log = log.lock().unwrap();
    let call = log.iter().find(|p| p.rpc.as_deref() == Some("tools/call")).expect("the call");
    let (ended, text) = call.sent.lock().unwrap().clone();
    assert!(text.contains(&format!("retry: {RETRY_MS}")), "{text}");
    assert!(messages(&text).iter().all(|m| !is_response(m)), "the stream ended without the answer: {text}");
    let resume = log.iter().find(|p| p.method == "GET" && p.last_event_id.is_some()).expect("a resuming GET");
    assert_eq!(resume.last_event_id, last_event_id(&text), "the last event id the stream carried");
    let waited = resume.arrived - ended.expect("the stream's last frame");
    assert!(
        waited >= Duration::from_millis(RETRY_MS),
        "reconnected after {waited:?}, before the retry delay"
    );
}

/// HTTP-46: when the server closes the session's GET stream (its connection, not the session),
/// having sent an event id and `retry`, the client polls: it waits at least `retry`, opens the
/// stream again with `Last-Event-ID`, and hears the server's later messages on it.
#[tokio::test]
async fn http_46_a_client_polls_its_session_stream_after_the_servers_retry() {
    let server = server(ServerVersions::default());
    let (url, log) = proxy(server.clone(), true).await;
    let client = Client::connect_http(&url, Default::default(), legacy_client()).await.unwrap();
    let mut notes = client.notifications();
    // The GETs so far: their `Last-Event-ID`, arrival, and answer.
    let gets = || {
        let log = log.lock().unwrap();
        let gets = log.iter().filter(|p| p.method == "GET");
        gets.map(|p| (p.last_event_id.clone(), p.arrived, p.sent.lock().unwrap().clone())).collect::<Vec<_>>()
    };
    let deadline = Instant::now() + WAIT;
    while gets().len() < 2 {
        assert!(Instant::now() < deadline, "the client never opened its session stream again: {:?}", gets());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let gets = gets();
    let (first, again) = (&gets[0], &gets[1]);
    let (ended, text) = &first.2;
    assert_eq!(first.0, None);
    assert!(text.contains(&format!("retry: {RETRY_MS}")), "{text}");
    assert_eq!(again.0, last_event_id(text), "polled with the priming event's id");
    let waited = again.1 - ended.expect("the cut stream's frame");
    assert!(waited >= Duration::from_millis(RETRY_MS), "polled after {waited:?}, before the retry delay");
    server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    loop {
        let note =
            tokio::time::timeout(WAIT, notes.recv()).await.expect("heard on the polled stream").unwrap();
        if note.method == Method::ToolListChanged {
            break;
        }
    }
}

/// HTTP-51: the session's GET stream carries no JSON-RPC response while requests are answered
/// on their own streams — a JSON answer, a streamed one with a question, one whose stream the
/// server released — nor their questions and progress; only a GET that resumes a request's
/// stream (`Last-Event-ID`) carries that request's response.
#[tokio::test]
async fn http_51_the_get_stream_carries_no_response_unless_it_resumes_a_request_stream() {
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let session = endpoint.initialize(json!({"elicitation": {}})).await;
    let (mut standalone, mut heard) = endpoint.get_stream(&session).await;

    let mut asking = endpoint.call_streamed(&session, 7, json!({"name": "ask"})).await;
    let mut asked = String::new();
    read_until(&mut asking, &mut asked, "elicitation/create").await;
    let echo = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "echo"}});
    assert_eq!(endpoint.post_in(&session, &echo, &[]).await.json()["id"], 8);
    let mut cut = String::new();
    let params = json!({"name": "released", "_meta": {"progressToken": "r"}});
    read_to_end(endpoint.call_streamed(&session, 9, params).await, &mut cut).await;
    assert!(messages(&cut).iter().all(|m| !is_response(m)), "{cut}");
    let question = find(&messages(&asked), "elicitation/create").clone();
    assert_eq!(endpoint.post_in(&session, &reply(&question, "decline"), &[]).await.status, 202);
    read_to_end(asking, &mut asked).await;
    assert!(messages(&asked).iter().any(|m| m["id"] == 7 && is_response(m)), "{asked}");

    let last = last_event_id(&cut).unwrap();
    let resume = [("accept", "text/event-stream"), ("mcp-session-id", &session), ("last-event-id", &last)];
    let resumed = endpoint.send("GET", &resume, "").await;
    assert!(
        messages(&resumed.body).iter().any(|m| m["id"] == 9 && is_response(m)),
        "resuming: {}",
        resumed.body
    );

    // Everything above happened before this change; the stream is in order.
    endpoint.server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    read_until(&mut standalone, &mut heard, "notifications/tools/list_changed").await;
    let heard = messages(&heard);
    assert!(heard.iter().all(|m| !is_response(m)), "a response on the GET stream: {heard:?}");
    assert!(heard.iter().all(|m| m.get("id").is_none()), "nothing about the requests in flight: {heard:?}");
    assert_eq!(heard.len(), 1, "{heard:?}");
}

#[tokio::test]
async fn what_a_request_sends_after_its_answer_goes_to_the_sessions_get_stream() {
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let (mut standalone, mut heard) = endpoint.get_stream(&session).await;
    let params = json!({"name": "lingering", "_meta": {"progressToken": "p"}});
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    // Answered in its first poll with nothing sent first: plain JSON, though SSE was accepted.
    let answer = endpoint.post_in(&session, &call, &[("accept", SSE)]).await;
    assert_eq!(answer.json()["result"]["content"][0]["text"], "answered");
    read_until(&mut standalone, &mut heard, "after the answer").await;
    let told = find(&messages(&heard), "notifications/progress").clone();
    assert_eq!(told["params"]["progressToken"], "p");
}

/// HTTP-52: a session with two GET streams open never gets a message on both. The server takes
/// the newer one as the session's stream and ends the older (a server may close a GET stream
/// at any time), so a change is told once, on the newer.
#[tokio::test]
async fn http_52_two_get_streams_of_a_session_never_carry_the_same_message() {
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let session = endpoint.initialize(json!({})).await;
    let (older, mut heard_older) = endpoint.get_stream(&session).await;
    let (mut newer, mut heard_newer) = endpoint.get_stream(&session).await;
    read_to_end(older, &mut heard_older).await;
    endpoint.server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    read_until(&mut newer, &mut heard_newer, "notifications/tools/list_changed").await;
    let told = |text: &str| text.matches("notifications/tools/list_changed").count();
    assert_eq!(
        (told(&heard_older), told(&heard_newer)),
        (0, 1),
        "older: {heard_older}\nnewer: {heard_newer}"
    );
}

/// HTTP-52: with a GET stream and a POST stream open, each message goes on one of them: the
/// request's question, progress and response on its POST stream, a list change on the GET
/// stream — none on both.
#[tokio::test]
async fn http_52_a_get_and_a_post_stream_never_carry_the_same_message() {
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let session = endpoint.initialize(json!({"elicitation": {}})).await;
    let (mut standalone, mut heard) = endpoint.get_stream(&session).await;
    let mut asking = endpoint.call_streamed(&session, 7, json!({"name": "ask"})).await;
    let mut asked = String::new();
    read_until(&mut asking, &mut asked, "elicitation/create").await;
    let mut progressed = String::new();
    let params = json!({"name": "slow", "_meta": {"progressToken": "s"}});
    read_to_end(endpoint.call_streamed(&session, 8, params).await, &mut progressed).await;

    endpoint.server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    read_until(&mut standalone, &mut heard, "notifications/tools/list_changed").await;
    let question = find(&messages(&asked), "elicitation/create").clone();
    assert_eq!(endpoint.post_in(&session, &reply(&question, "decline"), &[]).await.status, 202);
    read_to_end(asking, &mut asked).await;

    let (heard, asked, progressed) = (messages(&heard), messages(&asked), messages(&progressed));
    assert_eq!(
        heard.iter().map(|m| m["method"].clone()).collect::<Vec<_>>(),
        [json!("notifications/tools/list_changed")]
    );
    assert!(asked.iter().all(|m| m["method"] != "notifications/tools/list_changed"), "{asked:?}");
    assert!(
        asked.iter().any(|m| m["id"] == 7 && m["result"]["content"][0]["text"] == "Decline"),
        "{asked:?}"
    );
    assert!(progressed.iter().all(|m| m["method"] != "notifications/tools/list_changed"), "{progressed:?}");
    assert_eq!(
        progressed.iter().filter(|m| m["method"] == "notifications/progress").count(),
        2,
        "{progressed:?}"
    );
}

/// ELIC-18 (2025-11-25, HTTP): an elicitation belongs to the session that was asked. While
/// session A's question waits, session B posts an answer under its JSON-RPC id — before B is
/// asked anything, and again after B's own question (the same id) was answered by B: neither
/// is taken for A's, and A's call completes with A's own answer.
#[tokio::test]
async fn elic_18_an_answer_from_another_session_is_not_taken_for_this_sessions_question() {
    let endpoint = start(server(ServerVersions::default()), HttpOptions::default()).await;
    let (a, b) = (
        endpoint.initialize(json!({"elicitation": {}})).await,
        endpoint.initialize(json!({"elicitation": {}})).await,
    );
    let (mut asking_a, mut asked_a) =
        (endpoint.call_streamed(&a, 7, json!({"name": "ask"})).await, String::new());
    read_until(&mut asking_a, &mut asked_a, "elicitation/create").await;
    let question_a = find(&messages(&asked_a), "elicitation/create").clone();
    assert_eq!(endpoint.post_in(&b, &reply(&question_a, "accept"), &[]).await.status, 202);

    let (mut asking_b, mut asked_b) =
        (endpoint.call_streamed(&b, 7, json!({"name": "ask"})).await, String::new());
    read_until(&mut asking_b, &mut asked_b, "elicitation/create").await;
    let question_b = find(&messages(&asked_b), "elicitation/create").clone();
    assert_eq!(question_a["id"], question_b["id"], "the same JSON-RPC id in both sessions");
    assert_eq!(endpoint.post_in(&b, &reply(&question_b, "accept"), &[]).await.status, 202);
    read_to_end(asking_b, &mut asked_b).await;
    assert!(
        messages(&asked_b).iter().any(|m| m["id"] == 7 && m["result"]["content"][0]["text"] == "Accept"),
        "B's answer is B's: {asked_b}"
    );
    assert_eq!(endpoint.post_in(&b, &reply(&question_b, "accept"), &[]).await.status, 202);

    assert_eq!(endpoint.post_in(&a, &reply(&question_a, "decline"), &[]).await.status, 202);
    read_to_end(asking_a, &mut asked_a).await;
    let answered: Vec<Value> = messages(&asked_a).into_iter().filter(|m| m["id"] == 7).collect();
    assert_eq!(answered.len(), 1, "{asked_a}");
    assert_eq!(answered[0]["result"]["content"][0]["text"], "Decline", "A's own answer, not B's");
}

/// Verifies `Authorization: Bearer <name>` into the principal `<name>`.
#[derive(Debug)]
pub(crate) struct Names;

impl Authenticator for Names {
    fn metadata_paths(&self) -> Vec<String> {
        vec!["/.well-known/oauth-protected-resource/mcp".into()]
    }

    fn metadata(&self) -> Value {
        json!({"resource": "http://127.0.0.1/mcp"})
    }

    fn authenticate<'a>(&'a self, request: RequestHead<'a>) -> BoxFuture<'a, Result<Principal, Denial>> {
        let name = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let verified = name
            .map(|name| Principal::new(Some("https://as.test".into()), name, vec![]))
            .ok_or_else(|| Denial {
                status: 401,
                challenge: "Bearer".into(),
                error: "invalid_token".into(),
                description: "no token".into(),
                dpop_nonce: None,
            });
        Box::pin(async move { verified })
    }

    fn insufficient_scope(&self, _: &[String]) -> Denial {
        Denial {
            status: 403,
            challenge: "Bearer".into(),
            error: "insufficient_scope".into(),
            description: String::new(),
            dpop_nonce: None,
        }
    }
}

const ALICE: (&str, &str) = ("authorization", "Bearer alice");
const BOB: (&str, &str) = ("authorization", "Bearer bob");

/// ELIC-18 (2025-11-25, HTTP, with authorization): an elicitation is bound to the user asked,
/// not to the session id alone: another user who posts an answer under alice's session id is
/// refused (`404`, no such session of theirs), and alice's own answer completes her call.
#[tokio::test]
async fn elic_18_another_user_cannot_answer_through_the_session_id() {
    let options = HttpOptions { authenticator: Some(Arc::new(Names)), ..HttpOptions::default() };
    let endpoint = start(server(ServerVersions::default()), options).await;
    let (session, _) = endpoint.initialize_at("2025-11-25", json!({"elicitation": {}}), &[ALICE]).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask"}});
    let headers =
        [("content-type", "application/json"), ("accept", SSE), ("mcp-session-id", &session), ALICE];
    let mut asking = endpoint.open("POST", &headers, &call.to_string()).await.into_body();
    let mut asked = String::new();
    read_until(&mut asking, &mut asked, "elicitation/create").await;
    let question = find(&messages(&asked), "elicitation/create").clone();

    let hijack = endpoint.post_in(&session, &reply(&question, "accept"), &[BOB]).await;
    assert_eq!(hijack.status, 404, "{}", hijack.body);
    assert_eq!(endpoint.post_in(&session, &reply(&question, "decline"), &[ALICE]).await.status, 202);
    read_to_end(asking, &mut asked).await;
    let answered: Vec<Value> = messages(&asked).into_iter().filter(|m| m["id"] == 7).collect();
    assert_eq!(answered.len(), 1, "{asked}");
    assert_eq!(answered[0]["result"]["content"][0]["text"], "Decline", "alice's answer, not bob's");
}

/// ELIC-18 (2026-07-28, MRTR, with authorization): the answers come back in a retry carrying
/// the sealed `requestState`, which is bound to the user it was issued to: bob's retry with
/// alice's state and an answer is refused (`-32602`), alice's completes her call.
#[tokio::test]
async fn elic_18_a_request_state_answers_only_for_the_user_who_was_asked() {
    let options = HttpOptions { authenticator: Some(Arc::new(Names)), ..HttpOptions::default() };
    let endpoint = start(server(ServerVersions::default()), options).await;
    let call = |user: (&'static str, &'static str), params: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": with_modern_meta(params, json!({"elicitation": {}}))});
        let endpoint = &endpoint;
        async move {
            let headers = [
                ("content-type", "application/json"),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "ask"),
                user,
            ];
            endpoint.send("POST", &headers, &body.to_string()).await.json()
        }
    };
    let first = call(ALICE, json!({"name": "ask"})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"]["inputRequests"]["elicit-0"].is_object(), "{first}");
    let retry = json!({"name": "ask", "requestState": first["result"]["requestState"],
        "inputResponses": {"elicit-0": {"action": "accept", "content": {"name": "x"}}}});
    let foreign = call(BOB, retry.clone()).await;
    assert_eq!(foreign["error"]["code"], -32602, "bob's retry with alice's state: {foreign}");
    let own = call(ALICE, retry).await;
    assert_eq!(own["result"]["resultType"], "complete", "{own}");
    assert_eq!(own["result"]["content"][0]["text"], "Accept");
}
