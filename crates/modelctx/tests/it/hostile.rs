//! What a hostile or broken peer sends must never stop, starve or exhaust a server: each test
//! is one way a peer tried to, over the real newline framing on a byte stream.

use crate::common::within;
use modelctx::server::{Server, ToolDef};
use modelctx::transport::serve_connection;
use modelctx_protocol::types::Implementation;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// A server on one end of a byte stream; the test holds the other end.
fn serve()
-> (tokio::io::WriteHalf<DuplexStream>, tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>) {
    let server = Server::builder("hostile", "1")
        .tool(ToolDef::new("echo", || async { "still here" }))
        .build()
        .unwrap();
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(serve_connection(server, read, write, std::future::pending()));
    let (read, write) = tokio::io::split(ours);
    (write, BufReader::new(read).lines())
}

fn modern_call(id: u64) -> Vec<u8> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "echo", "_meta": meta}});
    format!("{request}\n").into_bytes()
}

/// A line that is not UTF-8 is a parse error for that line alone (it used to end the
/// connection, and `modelctx serve` with it, losing every later request).
#[tokio::test]
async fn a_line_that_is_not_utf8_is_answered_and_the_stream_goes_on() {
    let (mut to_server, mut from_server) = serve();
    let mut bad = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"".to_vec();
    bad.extend_from_slice(b"\xff\xfe\"}\n");
    to_server.write_all(&bad).await.unwrap();
    // A lone surrogate escape, and CRLF framing, are no more fatal.
    to_server
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":{\"s\":\"\\ud800\"}}\r\n")
        .await
        .unwrap();
    to_server.write_all(&modern_call(3)).await.unwrap();
    let mut answers = Vec::new();
    for _ in 0..3 {
        let line = within(from_server.next_line()).await.unwrap().expect("an answer per line");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert_eq!(answers[0]["error"]["code"], -32700, "{}", answers[0]);
    assert!(answers[0]["error"]["message"].as_str().unwrap().contains("UTF-8"), "{}", answers[0]);
    assert!(answers[1].get("error").is_some(), "{}", answers[1]);
    assert_eq!(answers[2]["id"], 3);
    assert_eq!(answers[2]["result"]["content"][0]["text"], "still here");
}

/// Serves a server over HTTP on loopback with `options`; returns its address.
async fn serve_http_with(options: modelctx::transport::http::HttpOptions) -> std::net::SocketAddr {
    let server = Server::builder("hostile", "1")
        .tool(ToolDef::new("echo", || async { "still here" }))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(modelctx::transport::http::serve_http(server, listener, options, std::future::pending()));
    address
}

/// The head of a `POST /mcp` of a 2026-07-28 `tools/call echo` whose body is `length` bytes.
fn post_head(address: std::net::SocketAddr, length: usize) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {length}\r\n\r\n"
    )
}

/// Sends one whole `tools/call echo` on `stream` and reads its status line.
async fn call_over(stream: &mut tokio::net::TcpStream, address: std::net::SocketAddr) -> String {
    let body = modern_call(1);
    let body = &body[..body.len() - 1];
    stream.write_all(post_head(address, body.len()).as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    status_line(stream).await
}

async fn status_line(stream: &mut tokio::net::TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).await.unwrap();
    line.trim_end().to_owned()
}

/// A body that never finishes arriving is answered 408 once `body_read_timeout` passes (it
/// used to hold the connection and its request forever).
#[tokio::test]
async fn a_body_that_never_arrives_is_answered_408() {
    let options = modelctx::transport::http::HttpOptions {
        body_read_timeout: std::time::Duration::from_millis(200),
        ..Default::default()
    };
    let address = serve_http_with(options).await;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(post_head(address, 100).as_bytes()).await.unwrap();
    stream.write_all(b"{\"jsonrpc\":").await.unwrap();
    let status = within(status_line(&mut stream)).await;
    assert_eq!(status, "HTTP/1.1 408 Request Timeout");
}

