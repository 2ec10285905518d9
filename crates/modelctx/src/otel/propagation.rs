//! W3C trace context in `params._meta`: the keys `traceparent` and `tracestate`, as the MCP
//! semantic conventions carry them.

use modelctx_protocol::JsonObject;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::Value;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// Reads trace context from a `_meta` object.
struct FromMeta<'a>(&'a JsonObject);

impl Extractor for FromMeta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Writes trace context into a `_meta` object.
struct IntoMeta<'a>(&'a mut JsonObject);

impl Injector for IntoMeta<'_> {
    fn set(&mut self, key: &str, value: String) {
        // The propagator sets `tracestate` even when it is empty.
        if !value.is_empty() {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
}

/// Makes the caller's span, named by `meta.traceparent`, the parent of `span` (before it is
/// entered). Without a valid `traceparent` the span starts a trace of its own.
pub(crate) fn continue_trace(span: &tracing::Span, meta: &JsonObject) {
    if !meta.contains_key("traceparent") {
        return;
    }
    let parent = TraceContextPropagator::new().extract(&FromMeta(meta));
    // Fails only when no OpenTelemetry layer records the span: nothing to continue then.
    let _ = span.set_parent(parent);
}

/// Writes the context of `span` into `meta`, for the server to continue; nothing when the
/// span is not recorded by an OpenTelemetry layer.
pub(crate) fn inject(span: &tracing::Span, meta: &mut JsonObject) {
    TraceContextPropagator::new().inject_context(&span.context(), &mut IntoMeta(meta));
}
