//! The `tracing` span of each request, after the OpenTelemetry semantic conventions for MCP,
//! read by a real `tracing-subscriber` layer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use modelctx::server::{Server, ToolDef, telemetry};
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::types::Implementation;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};

type Fields = HashMap<String, String>;

/// The target of the client's request spans.
const CLIENT_TARGET: &str = "modelctx::client::request";

/// Keeps the fields of every span of the server's and the client's request targets.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<HashMap<u64, Fields>>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if ![telemetry::TARGET, CLIENT_TARGET].contains(&attrs.metadata().target()) {
            return;
        }
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        self.0.lock().unwrap().insert(id.into_u64(), fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(fields) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Collect(fields));
        }
    }
}

impl Spans {
    /// The server's span named `name`.
    fn named(&self, name: &str) -> Fields {
        self.of_kind("server", name)
    }

    /// The span of OpenTelemetry kind `kind` named `name`.
    fn of_kind(&self, kind: &str, name: &str) -> Fields {
        let spans = self.0.lock().unwrap();
        let found = spans.values().find(|fields| {
            fields.get("otel.name").map(String::as_str) == Some(name)
                && fields.get("otel.kind").map(String::as_str) == Some(kind)
        });
        found.cloned().unwrap_or_else(|| panic!("no {kind} span {name:?} among {spans:?}"))
    }
}

#[tokio::test]
async fn every_request_has_a_server_span_named_and_attributed_after_the_mcp_conventions() {
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _default = tracing::subscriber::set_default(subscriber);

    let server =
        Server::builder("telemetry", "1").tool(ToolDef::new("hello", || async { "hello" })).build().unwrap();
    let client = TestClient::start(server);
    let call = with_modern_meta(json!({"name": "hello"}), json!({}));
    client.request_with_id(7.into(), "tools/call", call).await.unwrap();
    let unknown = with_modern_meta(json!({"name": "missing"}), json!({}));
    client.request_with_id(8.into(), "tools/call", unknown).await.unwrap_err();
    client.request_with_id(9.into(), "tools/list", with_modern_meta(json!({}), json!({}))).await.unwrap();

    let call = spans.named("tools/call hello");
    assert_eq!(call["otel.kind"], "server");
    assert_eq!(call["mcp.method.name"], "tools/call");
    assert_eq!(call["gen_ai.tool.name"], "hello");
    assert_eq!(call["jsonrpc.request.id"], "7");
    assert_eq!(call["mcp.protocol.version"], "2026-07-28");
    assert!(!call.contains_key("error.type"), "a success records no error: {call:?}");

    let failed = spans.named("tools/call missing");
    assert_eq!(failed["error.type"], "-32602");
    assert_eq!(failed["rpc.response.status_code"], "-32602");

    // No low-cardinality target: the method alone.
    let list = spans.named("tools/list");
    assert!(!list.contains_key("gen_ai.tool.name"), "{list:?}");
}

/// A 2025-11-25 Streamable HTTP session's id is the handler's `ctx.session_id()` and the
/// span's `mcp.session.id`.
#[tokio::test]
async fn a_legacy_http_requests_span_names_its_session() {
    use modelctx::client::{Client, ClientOptions, EraMode};
    use modelctx::server::RequestContext;
    use modelctx::transport::http::{HttpOptions, serve_http};

    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    let _default = tracing::subscriber::set_default(subscriber);

    let server = Server::builder("telemetry", "1")
        .tool(ToolDef::new("session", |ctx: RequestContext| async move {
            ctx.session_id().unwrap_or("none").to_owned()
        }))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), std::future::pending()));
    let options =
        ClientOptions { mode: EraMode::Legacy, ..ClientOptions::new(Implementation::new("t", "1")) };
    let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
    let result = client.call_tool("session", json!({})).await.unwrap();
    let id = serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap().to_owned();
    assert_ne!(id, "none", "a legacy HTTP request knows its session");
    let served = spans.named("tools/call session");
    assert_eq!(served["mcp.session.id"], id);
    // The client's span of the same request: its transport and its request id, as the
    // server's span names it.
    let sent = spans.of_kind("client", "tools/call session");
    assert_eq!(sent["network.transport"], "tcp");
    assert_eq!(sent["jsonrpc.request.id"], served["jsonrpc.request.id"]);
}