/// The bodies being read at once are bounded in bytes (`max_reading_bytes`): a body that finds
/// the budget held by others is answered 503 at once, and served once they are gone (each
/// connection × HTTP/2 stream could hold 4 MiB for 30 s before).
#[tokio::test]
async fn bodies_being_read_are_bounded_in_bytes() {
    let options = modelctx::transport::http::HttpOptions {
        max_reading_bytes: 1000,
        max_body_bytes: 1000,
        ..Default::default()
    };
    let address = serve_http_with(options).await;
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(post_head(address, 2000).as_bytes()).await.unwrap();
    slow.write_all(&[b' '; 900]).await.unwrap();
    tokio::time::sleep(crate::common::BRIEF).await;
    let mut other = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(within(call_over(&mut other, address)).await, "HTTP/1.1 503 Service Unavailable");
    drop(slow);
    tokio::time::sleep(crate::common::BRIEF).await;
    let mut again = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(within(call_over(&mut again, address)).await, "HTTP/1.1 200 OK");
}

/// At `max_connections` the listener stops accepting: a further connection is served only
/// once an earlier one closes (there used to be no bound at all).
#[tokio::test]
async fn connections_past_the_bound_wait_for_a_place() {
    let options = modelctx::transport::http::HttpOptions { max_connections: 2, ..Default::default() };
    let address = serve_http_with(options).await;
    let mut first = tokio::net::TcpStream::connect(address).await.unwrap();
    let mut second = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(within(call_over(&mut first, address)).await, "HTTP/1.1 200 OK");
    assert_eq!(within(call_over(&mut second, address)).await, "HTTP/1.1 200 OK");
    let mut third = tokio::net::TcpStream::connect(address).await.unwrap();
    let waiting =
        tokio::time::timeout(std::time::Duration::from_millis(300), call_over(&mut third, address)).await;
    assert!(waiting.is_err(), "a third connection was served past the bound of two");
    drop(first);
    let mut reader = BufReader::new(&mut third);
    let mut line = String::new();
    within(reader.read_line(&mut line)).await.unwrap();
    assert_eq!(line.trim_end(), "HTTP/1.1 200 OK", "served once a place is free");
}

/// Connections that send nothing, or stop inside the HTTP/2 preface, or open HTTP/2 and
/// begin no stream, are closed once `header_read_timeout` passes, so they cannot hold every
/// place (1,030 silent sockets used to leave `initialize` unanswered for as long as they
/// stayed: the HTTP/1-or-2 sniff had no deadline).
#[tokio::test]
async fn silent_connections_are_closed_and_cannot_hold_every_place() {
    let options = modelctx::transport::http::HttpOptions {
        max_connections: 4,
        header_read_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    let address = serve_http_with(options).await;
    let mut silent = Vec::new();
    for opening in
        [&b""[..], b"", b"PRI * HTTP/2.0\r\n", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0"]
    {
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        stream.write_all(opening).await.unwrap();
        silent.push(stream);
    }
    let mut fifth = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(
        within(call_over(&mut fifth, address)).await,
        "HTTP/1.1 200 OK",
        "served once the silent close"
    );
    for mut stream in silent {
        within(closed(&mut stream)).await;
    }
}

/// An HTTP/1.1 request whose head stops arriving midway — on a new connection, or on one
/// kept alive after an answered request — is closed once `header_read_timeout` passes (within
/// a quarter more), though the idle timeout is far off; a head that arrives whole in time is
/// served.
#[tokio::test]
async fn a_head_that_stops_arriving_is_closed_after_the_header_timeout() {
    let header_read_timeout = std::time::Duration::from_millis(400);
    let options = modelctx::transport::http::HttpOptions {
        header_read_timeout,
        idle_timeout: std::time::Duration::from_secs(600),
        ..Default::default()
    };
    let address = serve_http_with(options).await;
    let head = post_head(address, 10);
    let partial = &head.as_bytes()[..40];

    let mut fresh = tokio::net::TcpStream::connect(address).await.unwrap();
    fresh.write_all(partial).await.unwrap();
    let mut kept = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(within(call_over(&mut kept, address)).await, "HTTP/1.1 200 OK");
    // Well inside the timeout, the kept connection still serves a whole request.
    tokio::time::sleep(header_read_timeout / 2).await;
    assert_eq!(within(call_over(&mut kept, address)).await, "HTTP/1.1 200 OK");
    let began = std::time::Instant::now();
    kept.write_all(partial).await.unwrap();
    within(closed(&mut kept)).await;
    let took = began.elapsed();
    assert!(took >= header_read_timeout, "closed after {took:?}, before the header timeout");
    assert!(took < header_read_timeout * 3, "closed after {took:?}");
    within(closed(&mut fresh)).await;
}

/// A connection with no request open for `idle_timeout` is closed, over HTTP/1.1 keep-alive
/// and HTTP/2 alike (neither had an idle timeout: a client could keep its place for ever).
#[tokio::test]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let options = modelctx::transport::http::HttpOptions {
        idle_timeout: std::time::Duration::from_millis(400),
        ..Default::default()
    };
    let address = serve_http_with(options).await;
    let mut keep_alive = tokio::net::TcpStream::connect(address).await.unwrap();
    assert_eq!(within(call_over(&mut keep_alive, address)).await, "HTTP/1.1 200 OK");
    within(closed(&mut keep_alive)).await;

    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(stream),
    )
    .await
    .unwrap();
    let connection = tokio::spawn(connection);
    let body = String::from_utf8(modern_call(1)).unwrap();
    let request = http::Request::post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    let response = within(sender.send_request(request)).await.unwrap();
    assert_eq!(response.status(), 200);
    drop(response);
    within(connection).await.unwrap().expect("the server ended the HTTP/2 connection cleanly");
}

