//! The client over Streamable HTTP against our server on 127.0.0.1: era negotiation
//! (CHECKLIST §10.1), headers (HTTP-23..28), SSE answers with notifications, and a legacy
//! session the server forgot.

use modelctx_protocol::Method;
use std::time::Duration;

use modelctx::client::{Client, ClientOptions, EraMode};
use modelctx::protocol::era::ServerVersions;
use modelctx::protocol::types::Implementation;
use modelctx::protocol::{Era, ProtocolVersion};
use modelctx::server::{Args, RequestContext, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::oneshot;

#[derive(Deserialize, JsonSchema)]
struct Regional {
    region: String,
}

fn server(versions: ServerVersions) -> Server {
    let regional =
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
    Server::builder("http-client-test", "1")
        .versions(versions)
        .tool(ToolDef::new("hello", || async { "hello" }))
        .tool(
            ToolDef::new("regional", |Args(Regional { region }): Args<Regional>| async move { region })
                .input_schema(regional.as_object().cloned().unwrap()),
        )
        .tool(ToolDef::new("released", |ctx: RequestContext| async move {
            ctx.progress(1.0, None, None).await;
            ctx.release_stream();
            tokio::time::sleep(Duration::from_millis(50)).await;
            "after the break"
        }))
        .tool(ToolDef::new("slow", |ctx: RequestContext| async move {
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), None).await;
            }
            "done"
        }))
        .build()
        .unwrap()
}

/// Serves `server` on a loopback port until the returned sender drops.
async fn serve(server: Server, options: HttpOptions) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server, listener, options, async move {
        let _ = stopped.await;
    }));
    (url, stop)
}

fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("http-test-client", "1"))
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn ver_auto_over_http_is_modern_and_mirrors_x_mcp_header_arguments() {
    let (url, _stop) = serve(server(ServerVersions::default()), HttpOptions::default()).await;
    let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    assert_eq!(client.server().version, ProtocolVersion::V2026_07_28);
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["hello", "regional", "released", "slow"]);
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    // The server refuses a call whose Mcp-Param-Region header is missing or differs (HTTP-30).
    let regional = client.call_tool("regional", json!({"region": "eu-west"})).await.unwrap();
    assert_eq!(text(&regional), "eu-west");
}

#[tokio::test]
async fn ver_http_falls_back_to_a_legacy_session_and_streams_notifications() {
    let legacy_only = server(ServerVersions::new([ProtocolVersion::V2025_11_25]));
    let (url, _stop) = serve(legacy_only, HttpOptions::default()).await;
    for mode in [EraMode::Auto, EraMode::Legacy] {
        let client = Client::connect_http(&url, Default::default(), ClientOptions { mode, ..options() })
            .await
            .unwrap();
        assert_eq!(client.era(), Era::Legacy, "{mode:?}");
        client.ping().await.unwrap();
        let mut notes = client.notifications();
        let params = json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}});
        let result = client.request("tools/call", params).await.unwrap();
        assert_eq!(result["content"][0]["text"], "done");
        let progress = notes.try_recv().expect("progress arrived on the request's stream");
        assert_eq!(progress.method, Method::Progress);
    }
}

#[tokio::test]
async fn http_60_a_forgotten_legacy_session_is_opened_again() {
    let options_http =
        HttpOptions { session_idle_timeout: Duration::from_millis(200), ..HttpOptions::default() };
    let (url, _stop) = serve(server(ServerVersions::default()), options_http).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    tokio::time::sleep(Duration::from_millis(400)).await;
    // The server answers 404 for the expired session; the client initializes again.
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let error = Client::connect_http(&url, Default::default(), options()).await.err().unwrap();
    assert!(error.to_string().starts_with("the HTTP exchange failed: POST "), "{error}");
    // The HTTP client's own error is kept underneath, and says the connection was refused.
    let source = std::error::Error::source(&error).and_then(|s| s.downcast_ref::<reqwest::Error>());
    assert!(source.is_some_and(reqwest::Error::is_connect), "{error:?}");
}

#[tokio::test]
async fn http_54_a_released_answer_stream_is_resumed_with_last_event_id() {
    let (url, _stop) = serve(server(ServerVersions::default()), HttpOptions::default()).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    // The server closes the POST stream before answering; the client waits its `retry`,
    // then GETs the rest of that stream.
    assert_eq!(text(&client.call_tool("released", json!({})).await.unwrap()), "after the break");
}

