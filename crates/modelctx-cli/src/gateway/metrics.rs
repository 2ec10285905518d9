//! `modelctx gateway --metrics ADDR`: the operator's endpoint, beside the MCP one — `/metrics`
//! in the Prometheus (OpenMetrics) text format, `/healthz` (the process serves) and `/readyz`
//! (every backend is connected).
//!
//! Metrics, by `prometheus-client`:
//! - `mcp_gateway_calls_total{server, tool, outcome}`: tool calls, by how they ended (`ok`,
//!   `tool_error`, `error`, `cancelled`, `refused` by a policy or a rate limit);
//! - `mcp_gateway_call_duration_seconds{server, tool}`: how long they took;
//! - `mcp_gateway_backend_up{server}`: 1 while the backend is connected, 0 otherwise;
//! - `mcp_gateway_backend_circuit_open{server}`: 1 while the backend's circuit refuses calls;
//! - `mcp_gateway_audit_dropped_total`: audit lines dropped because the writer fell behind.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use modelctx::gateway::Gateway;
use modelctx::gateway::observe::{CallObserver, CallRecord};
use modelctx::host::ServerState;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// The labels of a call.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    server: String,
    tool: String,
    outcome: String,
}

/// The labels of a tool.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    server: String,
    tool: String,
}

/// The labels of a backend.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabels {
    server: String,
}

/// The gateway's metrics: counted as calls end, read at each scrape.
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    durations: Family<ToolLabels, Histogram>,
    up: Family<ServerLabels, Gauge>,
    circuit_open: Family<ServerLabels, Gauge>,
    /// Audit lines dropped (`audit.rs` counts them here).
    pub audit_dropped: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "mcp_gateway_calls",
            "Tool calls through the gateway, by how they ended",
            calls.clone(),
        );
        // 5 ms to about 80 s.
        let durations = Family::<ToolLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.005, 2.0, 15))
        });
        registry.register(
            "mcp_gateway_call_duration_seconds",
            "How long tool calls through the gateway took",
            durations.clone(),
        );
        let up = Family::<ServerLabels, Gauge>::default();
        registry.register(
            "mcp_gateway_backend_up",
            "Whether each backend is connected (1) or not (0)",
            up.clone(),
        );
        let circuit_open = Family::<ServerLabels, Gauge>::default();
        registry.register(
            "mcp_gateway_backend_circuit_open",
            "Whether each backend's circuit is open (1: calls are refused at once) or not (0)",
            circuit_open.clone(),
        );
        let audit_dropped = Counter::default();
        registry.register(
            "mcp_gateway_audit_dropped",
            "Audit lines dropped because the audit writer fell behind",
            audit_dropped.clone(),
        );
        Self { registry, calls, durations, up, circuit_open, audit_dropped }
    }
}

impl CallObserver for Metrics {
    fn call_ended(&self, record: &CallRecord<'_>) {
        let (server, tool) = (record.server.to_owned(), record.tool.to_owned());
        let outcome = record.outcome.as_str().to_owned();
        self.calls.get_or_create(&CallLabels { server: server.clone(), tool: tool.clone(), outcome }).inc();
        self.durations.get_or_create(&ToolLabels { server, tool }).observe(record.duration.as_secs_f64());
    }
}

impl Metrics {
    /// The text a scrape reads, each backend's state read now.
    fn scrape(&self, gateway: &Gateway) -> Result<String, std::fmt::Error> {
        // Backends a reload removed are not reported.
        self.up.clear();
        self.circuit_open.clear();
        for status in gateway.host().status() {
            let server = ServerLabels { server: status.name };
            self.up.get_or_create(&server).set(i64::from(status.state == ServerState::Connected));
            self.circuit_open.get_or_create(&server).set(i64::from(status.circuit_open));
        }
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// What the endpoint serves from.
#[derive(Clone)]
struct Watched {
    gateway: Arc<Gateway>,
    metrics: Arc<Metrics>,
}

/// The endpoint's routes.
pub fn router(gateway: Arc<Gateway>, metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
        .with_state(Watched { gateway, metrics })
}

async fn scrape(State(watched): State<Watched>) -> impl IntoResponse {
    match watched.metrics.scrape(&watched.gateway) {
        Ok(text) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")],
            text,
        )
            .into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the metrics could not be written\n").into_response(),
    }
}

/// `200 ready` when every backend is connected; else `503`, with each one that is not.
async fn ready(State(watched): State<Watched>) -> impl IntoResponse {
    let waiting: Vec<String> = watched
        .gateway
        .host()
        .status()
        .into_iter()
        .filter(|status| status.state != ServerState::Connected)
        .map(|status| match status.last_error {
            Some(why) => format!("{}: {} ({why})", status.name, status.state),
            None => format!("{}: {}", status.name, status.state),
        })
        .collect();
    if waiting.is_empty() {
        (StatusCode::OK, "ready\n".to_owned())
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, format!("not ready:\n{}\n", waiting.join("\n")))
    }
}