/// Reads `stream` to its end, as the server closes it.
async fn closed(stream: &mut tokio::net::TcpStream) {
    use tokio::io::AsyncReadExt;
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest).await;
}

/// A legacy session's `resources/subscribe` URIs are bounded in count by
/// `Limits::max_subscriptions` and in bytes by `Limits::max_subscription_bytes` (they used to
/// grow without bound, each kept in the session state: 300 URIs of 1 MiB took 1.2 GiB).
#[tokio::test]
async fn a_sessions_subscriptions_are_bounded() {
    use modelctx::server::{Limits, ResourceDef, ServerOptions};
    let limits = Limits { max_subscriptions: 2, max_subscription_bytes: 100, ..Limits::default() };
    let server = Server::builder("hostile", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .resource(ResourceDef::text("test://a", "a", "a"))
        .build()
        .unwrap();
    let client = crate::common::Era::Legacy.connect(server).await;
    for uri in ["test://a", "test://b", "test://a"] {
        crate::common::raw(&client, "resources/subscribe", json!({"uri": uri}))
            .await
            .expect("within the bound");
    }
    let refused =
        crate::common::raw(&client, "resources/subscribe", json!({"uri": "test://c"})).await.unwrap_err();
    assert!(refused.message.contains("already holds 2 subscriptions"), "{}", refused.message);
    crate::common::raw(&client, "resources/unsubscribe", json!({"uri": "test://b"})).await.unwrap();
    let long = format!("test://{}", "x".repeat(100));
    let refused = crate::common::raw(&client, "resources/subscribe", json!({"uri": long})).await.unwrap_err();
    assert!(
        refused.message.contains("would hold 115 bytes of URIs, more than the 100"),
        "{}",
        refused.message
    );
    crate::common::raw(&client, "resources/subscribe", json!({"uri": "test://c"})).await.expect("room again");
}

/// A hand-written HTTP server on loopback answering each request with `answer(request line)`
/// and closing the connection: a peer that says what a test needs it to.
async fn raw_http(answer: fn(&str) -> Vec<u8>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut reader = BufReader::new(stream);
                let mut request_line = String::new();
                reader.read_line(&mut request_line).await.unwrap_or(0);
                let mut length = 0;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).await.unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                    if let Some(value) = header.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = tokio::io::AsyncReadExt::read_exact(&mut reader, &mut body).await;
                let _ = reader.get_mut().write_all(&answer(&request_line)).await;
                let _ = reader.get_mut().shutdown().await;
            });
        }
    });
    url
}

/// An HTTP+SSE `endpoint` event naming another origin is refused: every later POST would
/// carry the client's headers (a bearer token) there (the client used to follow it).
#[tokio::test]
async fn an_endpoint_on_another_origin_is_refused() {
    let url = raw_http(|request| {
        if request.starts_with("GET") {
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: endpoint\ndata: http://attacker.example/messages\n\n".to_vec()
        } else {
            b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n".to_vec()
        }
    })
    .await;
    let options = modelctx::client::ClientOptions::new(Implementation::new("t", "1"));
    let refused = within(modelctx::client::Client::connect_http(&url, Default::default(), options)).await;
    let error = refused.err().expect("no connection to an endpoint on another origin");
    assert!(error.is_invalid_result(), "{error:?}");
    assert!(error.to_string().contains("not on the origin"), "{error}");
}