#[cfg(feature = "http-sse")]
#[tokio::test]
async fn an_old_http_sse_server_is_the_last_fallback() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = server(ServerVersions::default());
    tokio::spawn(modelctx::transport::http::serve_http_with_sse(
        server,
        listener,
        HttpOptions::default(),
        std::future::pending(),
    ));
    // The deprecated transport's event stream: POSTs there get 405 in both eras.
    let sse = url.replace("/mcp", "/sse");
    let client = Client::connect_http(&sse, Default::default(), options()).await.unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    let mut notes = client.notifications();
    let params = json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}});
    let result = client.request("tools/call", params).await.unwrap();
    assert_eq!(result["content"][0]["text"], "done");
    assert_eq!(notes.try_recv().unwrap().method, Method::Progress, "notifications arrive on the stream");
}

#[tokio::test]
async fn ver_a_legacy_verdict_is_cached_per_endpoint() {
    let (url, seen) = recording(server(ServerVersions::new([ProtocolVersion::V2025_11_25]))).await;
    for _ in 0..3 {
        let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
        assert_eq!(client.era(), Era::Legacy);
    }
    let probes = seen.lock().unwrap().iter().filter(|r| r.body["method"] == "server/discover").count();
    assert_eq!(probes, 1, "probed once, then remembered as legacy");
}

#[tokio::test]
async fn a_dropped_call_is_cancelled_in_a_legacy_http_session() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let abandoned = Arc::new(AtomicUsize::new(0));
    let stalling =
        Server::builder("stall-test", "1").tool(crate::common::stall(abandoned.clone())).build().unwrap();
    let (url, _stop) = serve(stalling, HttpOptions::default()).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    let dropped =
        tokio::time::timeout(Duration::from_millis(100), client.call_tool("stall", json!({}))).await;
    assert!(dropped.is_err());
    // A broken connection is no cancellation in 2025-11-25 (HTTP-48): the client said so.
    for _ in 0..200 {
        if abandoned.load(Ordering::SeqCst) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server never heard notifications/cancelled");
}

/// A token source whose first token the server refuses: it records each challenge and
/// then hands out the fresh token.
#[derive(Debug, Default)]
struct Rotating {
    refreshed: std::sync::atomic::AtomicBool,
    challenges: std::sync::Mutex<Vec<String>>,
}

impl modelctx::client::HttpAuth for Rotating {
    fn authorize<'a>(
        &'a self,
        request: &'a mut reqwest::Request,
    ) -> futures::future::BoxFuture<'a, Result<(), modelctx::client::ClientError>> {
        let fresh = self.refreshed.load(std::sync::atomic::Ordering::SeqCst);
        let token = if fresh { "fresh" } else { "stale" };
        Box::pin(async move {
            let value = modelctx::client::authorization_value("Bearer", token)?;
            request.headers_mut().insert("authorization", value);
            Ok(())
        })
    }

    fn refused<'a>(
        &'a self,
        refusal: modelctx::client::Refusal<'a>,
    ) -> futures::future::BoxFuture<'a, Result<bool, modelctx::client::ClientError>> {
        let challenge =
            refusal.headers.get("www-authenticate").and_then(|v| v.to_str().ok()).unwrap_or_default();
        self.challenges.lock().unwrap().push(challenge.to_owned());
        self.refreshed.store(true, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Ok(true) })
    }
}

