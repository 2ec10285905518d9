//! OTLP over gRPC (feature `otel-grpc`): the OTLP crate's tonic exporters, built on the
//! exporters' own runtime so that their connection lives there — the SDK exports from threads
//! of its own, outside any tokio runtime. The endpoint comes from `OTEL_EXPORTER_OTLP_ENDPOINT`
//! (or the per-signal variable), `http://localhost:4317` by default, as the OTLP crate reads it.

use opentelemetry_otlp::{MetricExporter, SpanExporter};
use tokio::runtime::Handle;

use super::OtelError;

/// The span exporter over gRPC.
pub(super) fn span_exporter(runtime: &Handle) -> Result<SpanExporter, OtelError> {
    let _inside = runtime.enter();
    Ok(SpanExporter::builder().with_tonic().build()?)
}

/// The metric exporter over gRPC.
pub(super) fn metric_exporter(runtime: &Handle) -> Result<MetricExporter, OtelError> {
    let _inside = runtime.enter();
    Ok(MetricExporter::builder().with_tonic().build()?)
}
