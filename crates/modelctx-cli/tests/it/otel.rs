//! OpenTelemetry export from the real binary: `OTEL_TRACES_EXPORTER=console` prints each
//! request's span on stderr, continuing the caller's `traceparent`; `otlp` sends spans and
//! metrics over OTLP/HTTP+JSON to a receiver this test runs on 127.0.0.1, from both a
//! `modelctx serve` server and a `modelctx tools call` client, one trace across the two; and
//! over HTTP with protobuf (the default) and over gRPC.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use crate::support::http::HttpServer;
use crate::support::{WAIT, modern, run_bounded};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");

/// The caller's trace, as a W3C `traceparent` names it.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// `modelctx ARGS…` with no OpenTelemetry settings but `settings`.
fn modelctx(args: &[&str], settings: &[(&str, &str)]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).env("NO_COLOR", "1").env_remove("RUST_LOG").stdin(Stdio::null());
    for variable in
        ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"]
    {
        command.env_remove(variable);
    }
    command.envs(settings.iter().copied());
    command
}

fn echo_call(id: i64, meta: Value) -> Value {
    let mut params = modern(json!({"name": "echo", "arguments": {"message": "traced"}}));
    for (key, value) in meta.as_object().into_iter().flatten() {
        params["_meta"][key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The check: `OTEL_TRACES_EXPORTER=console modelctx serve everything --http …`
/// prints, for a `tools/call` whose `_meta` carries `traceparent`, a span with
/// `mcp.method.name`, `gen_ai.tool.name` and the caller's trace id.
#[test]
fn console_export_prints_the_request_span_in_the_callers_trace() {
    let server = HttpServer::start(modelctx(
        &["serve", "everything", "--http", "127.0.0.1:0"],
        &[("OTEL_TRACES_EXPORTER", "console")],
    ));
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let (status, answer) = server.post(&echo_call(1, json!({"traceparent": traceparent})));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "traced", "{answer}");
    let span = server.log_line(|line| line.starts_with("otel span \"tools/call echo\""));
    for part in [
        "kind=Server",
        &format!("trace_id={TRACE_ID}"),
        &format!("parent={CALLER_SPAN}(remote)"),
        "mcp.method.name=tools/call",
        "gen_ai.tool.name=echo",
        "jsonrpc.request.id=1",
        "mcp.protocol.version=2026-07-28",
        "network.transport=tcp",
    ] {
        assert!(span.contains(part), "{part:?} missing from {span}");
    }
    // A request without trace context starts a trace of its own.
    server.post(&echo_call(2, json!({})));
    let own = server.log_line(|line| line.starts_with("otel span \"tools/call echo\""));
    assert!(own.contains("parent=none") && !own.contains(TRACE_ID), "{own}");
}

/// What the receiver was sent: the path, the content type and the body of each POST.
struct Export {
    path: String,
    content_type: String,
    body: Vec<u8>,
}

/// An OTLP/HTTP receiver on 127.0.0.1: answers every POST `200` and hands it on.
fn receiver() -> (String, Receiver<Export>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind the receiver");
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (exports, received) = channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            let exports = exports.clone();
            std::thread::spawn(move || receive(stream, &exports));
        }
    });
    (endpoint, received)
}

/// Serves one connection's requests (the exporter keeps it alive between exports).
fn receive(stream: TcpStream, exports: &Sender<Export>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut writer = stream.try_clone().expect("clone the stream");
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let (mut length, mut content_type) = (0, String::new());
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                } else if name.eq_ignore_ascii_case("content-type") {
                    content_type = value.trim().to_owned();
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let path = request_line.split(' ').nth(1).unwrap_or_default().to_owned();
        // An empty export service response is `{}` in JSON and no bytes in protobuf.
        let ok: &[u8] = if content_type == "application/json" {
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
        } else {
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n"
        };
        let _ = exports.send(Export { path, content_type, body });
        if writer.write_all(ok).is_err() {
            return;
        }
    }
}

/// Every span in an OTLP traces export, with its service's name.
fn spans(export: &Value) -> Vec<(String, Value)> {
    let mut spans = Vec::new();
    for resource in export["resourceSpans"].as_array().into_iter().flatten() {
        let service = attribute(&resource["resource"], "service.name").unwrap_or_default();
        for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
            for span in scope["spans"].as_array().into_iter().flatten() {
                spans.push((service.clone(), span.clone()));
            }
        }
    }
    spans
}

/// The names of the metrics in an OTLP metrics export.
fn metric_names(export: &Value) -> Vec<String> {
    let resources = export["resourceMetrics"].as_array().into_iter().flatten();
    let scopes = resources.flat_map(|r| r["scopeMetrics"].as_array().into_iter().flatten());
    let metrics = scopes.flat_map(|s| s["metrics"].as_array().into_iter().flatten());
    metrics.filter_map(|m| m["name"].as_str().map(str::to_owned)).collect()
}

