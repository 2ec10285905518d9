//! The `console` exporters: one line per span or data point on stderr (stdout is the
//! protocol of a stdio server, and `opentelemetry-stdout` writes only there).

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use opentelemetry::SpanId;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

/// Spans, as `otel span NAME kind=… trace_id=… span_id=… parent=… duration=… status=…
/// KEY=VALUE…`.
#[derive(Debug)]
pub(super) struct Spans;

impl SpanExporter for Spans {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut lines = String::new();
        for span in batch {
            let parent = match span.parent_span_id {
                SpanId::INVALID => "none".to_owned(),
                id if span.parent_span_is_remote => format!("{id}(remote)"),
                id => id.to_string(),
            };
            let duration = span.end_time.duration_since(span.start_time).unwrap_or_default();
            let _ = write!(
                lines,
                "otel span {:?} kind={:?} trace_id={} span_id={} parent={parent} duration={duration:?} status={:?}",
                span.name,
                span.span_kind,
                span.span_context.trace_id(),
                span.span_context.span_id(),
                span.status,
            );
            for attribute in &span.attributes {
                let _ = write!(lines, " {}={}", attribute.key, attribute.value);
            }
            lines.push('\n');
        }
        let _ = std::io::stderr().lock().write_all(lines.as_bytes());
        Ok(())
    }
}

/// Histogram data points, as `otel metric NAME unit=… count=… sum=… KEY=VALUE…`.
#[derive(Debug)]
pub(super) struct Metrics;

impl PushMetricExporter for Metrics {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let mut lines = String::new();
        for metric in metrics.scope_metrics().flat_map(|scope| scope.metrics()) {
            let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else { continue };
            for point in histogram.data_points() {
                let _ = write!(
                    lines,
                    "otel metric {} unit={} count={} sum={:.6}",
                    metric.name(),
                    metric.unit(),
                    point.count(),
                    point.sum()
                );
                for attribute in point.attributes() {
                    let _ = write!(lines, " {}={}", attribute.key, attribute.value);
                }
                lines.push('\n');
            }
        }
        let _ = std::io::stderr().lock().write_all(lines.as_bytes());
        Ok(())
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> Temporality {
        Temporality::Cumulative
    }
}