/// An HTTP answer longer than the client's limit is refused as it arrives, not read whole.
#[tokio::test]
async fn an_http_answer_over_the_limit_is_refused() {
    let url = raw_http(|_| {
        let body =
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"x\":\"{}\"}}}}", "x".repeat(64 * 1024));
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    })
    .await;
    let mut options = modelctx::client::ClientOptions::new(Implementation::new("t", "1"));
    options.limits.max_message_bytes = 16 * 1024;
    options.mode = modelctx::client::EraMode::Modern;
    let refused = within(modelctx::client::Client::connect_http(&url, Default::default(), options)).await;
    let error = refused.err().expect("an answer over the limit");
    assert!(error.to_string().contains("longer than the limit of 16384 bytes"), "{error}");
}

/// Requests that reached the server a redirect pointed to, in [`a_redirect_to_another_origin_is_not_followed`].
static ELSEWHERE_HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Where the redirecting server points.
static ELSEWHERE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// A redirect to another origin is not followed: it would carry the client's configured
/// headers there (reqwest follows it by default and drops only its own sensitive headers).
#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed() {
    let elsewhere = raw_http(|_| {
        ELSEWHERE_HITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_vec()
    })
    .await;
    ELSEWHERE.set(elsewhere.replace("127.0.0.1", "localhost")).unwrap();
    let url = raw_http(|_| {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nlocation: {}\r\ncontent-length: 0\r\n\r\n",
            ELSEWHERE.get().unwrap()
        )
        .into_bytes()
    })
    .await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-api-key", "secret".parse().unwrap());
    let options = modelctx::client::ClientOptions::new(Implementation::new("t", "1"));
    let refused = within(modelctx::client::Client::connect_http(&url, headers, options)).await;
    assert!(refused.is_err(), "a redirect is no server");
    assert_eq!(ELSEWHERE_HITS.load(std::sync::atomic::Ordering::SeqCst), 0, "the other origin heard nothing");
}

/// A probe that times out does not pin the endpoint to the legacy era: the next connection
/// probes again (one slow answer used to make every later connection of the process legacy).
#[tokio::test]
async fn a_probe_that_times_out_does_not_pin_the_endpoint_to_legacy() {
    use modelctx::client::{Client, ClientOptions};
    use modelctx_protocol::Era;
    let address = serve_http_with(Default::default()).await;
    let url = format!("http://{address}/mcp");
    let impatient = ClientOptions {
        probe_timeout: std::time::Duration::ZERO,
        ..ClientOptions::new(Implementation::new("t", "1"))
    };
    let first = within(Client::connect_http(&url, Default::default(), impatient)).await.unwrap();
    assert_eq!(first.era(), Era::Legacy, "no answer in time: the handshake of old");
    let patient = ClientOptions::new(Implementation::new("t", "1"));
    let second = within(Client::connect_http(&url, Default::default(), patient)).await.unwrap();
    assert_eq!(second.era(), Era::Modern, "probed again, and answered");
}

/// A session store that takes a moment to answer, as a remote one (Redis) does: what lets
/// two requests of one session interleave.
struct Remote(modelctx::transport::http::MemorySessionStore);

impl modelctx::transport::http::SessionStore for Remote {
    fn create<'a>(
        &'a self,
        id: &'a str,
        session: modelctx::server::LegacySession,
    ) -> modelctx::transport::http::StoreFuture<'a, ()> {
        self.0.create(id, session)
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> modelctx::transport::http::StoreFuture<'a, Option<modelctx::server::LegacySession>> {
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            self.0.get(id).await
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        expected: &'a modelctx::server::LegacySession,
        session: modelctx::server::LegacySession,
    ) -> modelctx::transport::http::StoreFuture<'a, bool> {
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            self.0.update(id, expected, session).await
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> modelctx::transport::http::StoreFuture<'a, ()> {
        self.0.remove(id)
    }
}

/// Concurrent changes to one 2025-11-25 session over HTTP are all kept (two requests used to
/// read the same state, and the second to write lost the first's change). Observed through
/// the subscription bound: with room for exactly 40, 40 concurrent subscriptions fill it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_to_one_session_are_all_kept() {
    concurrent_subscriptions_are_all_kept(1).await;
}