/// The string value of attribute `key` of an OTLP span or resource.
fn attribute(item: &Value, key: &str) -> Option<String> {
    let attributes = item["attributes"].as_array()?;
    let found = attributes.iter().find(|a| a["key"] == key)?;
    found["value"]["stringValue"].as_str().map(str::to_owned)
}

#[test]
fn otlp_export_carries_one_trace_from_the_client_through_the_server() {
    let (endpoint, exports) = receiver();
    let otlp = |service: &'static str| {
        [
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("OTEL_METRICS_EXPORTER", "otlp"),
            ("OTEL_SERVICE_NAME", service),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ]
    };
    let mut settings = otlp("traced-server").to_vec();
    settings.push(("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint));
    let server = HttpServer::start(modelctx(&["serve", "everything", "--http", "127.0.0.1:0"], &settings));
    let mut settings = otlp("traced-client").to_vec();
    settings.push(("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint));
    let url = server.url();
    let call = modelctx(&["tools", "call", "echo", "message=traced", "--json", "--url", &url], &settings);
    let called = run_bounded(call, WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));
    // A 2025-11-25 client too: its session, ended as it exits, is one the server measures.
    let legacy = ["tools", "call", "echo", "message=traced", "--era", "legacy", "--url", &url];
    let called = run_bounded(modelctx(&legacy, &settings), WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));

    // The clients export as they exit, the server every 200 ms: wait for the two calls' spans
    // on each side and the four histograms (each side's operations and sessions).
    let (mut client_spans, mut server_spans) = (Vec::new(), Vec::new());
    let mut metrics = Vec::new();
    let deadline = Instant::now() + WAIT;
    while client_spans.len() < 2 || server_spans.len() < 2 || metrics.len() < 4 {
        let wait = deadline
            .checked_duration_since(Instant::now())
            .unwrap_or_else(|| panic!("every export arrives in time: {metrics:?}"));
        let Ok(Export { path, content_type, body }) = exports.recv_timeout(wait) else { continue };
        assert_eq!(content_type, "application/json", "{path}");
        let export: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        match path.as_str() {
            "/v1/traces" => {
                for (service, span) in spans(&export) {
                    if span["name"] != "tools/call echo" {
                        continue;
                    }
                    match service.as_str() {
                        "traced-client" => client_spans.push(span),
                        "traced-server" => server_spans.push(span),
                        other => panic!("a span from {other}"),
                    }
                }
            }
            "/v1/metrics" => {
                for name in metric_names(&export) {
                    if name.starts_with("mcp.") && !metrics.contains(&name) {
                        metrics.push(name);
                    }
                }
            }
            other => panic!("an export to {other}"),
        }
    }
    // Each call is one trace: the server's span continues the client's.
    for client in &client_spans {
        assert_eq!(client["kind"], 3, "a client span: {client}");
        let server = server_spans
            .iter()
            .find(|server| server["traceId"] == client["traceId"])
            .unwrap_or_else(|| panic!("no server span in the trace of {client}: {server_spans:?}"));
        assert_eq!(server["kind"], 2, "a server span: {server}");
        assert_eq!(server["parentSpanId"], client["spanId"], "the server continues the client's span");
    }
    for span in client_spans.iter().chain(&server_spans) {
        assert_eq!(attribute(span, "mcp.method.name").as_deref(), Some("tools/call"), "{span}");
        assert_eq!(attribute(span, "gen_ai.tool.name").as_deref(), Some("echo"), "{span}");
        assert_eq!(attribute(span, "network.transport").as_deref(), Some("tcp"), "{span}");
    }
    metrics.sort();
    assert_eq!(
        metrics,
        [
            "mcp.client.operation.duration",
            "mcp.client.session.duration",
            "mcp.server.operation.duration",
            "mcp.server.session.duration"
        ]
    );
}

/// Without `OTEL_EXPORTER_OTLP_PROTOCOL` the export is protobuf, as the specification's default
/// is (`http/protobuf`); a protocol OTLP does not have is refused at start with the variable
/// named.
#[test]
fn otlp_export_is_protobuf_by_default_and_an_unknown_protocol_is_refused_plainly() {
    let (endpoint, exports) = receiver();
    let settings = [
        ("OTEL_TRACES_EXPORTER", "otlp"),
        ("OTEL_SERVICE_NAME", "protobuf-client"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
    ];
    let body = traced_call_export(&settings, &exports, |Export { path, content_type, .. }| {
        assert_eq!((path.as_str(), content_type.as_str()), ("/v1/traces", "application/x-protobuf"));
    });
    for text in ["protobuf-client", "mcp.method.name", "gen_ai.tool.name", "network.transport", "pipe"] {
        assert!(holds(&body, text), "{text:?} is not in the export");
    }

    // A protocol OTLP does not have turns telemetry off, saying which setting.
    let thrift = [("OTEL_TRACES_EXPORTER", "otlp"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "thrift")];
    let listed = run_bounded(modelctx(&["tools", "list", "--", BIN, "serve", "everything"], &thrift), WAIT);
    let stderr = String::from_utf8_lossy(&listed.stderr);
    assert!(
        stderr.contains("telemetry is off: OTEL_EXPORTER_OTLP_PROTOCOL=thrift is not one of"),
        "{stderr}"
    );
}

/// `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` (the CLI is built with `otel-grpc`) exports over gRPC:
/// HTTP/2 to `OTEL_EXPORTER_OTLP_ENDPOINT`, the trace service's `Export` method, a
/// length-prefixed protobuf message holding the request span — received by a gRPC endpoint
/// this test runs on 127.0.0.1 (h2c, answering `grpc-status: 0`).
#[test]
fn otlp_export_over_grpc_reaches_a_grpc_receiver() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let (endpoint, exports) = runtime.block_on(grpc_receiver());
    let settings = [
        ("OTEL_TRACES_EXPORTER", "otlp"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ("OTEL_SERVICE_NAME", "grpc-client"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
    ];
    let body = traced_call_export(&settings, &exports, |Export { path, content_type, body }| {
        assert_eq!(path, "/opentelemetry.proto.collector.trace.v1.TraceService/Export");
        assert!(content_type.starts_with("application/grpc"), "{content_type}");
        // A gRPC message: not compressed, then its length, then the protobuf bytes.
        assert_eq!(body[0], 0, "an uncompressed message");
        let length = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
        assert_eq!(length, body.len() - 5, "one message, its length first");
    });
    for text in ["grpc-client", "mcp.method.name", "gen_ai.tool.name", "network.transport", "pipe"] {
        assert!(holds(&body, text), "{text:?} is not in the export");
    }
}

/// Whether `body` holds `text` as it is: protobuf keeps strings so, and a span's name and
/// attributes are then in the bytes.
fn holds(body: &[u8], text: &str) -> bool {
    body.windows(text.len()).any(|w| w == text.as_bytes())
}

/// Runs `modelctx tools call echo` against `serve everything` with the OTEL `settings`, and
/// returns the body of the first export to `exports` that holds its request span, each export
/// checked by `check` as it arrives.
fn traced_call_export(
    settings: &[(&str, &str)],
    exports: &Receiver<Export>,
    check: impl Fn(&Export),
) -> Vec<u8> {
    let call =
        modelctx(&["tools", "call", "echo", "message=traced", "--", BIN, "serve", "everything"], settings);
    let called = run_bounded(call, WAIT);
    assert!(called.status.success(), "{}", String::from_utf8_lossy(&called.stderr));
    let deadline = Instant::now() + WAIT;
    loop {
        let wait = deadline.checked_duration_since(Instant::now()).expect("the request span arrives in time");
        let Ok(export) = exports.recv_timeout(wait) else { continue };
        check(&export);
        if holds(&export.body, "tools/call echo") {
            return export.body;
        }
    }
}

/// A gRPC endpoint on 127.0.0.1 (HTTP/2 without TLS): answers every call `grpc-status: 0` with
/// an empty message, and hands on each request's path, content type and body.
async fn grpc_receiver() -> (String, Receiver<Export>) {
    use http_body_util::BodyExt as _;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the receiver");
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (exports, received) = channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let exports = exports.clone();
            let service =
                hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    let exports = exports.clone();
                    async move {
                        let path = request.uri().path().to_owned();
                        let content_type = request
                            .headers()
                            .get("content-type")
                            .and_then(|value| value.to_str().ok())
                            .unwrap_or_default()
                            .to_owned();
                        let body = request.into_body().collect().await.map(|body| body.to_bytes().to_vec());
                        let _ = exports.send(Export { path, content_type, body: body.unwrap_or_default() });
                        let mut trailers = hyper::HeaderMap::new();
                        trailers.insert("grpc-status", hyper::header::HeaderValue::from_static("0"));
                        let frames = [
                            hyper::body::Frame::data(bytes::Bytes::from_static(&[0, 0, 0, 0, 0])),
                            hyper::body::Frame::trailers(trailers),
                        ];
                        let body = http_body_util::StreamBody::new(futures::stream::iter(
                            frames.map(Ok::<_, std::convert::Infallible>),
                        ));
                        let response = hyper::Response::builder()
                            .header("content-type", "application/grpc")
                            .body(body)
                            .unwrap();
                        Ok::<_, std::convert::Infallible>(response)
                    }
                });
            tokio::spawn(
                hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (endpoint, received)
}
