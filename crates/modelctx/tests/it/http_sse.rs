//! The deprecated HTTP+SSE transport of 2024-11-05 (CHECKLIST HTTP-63) on 127.0.0.1, beside
//! `/mcp` in `serve_http_with_sse`, spoken with a real HTTP client: the `endpoint` event, messages by
//! POST and answers on the stream, server-to-client requests, the guard, and the end of a
//! session with its stream.

#![cfg(feature = "http-sse")]

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use modelctx::server::{Args, InputError, Limits, RequestContext, Server, ServerOptions, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http, serve_http_with_sse};
use modelctx::transport::http_sse::McpSse;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

const WAIT: Duration = Duration::from_secs(10);

#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    message: String,
}

async fn ask(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.elicit(crate::common::name_form()).await?;
    Ok(format!("{:?}", answer.action))
}

fn server() -> Server {
    server_with(Limits::default())
}

fn server_with(limits: Limits) -> Server {
    Server::builder("http-sse-test", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .tool(ToolDef::new("echo", |Args(args): Args<EchoArgs>| async move { args.message }))
        .tool(ToolDef::new("ask", ask))
        .build()
        .unwrap()
}

struct Endpoint {
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
    stop: Option<oneshot::Sender<()>>,
}

async fn start(options: HttpOptions) -> Endpoint {
    start_serving(server(), options).await
}

async fn start_serving(server: Server, options: HttpOptions) -> Endpoint {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http_with_sse(server, listener, options, async move {
        let _ = stopped.await;
    }));
    Endpoint { base, client: Client::builder(TokioExecutor::new()).build_http(), stop: Some(stop) }
}

/// An answer to a POST.
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// An open SSE stream, read event by event.
struct Stream {
    body: Incoming,
    buffer: String,
}

impl Stream {
    /// The next event as (event type, data); `None` once the stream has ended.
    async fn next(&mut self) -> Option<(String, String)> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    event.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim_start().to_owned())
                };
                return Some((field("event:").unwrap_or_else(|| "message".into()), field("data:")?));
            }
            let frame = tokio::time::timeout(WAIT, self.body.frame()).await.expect("an event in time")?;
            let data = frame.unwrap().into_data().unwrap_or_default();
            self.buffer.push_str(std::str::from_utf8(&data).unwrap());
        }
    }

    /// The next `message` event's JSON.
    async fn message(&mut self) -> Value {
        let (event, data) = self.next().await.expect("a message");
        assert_eq!(event, "message", "{data}");
        serde_json::from_str(&data).unwrap()
    }
}

impl Endpoint {
    async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> hyper::Response<Incoming> {
        let mut request = Request::builder().method(method).uri(format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(Bytes::from(body.to_owned()))).unwrap();
        tokio::time::timeout(WAIT, self.client.request(request)).await.unwrap().unwrap()
    }

    async fn post(&self, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let response = self.request("POST", path, headers, body).await;
        let status = response.status().as_u16();
        let body =
            tokio::time::timeout(WAIT, response.into_body().collect()).await.unwrap().unwrap().to_bytes();
        Answer { status, body: String::from_utf8(body.to_vec()).unwrap() }
    }

    async fn post_json(&self, path: &str, message: Value) -> Answer {
        self.post(path, &[("content-type", "application/json")], &message.to_string()).await
    }

    /// Opens `/sse`; returns the stream and the POST URI of its `endpoint` event.
    async fn open(&self) -> (Stream, String) {
        let response = self.request("GET", "/sse", &[("accept", "text/event-stream")], "").await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let mut stream = Stream { body: response.into_body(), buffer: String::new() };
        let (event, data) = stream.next().await.expect("the endpoint event");
        assert_eq!(event, "endpoint", "HTTP-63: the first event names the POST URI");
        (stream, data)
    }

    /// Opens a session and initializes it at `version`, declaring `capabilities`.
    async fn initialized(&self, version: &str, capabilities: Value) -> (Stream, String) {
        let (mut stream, uri) = self.open().await;
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": capabilities,
            "clientInfo": {"name": "old-client", "version": "1"}}});
        let posted = self.post_json(&uri, init).await;
        assert_eq!((posted.status, posted.body.as_str()), (202, ""), "the answer travels on the stream");
        let answer = stream.message().await;
        assert_eq!(answer["id"], 1, "{answer}");
        assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
        assert_eq!(answer["result"]["serverInfo"]["name"], "http-sse-test");
        let note =
            self.post_json(&uri, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        assert_eq!(note.status, 202);
        (stream, uri)
    }
}