/// The same across instances sharing the store: each change is compared and set, and one that
/// finds the session changed by another instance is applied again on top (the store's copy
/// used to be overwritten blindly, losing the other instance's change).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_changes_on_instances_sharing_a_store_are_all_kept() {
    concurrent_subscriptions_are_all_kept(2).await;
}

/// 40 concurrent subscriptions of one session, spread over `instances` endpoints sharing one
/// (slow) session store, fill a bound of exactly 40.
/// A 2025-11-25 POST of `body` to `url`, in `session` when given.
fn legacy_post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
}

async fn concurrent_subscriptions_are_all_kept(instances: usize) {
    use modelctx::server::{Limits, ResourceDef, ServerOptions};
    let limits = Limits { max_subscriptions: 40, ..Limits::default() };
    let server = Server::builder("hostile", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .resource(ResourceDef::text("test://a", "a", "a"))
        .build()
        .unwrap();
    let defaults = modelctx::transport::http::HttpStores::in_memory(std::time::Duration::from_secs(60), 16);
    let remote = std::time::Duration::from_secs(60);
    let stores = modelctx::transport::http::HttpStores {
        sessions: std::sync::Arc::new(Remote(modelctx::transport::http::MemorySessionStore::new(remote, 16))),
        events: defaults.events,
    };
    let options = modelctx::transport::http::HttpOptions { stores: Some(stores), ..Default::default() };
    let mut urls = Vec::new();
    for _ in 0..instances {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        urls.push(format!("http://{}/mcp", listener.local_addr().unwrap()));
        let serving = modelctx::transport::http::serve_http(
            server.clone(),
            listener,
            options.clone(),
            std::future::pending(),
        );
        tokio::spawn(serving);
    }
    let http = reqwest::Client::new();
    let post = |session: Option<String>, body: Value| {
        let n = body["id"].as_u64().unwrap_or_default() as usize;
        legacy_post(&http, &urls[n % urls.len()], session.as_deref(), &body).send()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let opened = within(post(None, initialize)).await.unwrap();
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let subscribe = |n: usize| json!({"jsonrpc": "2.0", "id": n + 1, "method": "resources/subscribe", "params": {"uri": format!("test://{n}")}});
    let all = futures::future::join_all((0..40).map(|n| post(Some(session.clone()), subscribe(n))));
    for answer in within(all).await {
        let answer: Value = serde_json::from_slice(&answer.unwrap().bytes().await.unwrap()).unwrap();
        assert!(answer.get("result").is_some(), "{answer}");
    }
    let past = within(post(Some(session.clone()), subscribe(40))).await.unwrap().bytes().await.unwrap();
    let past: Value = serde_json::from_slice(&past).unwrap();
    assert!(
        past["error"]["message"].as_str().is_some_and(|m| m.contains("already holds 40")),
        "every one of the 40 was kept: {past}"
    );
}

/// A listener that does not read is never waited on: what it has yet to hear of is kept
/// coalesced, and once more than `max_listener_backlog` distinct changes wait, it is ended
/// with an error telling it to listen again (its notifications used to queue without bound).
#[tokio::test]
async fn a_listener_that_does_not_read_is_ended_once_too_far_behind() {
    use modelctx::server::{Limits, ResourceTemplateDef, ServerOptions, text_contents};
    let limits = Limits { max_listener_backlog: 3, ..Limits::default() };
    let server = Server::builder("hostile", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .resource_template(ResourceTemplateDef::new(
            "test://items/{id}",
            "item",
            |r: modelctx::server::ResourceRequest| async move { vec![text_contents(r.uri, None, "x")] },
        ))
        .build()
        .unwrap();
    // A narrow pipe the test does not read from until the end.
    let (ours, theirs) = tokio::io::duplex(256);
    let (read, write) = tokio::io::split(theirs);
    tokio::spawn(serve_connection(server.clone(), read, write, std::future::pending()));
    let (from_server, mut to_server) = tokio::io::split(ours);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["test://items/"]}, "_meta": meta}});
    to_server.write_all(format!("{listen}\n").as_bytes()).await.unwrap();
    for n in 0..2000 {
        server.resource_updated(format!("test://items/{n}"));
        tokio::task::yield_now().await;
    }
    let mut lines = BufReader::new(from_server).lines();
    let ended = within(async {
        loop {
            let line = lines.next_line().await.unwrap().expect("the listen's answer");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == 9 {
                break message;
            }
        }
    })
    .await;
    let message = ended["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("fell more than 3 changes behind"), "{ended}");
}

