//! W3C trace context in `params._meta`: the keys `traceparent` and `tracestate`, as the MCP
//! semantic conventions carry them.

use modelctx_protocol::JsonObject;
#[cfg(feature = "server")]
use opentelemetry::propagation::Extractor;
use opentelemetry::propagation::{Injector, TextMapPropagator as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::Value;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

#[cfg(feature = "server")]
/// Reads trace context from a `_meta` object.
struct FromMeta<'a>(&'a JsonObject);

#[cfg(feature = "server")]
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

#[cfg(feature = "server")]
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

/// The trace id of the current span, when it is in a sampled OpenTelemetry trace (an exporter
/// is installed); `None` otherwise.
#[cfg(feature = "gateway")]
pub(crate) fn current_trace_id() -> Option<String> {
    use opentelemetry::trace::TraceContextExt as _;
    let context = tracing::Span::current().context();
    let span = context.span();
    let ids = span.span_context();
    ids.is_valid().then(|| ids.trace_id().to_string())
}

/// Writes the context of `span` into `meta`, for the server to continue; nothing when the
/// span is not recorded by an OpenTelemetry layer.
pub(crate) fn inject(span: &tracing::Span, meta: &mut JsonObject) {
    TraceContextPropagator::new().inject_context(&span.context(), &mut IntoMeta(meta));
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::{TraceContextExt as _, TracerProvider as _};
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    const CALLER: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn meta(traceparent: &str) -> JsonObject {
        serde_json::json!({"traceparent": traceparent, "tracestate": "vendor=1"})
            .as_object()
            .cloned()
            .unwrap()
    }

    /// BASE-19: trace context in `_meta` is W3C Trace Context: the `traceparent` written is
    /// `version-traceid-spanid-flags` in lowercase hex, one that is read continues its trace,
    /// and one that is not W3C (a wrong length, upper case, the all-zero trace id) is ignored.
    #[test]
    fn base_19_trace_context_in_meta_is_w3c_both_ways() {
        let provider = SdkTracerProvider::builder().build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let trace_of = |traceparent: &str| {
                let span = tracing::info_span!("request");
                continue_trace(&span, &meta(traceparent));
                span.context().span().span_context().trace_id().to_string()
            };
            assert_eq!(trace_of(CALLER), "4bf92f3577b34da6a3ce929d0e0e4736", "continued");
            for malformed in [
                "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "not a traceparent",
            ] {
                assert_ne!(trace_of(malformed), "4bf92f3577b34da6a3ce929d0e0e4736", "{malformed}");
            }
            let span = tracing::info_span!("call");
            let _entered = span.enter();
            let mut written = JsonObject::new();
            inject(&span, &mut written);
            let traceparent = written["traceparent"].as_str().unwrap();
            let parts: Vec<&str> = traceparent.split('-').collect();
            assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 32, 16, 2], "{traceparent}");
            assert!(traceparent.chars().all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)));
            assert_eq!(parts[0], "00");
        });
    }
}