/// Serves `server` behind a bearer check: only `Authorization: Bearer fresh` reaches it, any
/// other request is a 401 with a challenge. Returns the URL and a count of the 401s.
async fn serve_behind_bearer_check(
    server: Server,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use http_body_util::{BodyExt, Full};
    use hyper_util::rt::TokioIo;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let endpoint = modelctx::transport::http::McpHttp::new(server, HttpOptions::default());
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = refused.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (endpoint, counter) = (endpoint.clone(), counter.clone());
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let (endpoint, counter) = (endpoint.clone(), counter.clone());
                    async move {
                        let authorized =
                            request.headers().get("authorization").is_some_and(|v| v == "Bearer fresh");
                        if authorized {
                            return Ok::<_, std::convert::Infallible>(endpoint.handle(request).await);
                        }
                        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let refusal = hyper::Response::builder()
                            .status(401)
                            .header("www-authenticate", r#"Bearer error="invalid_token""#)
                            .body(
                                Full::new(bytes::Bytes::new()).map_err(|never| match never {}).boxed_unsync(),
                            )
                            .unwrap();
                        Ok(refusal)
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (url, refused)
}

#[tokio::test]
async fn a_refused_bearer_token_is_refreshed_once_and_the_request_sent_again() {
    let (url, refused) = serve_behind_bearer_check(server(ServerVersions::default())).await;
    let tokens = std::sync::Arc::new(Rotating::default());
    let options = ClientOptions { auth: Some(tokens.clone()), ..options() };
    let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 1, "only the first request was refused");
    assert_eq!(*tokens.challenges.lock().unwrap(), [r#"Bearer error="invalid_token""#]);
}

#[tokio::test]
async fn a_static_bearer_token_rides_every_request_and_a_wrong_one_is_a_401() {
    use modelctx::client::StaticBearer;
    let (url, refused) = serve_behind_bearer_check(server(ServerVersions::default())).await;
    let good = ClientOptions { auth: Some(std::sync::Arc::new(StaticBearer::new("fresh"))), ..options() };
    let client = Client::connect_http(&url, Default::default(), good).await.unwrap();
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Refused authorization is the error in every mode, not an era verdict.
    for mode in [EraMode::Auto, EraMode::Modern, EraMode::Legacy] {
        let wrong =
            ClientOptions { auth: Some(std::sync::Arc::new(StaticBearer::new("wrong"))), mode, ..options() };
        let error = Client::connect_http(&url, Default::default(), wrong).await.err().expect("refused");
        assert_eq!(error.http_status(), Some(401), "{mode:?}: {error:?}");
    }
}

/// One HTTP request as the endpoint received it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    headers: hyper::HeaderMap,
    body: serde_json::Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}

/// `server` behind a loopback endpoint that records every request before handling it.
async fn recording(server: Server) -> (String, std::sync::Arc<std::sync::Mutex<Vec<Seen>>>) {
    recording_with(server, |_| false).await
}

/// Like [`recording`]; a request `cut` picks is answered, as a broken stream would be, with
/// an event stream that carries one progress notification and ends with no answer.
async fn recording_with(
    server: Server,
    cut: impl Fn(&Seen) -> bool + Clone + Send + Sync + 'static,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<Seen>>>) {
    use http_body_util::{BodyExt, Full};
    use hyper::body::Incoming;
    use hyper_util::rt::TokioIo;
    use modelctx::transport::http::McpHttp;

    let mcp = McpHttp::new(server, HttpOptions::default());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (mcp, record, cut) = (mcp.clone(), record.clone(), cut.clone());
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let (mcp, record, cut) = (mcp.clone(), record.clone(), cut.clone());
                async move {
                    let (parts, body) = request.into_parts();
                    let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                    let seen = Seen {
                        method: parts.method.to_string(),
                        headers: parts.headers.clone(),
                        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
                    };
                    let broken = cut(&seen);
                    record.lock().unwrap().push(seen);
                    if broken {
                        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": "cut", "progress": 1}});
                        let stream = format!("event: message\ndata: {progress}\n\n");
                        let response = hyper::Response::builder()
                            .header("content-type", "text/event-stream")
                            .body(Full::new(bytes::Bytes::from(stream)).boxed_unsync())
                            .unwrap();
                        return Ok::<_, std::convert::Infallible>(response);
                    }
                    let request = hyper::Request::from_parts(parts, Full::new(body));
                    Ok::<_, std::convert::Infallible>(mcp.handle(request).await)
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (url, seen)
}

/// HTTP-05, HTTP-06, HTTP-07, HTTP-08, HTTP-11, HTTP-18: a 2026-07-28 client POSTs each
/// message on its own (a request or a notification, never a response), accepting JSON and
/// SSE, with the request-metadata headers mirroring the body and `MCP-Protocol-Version` equal
/// to the body's version; it reads JSON and SSE answers alike.
#[tokio::test]
async fn http_05_06_07_08_11_18_a_modern_client_posts_each_message_with_its_headers() {
    let (url, seen) = recording(server(ServerVersions::default())).await;
    let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello", "a JSON answer");
    let params = json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}});
    let slow = client.request("tools/call", params).await.unwrap();
    assert_eq!(slow["content"][0]["text"], "done", "an SSE answer, after its progress");
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 4, "{seen:?}");
    for request in &seen {
        assert_eq!(request.method, "POST");
        assert!(request.body.is_object(), "one message per POST: {}", request.body);
        assert!(
            request.body["method"].is_string(),
            "a request or notification, not a response: {}",
            request.body
        );
        let accept = request.header("accept").unwrap_or_default();
        assert!(accept.contains("application/json") && accept.contains("text/event-stream"), "{accept}");
        let method = request.body["method"].as_str().unwrap_or_default();
        if request.body.get("id").is_some() {
            assert_eq!(request.header("mcp-method"), Some(method), "{}", request.body);
            let version = &request.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"];
            assert_eq!(request.header("mcp-protocol-version"), version.as_str(), "{}", request.body);
        }
        if method == "tools/call" {
            assert_eq!(request.header("mcp-name"), request.body["params"]["name"].as_str());
        }
    }
}