/// A body refused for its size is answered 413 with `Connection: close`: the rest of it is
/// never read, so the connection cannot carry another request (found by the soak: a client
/// reusing it lost its next request).
#[tokio::test]
async fn a_refused_body_closes_its_connection() {
    let options = modelctx::transport::http::HttpOptions { max_body_bytes: 1024, ..Default::default() };
    let address = serve_http_with(options).await;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(post_head(address, 4096).as_bytes()).await.unwrap();
    stream.write_all(&[b' '; 2048]).await.unwrap();
    let mut reader = BufReader::new(&mut stream);
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        within(reader.read_line(&mut line)).await.unwrap();
        if line.trim().is_empty() {
            break;
        }
        head.push(line.trim().to_ascii_lowercase());
    }
    assert_eq!(head[0], "http/1.1 413 payload too large");
    assert!(head.iter().any(|h| h == "connection: close"), "{head:?}");
}

/// A legacy client that sends more slow calls than there are turns, then goes away, holds only
/// its share of them: its work goes on (a disconnection is not a cancellation), and another
/// session is answered at once (it used to wait for the whole request timeout).
#[tokio::test]
async fn a_client_gone_with_slow_calls_holds_only_its_share_of_turns() {
    use modelctx::server::{Limits, RequestContext, ServerOptions};
    let limits = Limits { max_in_flight: 4, max_in_flight_per_client: 2, ..Limits::default() };
    let server = Server::builder("hostile", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .tool(ToolDef::new("echo", || async { "still here" }))
        .tool(ToolDef::new("hang", |ctx: RequestContext| async move {
            ctx.cancellation().cancelled().await;
            "cancelled"
        }))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let options = modelctx::transport::http::HttpOptions::default();
    tokio::spawn(modelctx::transport::http::serve_http(server, listener, options, std::future::pending()));
    let post = |http: &reqwest::Client, session: Option<&str>, body: Value| {
        legacy_post(http, &url, session, &body).send()
    };
    let open = |http: reqwest::Client| async move {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        let opened = within(post(&http, None, initialize)).await.unwrap();
        opened.headers()["mcp-session-id"].to_str().unwrap().to_owned()
    };
    let greedy = reqwest::Client::new();
    let session = open(greedy.clone()).await;
    let hangs: Vec<_> = (1..=6)
        .map(|id| {
            let call =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "hang"}});
            tokio::spawn(post(&greedy, Some(&session), call))
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    for hang in hangs {
        hang.abort(); // the client goes away; its calls run on
    }
    drop(greedy);

    let other = reqwest::Client::new();
    let session = open(other.clone()).await;
    let echo = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo"}});
    let answered = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        post(&other, Some(&session), echo).await.unwrap().text().await.unwrap()
    })
    .await
    .expect("another session is answered while the first one's calls hang");
    assert!(answered.contains("still here"), "{answered}");
}

/// One connection holds at most `HttpOptions::max_listens_per_connection` stateless listens:
/// past it a listen is refused `503` while another connection still gets its own (a few HTTP/2
/// connections used to hold every listen of the endpoint); ending one makes room again.
#[tokio::test]
async fn one_connection_holds_at_most_its_share_of_listens() {
    let options =
        modelctx::transport::http::HttpOptions { max_listens_per_connection: 2, ..Default::default() };
    let address = serve_http_with(options).await;
    let url = format!("http://{address}/mcp");
    let listen = |http: &reqwest::Client| {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                          "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}});
        http.post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "subscriptions/listen")
            .body(body.to_string())
            .send()
    };
    let one = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let first = within(listen(&one)).await.unwrap();
    let second = within(listen(&one)).await.unwrap();
    assert_eq!((first.status().as_u16(), second.status().as_u16()), (200, 200));
    let refused = within(listen(&one)).await.unwrap();
    assert_eq!(refused.status(), 503);
    let said = refused.text().await.unwrap();
    assert!(said.contains("this connection already holds 2 listens"), "{said}");
    let other = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    assert_eq!(within(listen(&other)).await.unwrap().status(), 200, "another connection has its own share");
    drop(first);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let again = within(listen(&one)).await.unwrap();
        if again.status() == 200 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "ending a listen made no room");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    drop(second);
}