#[tokio::test]
async fn http_63_the_endpoint_event_then_every_answer_on_the_stream() {
    let endpoint = start(HttpOptions::default()).await;
    let (_first, first_uri) = endpoint.open().await;
    let (mut stream, uri) = endpoint.initialized("2024-11-05", json!({})).await;
    assert!(uri.starts_with("/messages?sessionId="), "{uri}");
    assert_ne!(uri, first_uri, "one POST URI per connection");

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "over SSE"}}});
    assert_eq!(endpoint.post_json(&uri, call).await.status, 202);
    let answer = stream.message().await;
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["content"][0]["text"], "over SSE", "{answer}");

    // Errors of the protocol travel on the stream too, as on stdio.
    let unknown = json!({"jsonrpc": "2.0", "id": 3, "method": "no/such"});
    assert_eq!(endpoint.post_json(&uri, unknown).await.status, 202);
    let error = stream.message().await;
    assert_eq!((error["id"].clone(), error["error"]["code"].clone()), (json!(3), json!(-32601)));

    // A pretty-printed body is still one message.
    let pretty = serde_json::to_string_pretty(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"})).unwrap();
    assert_eq!(endpoint.post(&uri, &[("content-type", "application/json")], &pretty).await.status, 202);
    assert_eq!(stream.message().await, json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
}

#[tokio::test]
async fn server_to_client_requests_travel_on_the_stream_and_answers_by_post() {
    let endpoint = start(HttpOptions::default()).await;
    let (mut stream, uri) = endpoint.initialized("2025-11-25", json!({"elicitation": {}})).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask"}});
    assert_eq!(endpoint.post_json(&uri, call).await.status, 202);
    let question = stream.message().await;
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let reply = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    assert_eq!(endpoint.post_json(&uri, reply).await.status, 202);
    let answer = stream.message().await;
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["content"][0]["text"], "Decline", "{answer}");
}

/// HTTP+SSE sessions share the endpoint's request bound: with room for one request and no
/// queue, a second session's call waits (held by its session, not refused) while the first
/// session's call runs, and runs once it ends. Each session used to get a bound of its own
/// (64 requests), so many sessions together were unbounded (hardening issue).
#[tokio::test]
async fn sessions_share_the_endpoints_request_bound() {
    let limits = Limits { max_in_flight: 1, max_queued: 0, ..Limits::default() };
    let endpoint = start_serving(server_with(limits), HttpOptions::default()).await;
    let (mut first, first_uri) = endpoint.initialized("2025-11-25", json!({"elicitation": {}})).await;
    let (mut second, second_uri) = endpoint.initialized("2025-11-25", json!({})).await;
    let held = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ask"}});
    assert_eq!(endpoint.post_json(&first_uri, held).await.status, 202);
    let question = first.message().await;
    assert_eq!(question["method"], "elicitation/create", "the first call runs and waits: {question}");
    let echo = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"}}});
    assert_eq!(endpoint.post_json(&second_uri, echo).await.status, 202);
    let waited = tokio::time::timeout(Duration::from_millis(100), second.message()).await;
    assert!(waited.is_err(), "the second session's call waits for the turn: {waited:?}");

    let reply = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}});
    assert_eq!(endpoint.post_json(&first_uri, reply).await.status, 202);
    assert_eq!(first.message().await["id"], 7);
    let answer = second.message().await;
    assert_eq!(answer["id"], 8, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "hi", "run once the turn is free: {answer}");
}

#[tokio::test]
async fn posts_are_refused_with_their_statuses() {
    let endpoint = start(HttpOptions { max_body_bytes: 256, ..HttpOptions::default() }).await;
    let (_stream, uri) = endpoint.open().await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});

    let unknown = endpoint.post_json("/messages?sessionId=no-such-session", ping.clone()).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["code"], -32600);
    assert_eq!(endpoint.post_json("/messages", ping.clone()).await.status, 400, "no sessionId");

    let bad = endpoint.post(&uri, &[("content-type", "application/json")], "{not json").await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"]["code"], -32700, "a JSON-RPC error body: {}", bad.body);
    let not_a_message = endpoint.post(&uri, &[("content-type", "application/json")], "[]").await;
    assert_eq!(not_a_message.status, 400);
    assert!(not_a_message.json()["error"]["code"].is_i64());

    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#, "a".repeat(300));
    assert_eq!(endpoint.post(&uri, &[("content-type", "application/json")], &big).await.status, 413);

    assert_eq!(endpoint.request("GET", "/messages", &[], "").await.status(), 405);
    assert_eq!(endpoint.request("POST", "/sse", &[], "").await.status(), 405);
    // The session survived every refusal.
    assert_eq!(endpoint.post_json(&uri, ping).await.status, 202);
}