/// HTTP-42, HTTP-49, HTTP-57: after `initialize`, a 2025-11-25 client sends the negotiated
/// `MCP-Protocol-Version` and the session's `Mcp-Session-Id` on every request, and opens the
/// session's GET stream accepting `text/event-stream`.
#[tokio::test]
async fn http_42_49_57_a_legacy_client_names_its_version_and_session_on_every_request() {
    let (url, seen) = recording(server(ServerVersions::new([ProtocolVersion::V2025_11_25]))).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    client.ping().await.unwrap();
    client.list_tools().await.unwrap();
    client.call_tool("hello", json!({})).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    let initialize = seen.iter().position(|r| r.body["method"] == "initialize").expect("initialized");
    let later: Vec<&Seen> = seen[initialize + 1..].iter().filter(|r| r.method == "POST").collect();
    assert!(later.len() >= 4, "initialized, ping, list, call: {later:?}");
    let session = later[0].header("mcp-session-id").expect("a session id").to_owned();
    let gets: Vec<&Seen> = seen.iter().filter(|r| r.method == "GET").collect();
    assert!(!gets.is_empty(), "the session's stream was opened");
    for get in &gets {
        assert!(get.header("accept").unwrap_or_default().contains("text/event-stream"), "{:?}", get.headers);
        assert_eq!(get.header("mcp-session-id"), Some(session.as_str()));
    }
    for request in later {
        assert_eq!(request.header("mcp-protocol-version"), Some("2025-11-25"), "{}", request.body);
        assert_eq!(request.header("mcp-session-id"), Some(session.as_str()), "{}", request.body);
    }
}

#[tokio::test]
async fn validated_arguments_are_checked_against_the_input_schema_before_they_are_sent() {
    let (url, _stop) = serve(server(ServerVersions::default()), HttpOptions::default()).await;
    let checking = ClientOptions { validate_arguments: true, ..options() };
    let client = Client::connect_http(&url, Default::default(), checking).await.unwrap();
    // No listing was asked for: the client fetches it to know the schema.
    let refused = client.call_tool("regional", json!({"region": 5})).await.unwrap_err();
    assert!(refused.is_invalid_params() && refused.to_string().contains("inputSchema"), "{refused:?}");
    assert!(
        client.call_tool("no_such_tool", json!({})).await.unwrap_err().to_string().contains("lists no tool")
    );
    assert_eq!(text(&client.call_tool("regional", json!({"region": "eu"})).await.unwrap()), "eu");
    // Without the option the server judges, and answers a tool error the model can read.
    let plain = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    plain.list_tools().await.unwrap();
    assert_eq!(plain.call_tool("regional", json!({"region": 5})).await.unwrap().is_error, Some(true));
}

/// HTTP-27: over HTTP the client drops, from `tools/list`, a tool whose `x-mcp-header`
/// annotations are invalid (it could not send its headers right), and keeps the others. The
/// server is scripted: modelctx's own refuses to register such a tool.
#[tokio::test]
async fn http_27_a_tool_with_invalid_x_mcp_header_annotations_is_dropped_from_the_listing() {
    use http_body_util::{BodyExt, Full};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let twice = json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "Region"},
        "b": {"type": "string", "x-mcp-header": "region"}}});
    let tools = json!([
        {"name": "good", "inputSchema": {"type": "object"}},
        {"name": "twice", "inputSchema": twice},
    ]);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let tools = tools.clone();
            let service = hyper::service::service_fn(
                move |request: hyper::Request<hyper::body::Incoming>| {
                    let tools = tools.clone();
                    async move {
                        let body = request.into_body().collect().await.unwrap().to_bytes();
                        let message: serde_json::Value = serde_json::from_slice(&body).unwrap();
                        let result = match message["method"].as_str() {
                            Some("server/discover") => {
                                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                            "capabilities": {"tools": {}}, "serverInfo": {"name": "scripted", "version": "1"}})
                            }
                            _ => json!({"resultType": "complete", "tools": tools}),
                        };
                        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                        let response = hyper::Response::builder()
                            .header("content-type", "application/json")
                            .body(Full::new(bytes::Bytes::from(answer.to_string())))
                            .unwrap();
                        Ok::<_, std::convert::Infallible>(response)
                    }
                },
            );
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["good"], "the tool with a header named twice is dropped");
}

/// HTTP-17: a 2026-07-28 response stream cannot be resumed, so a request whose stream broke
/// before its answer is sent again as a new request with a new id — a bounded number of
/// times (`ClientOptions::reissues`), then the call fails saying so.
#[tokio::test]
async fn http_17_a_broken_modern_response_stream_is_sent_again_with_a_new_id() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let first_call_cut =
        move |seen: &Seen| seen.body["method"] == "tools/call" && counted.fetch_add(1, Ordering::SeqCst) == 0;
    let (url, seen) = recording_with(server(ServerVersions::default()), first_call_cut).await;
    let client = Client::connect_http(&url, Default::default(), options()).await.unwrap();
    assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
    let ids: Vec<serde_json::Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.body["method"] == "tools/call")
        .map(|r| r.body["id"].clone())
        .collect();
    assert_eq!(ids.len(), 2, "sent once, cut, sent again: {ids:?}");
    assert_ne!(ids[0], ids[1], "the second is a new request with a new id");

    let (url, seen) =
        recording_with(server(ServerVersions::default()), |seen: &Seen| seen.body["method"] == "tools/call")
            .await;
    let client = Client::connect_http(&url, Default::default(), ClientOptions { reissues: 1, ..options() })
        .await
        .unwrap();
    let error = client.call_tool("hello", json!({})).await.unwrap_err();
    assert!(error.to_string().contains("stream broke before the answer"), "{error}");
    let sent = seen.lock().unwrap().iter().filter(|r| r.body["method"] == "tools/call").count();
    assert_eq!(sent, 2, "the first send and one more");
}

/// BASE-04: a client never reuses a request id within a session: every request it POSTs in
/// a 2025-11-25 session — the handshake, listings, calls, one that times out — has an id of
/// its own.
#[tokio::test]
async fn base_04_a_legacy_session_never_sees_a_request_id_twice() {
    let (url, seen) = recording(server(ServerVersions::default())).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    client.list_tools().await.unwrap();
    for _ in 0..3 {
        client.call_tool("hello", json!({})).await.unwrap();
    }
    client.ping().await.unwrap();
    let ids: Vec<serde_json::Value> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.body.get("method").is_some() && r.body.get("id").is_some())
        .map(|r| r.body["id"].clone())
        .collect();
    assert!(ids.len() >= 6, "{ids:?}");
    let distinct: std::collections::HashSet<String> = ids.iter().map(|id| id.to_string()).collect();
    assert_eq!(distinct.len(), ids.len(), "an id was used twice: {ids:?}");
}