#[tokio::test]
async fn http_03_a_foreign_origin_or_host_is_403() {
    let endpoint = start(HttpOptions::default()).await;
    let evil = [("origin", "https://evil.example")];
    let refused = endpoint.request("GET", "/sse", &evil, "").await;
    assert_eq!(refused.status(), 403);
    assert_eq!(endpoint.request("GET", "/sse", &[("host", "evil.example")], "").await.status(), 403);
    let (_stream, uri) = endpoint.open().await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    assert_eq!(endpoint.post(&uri, &evil, &ping).await.status, 403);
    let local = [("origin", "http://localhost:5173")];
    assert_eq!(endpoint.post(&uri, &local, &ping).await.status, 202, "loopback origins are allowed");
}

#[tokio::test]
async fn a_session_is_gone_once_its_stream_closes() {
    let endpoint = start(HttpOptions::default()).await;
    let (stream, uri) = endpoint.initialized("2024-11-05", json!({})).await;
    drop(stream);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let status = endpoint.post_json(&uri, ping.clone()).await.status;
        if status == 404 {
            break;
        }
        assert_eq!(status, 202);
        assert!(tokio::time::Instant::now() < deadline, "the session outlived its stream");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn shutdown_ends_the_streams() {
    let mut endpoint = start(HttpOptions::default()).await;
    let (mut stream, _uri) = endpoint.initialized("2024-11-05", json!({})).await;
    let _ = endpoint.stop.take().unwrap().send(());
    assert!(stream.next().await.is_none(), "the stream ends at shutdown");
}

#[tokio::test]
async fn the_service_names_its_messages_path_and_forgets_a_dropped_stream() {
    let service = McpSse::with_messages_path(server(), HttpOptions::default(), "/legacy/messages");
    let get = Request::get("/legacy/sse").body(Full::new(Bytes::new())).unwrap();
    let response = service.handle(get).await;
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let frame = tokio::time::timeout(WAIT, body.frame()).await.unwrap().unwrap().unwrap();
    let text = String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap();
    assert!(text.starts_with("event: endpoint\ndata: /legacy/messages?sessionId="), "{text}");
    assert_eq!(service.session_count(), 1);
    drop(body);
    assert_eq!(service.session_count(), 0, "dropping the stream ends the session");
    let delete = Request::delete("/legacy/sse").body(Full::new(Bytes::new())).unwrap();
    assert_eq!(service.handle(delete).await.status(), 405);
}

/// The feature only adds: `serve_http` serves `/mcp` alone whatever features are on; the old
/// transport is there only when asked for with `serve_http_with_sse`.
#[tokio::test]
async fn serve_http_alone_never_serves_the_old_transport() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server(), listener, HttpOptions::default(), async move {
        let _ = stopped.await;
    }));
    let endpoint =
        Endpoint { base, client: Client::builder(TokioExecutor::new()).build_http(), stop: Some(stop) };
    let response = endpoint.request("GET", "/sse", &[("accept", "text/event-stream")], "").await;
    assert_eq!(response.status(), 404);
    let posted = endpoint
        .post_json("/messages?sessionId=x", json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(posted.status, 404);
}

/// At the session bound, a new stream ends the session whose client posted least recently
/// rather than being refused: streams opened and left silent no longer lock every new client
/// out (1,024 of them gave everyone 503).
#[tokio::test]
async fn at_the_bound_a_new_stream_ends_the_least_recently_used_session() {
    let endpoint = start(HttpOptions { max_sessions: 2, ..HttpOptions::default() }).await;
    let (mut silent, silent_uri) = endpoint.open().await;
    let (mut active, active_uri) = endpoint.initialized("2024-11-05", json!({})).await;
    let (_newest, _) = endpoint.open().await;
    assert_eq!(silent.next().await, None, "the silent session's stream ended");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(endpoint.post_json(&silent_uri, ping.clone()).await.status, 404);
    assert_eq!(endpoint.post_json(&active_uri, ping).await.status, 202, "the used session stays");
    assert_eq!(active.message().await["id"], 2);
}