/// The wire tap sees every message of an HTTP connection in both eras: each request posted,
/// each JSON answer, and each message of an event stream (progress before its answer).
#[tokio::test]
async fn the_wire_tap_sees_every_message_over_http() {
    use modelctx::client::{WireDirection, WireTap};
    use std::sync::{Arc, Mutex};

    let (url, _stop) = serve(server(ServerVersions::default()), HttpOptions::default()).await;
    for mode in [EraMode::Modern, EraMode::Legacy] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let tap = WireTap::new(move |direction, message| {
            let message: serde_json::Value = serde_json::from_str(message).expect("each message is JSON");
            kept.lock().unwrap().push((direction, message));
        });
        let client = Client::connect_http(
            &url,
            Default::default(),
            ClientOptions { mode, wire_tap: Some(tap), ..options() },
        )
        .await
        .unwrap();
        let params = json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}});
        client.request("tools/call", params).await.unwrap();
        let seen = seen.lock().unwrap();
        let call = seen.iter().position(|(d, m)| *d == WireDirection::Sent && m["method"] == "tools/call");
        let call = call.unwrap_or_else(|| panic!("{mode:?}: the call was seen: {seen:?}"));
        let id = &seen[call].1["id"];
        let after = &seen[call + 1..];
        let progress = after
            .iter()
            .filter(|(d, m)| *d == WireDirection::Received && m["method"] == "notifications/progress");
        assert_eq!(progress.count(), 3, "{mode:?}: {after:?}");
        let answer = after
            .iter()
            .position(|(d, m)| *d == WireDirection::Received && m["id"] == *id && m.get("result").is_some());
        assert!(answer.is_some(), "{mode:?}: the answer was seen: {after:?}");
        let first = &seen[0].1["method"];
        assert_eq!(first, if mode == EraMode::Legacy { "initialize" } else { "server/discover" }, "{mode:?}");
    }
}

/// HTTP/2 with prior knowledge (h2c), as a balancer speaks to its back ends: the server
/// answers it on the same port as HTTP/1.1, and the client speaks it when asked, in both eras,
/// streamed answers included.
#[tokio::test]
async fn h2c_is_served_beside_http_1_1_and_spoken_by_the_client_when_asked() {
    let (url, _stop) = serve(server(ServerVersions::default()), HttpOptions::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    for h2c in [false, true] {
        let raw = reqwest::Client::builder();
        let raw = if h2c { raw.http2_prior_knowledge() } else { raw }.build().unwrap();
        let answer = raw
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "server/discover")
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let expected = if h2c { reqwest::Version::HTTP_2 } else { reqwest::Version::HTTP_11 };
        assert_eq!(answer.version(), expected);
        assert_eq!(answer.status(), 200);
        let answer: serde_json::Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
        assert!(answer["result"]["supportedVersions"].is_array(), "{answer}");
    }

    let legacy_only = server(ServerVersions::new([ProtocolVersion::V2025_11_25]));
    let (legacy_url, _stop_legacy) = serve(legacy_only, HttpOptions::default()).await;
    for (url, era) in [(&url, Era::Modern), (&legacy_url, Era::Legacy)] {
        // With prior knowledge there is no fallback to HTTP/1.1: every answer came over h2.
        let h2c = ClientOptions { http2_prior_knowledge: true, ..options() };
        let client = Client::connect_http(url, Default::default(), h2c).await.unwrap();
        assert_eq!(client.era(), era);
        assert_eq!(text(&client.call_tool("hello", json!({})).await.unwrap()), "hello");
        let mut notes = client.notifications();
        let params = json!({"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}});
        let result = client.request("tools/call", params).await.unwrap();
        assert_eq!(result["content"][0]["text"], "done", "{era:?}");
        assert_eq!(notes.try_recv().expect("progress streamed over h2").method, Method::Progress);
    }
}

/// Closing a client of a legacy session ends it on the server (`DELETE`, which a client
/// SHOULD send): its id answers 404 at once, rather than the session being kept until it
/// expires (30 minutes by default).
#[tokio::test]
async fn closing_a_legacy_client_ends_its_session_on_the_server() {
    let server = Server::builder("http-test", "1")
        .tool(ToolDef::new("session", |ctx: RequestContext| async move {
            ctx.session_id().unwrap_or_default().to_owned()
        }))
        .build()
        .unwrap();
    let (url, _stop) = serve(server, HttpOptions::default()).await;
    let client =
        Client::connect_http(&url, Default::default(), ClientOptions { mode: EraMode::Legacy, ..options() })
            .await
            .unwrap();
    let session = text(&client.call_tool("session", json!({})).await.unwrap());
    assert!(!session.is_empty());
    let ping = |session: String| {
        let url = url.clone();
        async move {
            reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25")
                .body(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(ping(session.clone()).await, 200, "the session lives while the client does");
    client.close().await;
    assert_eq!(ping(session).await, 404, "closing the client ended the session");
}
