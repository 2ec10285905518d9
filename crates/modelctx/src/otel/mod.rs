//! OpenTelemetry export (feature `otel`): the request spans of servers and clients, the
//! metrics `mcp.server.operation.duration` and `mcp.client.operation.duration`, and W3C
//! trace context carried in `params._meta` (`traceparent`, `tracestate`) — the client injects
//! it, the server continues it.
//!
//! Configured by the standard variables:
//! - `OTEL_TRACES_EXPORTER` and `OTEL_METRICS_EXPORTER`: `otlp` (OTLP over HTTP),
//!   `console` (one line per span or data point, on **stderr**, since stdout is the protocol
//!   of a stdio server), or `none` — the default: telemetry is opt-in;
//! - `OTEL_EXPORTER_OTLP_PROTOCOL` (or the per-signal `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` and
//!   `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`): `http/protobuf`, the default, `http/json`, or
//!   `grpc` with the feature `otel-grpc` (refused, saying so, without it);
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318` over HTTP, where
//!   `/v1/traces` and `/v1/metrics` are appended, and `http://localhost:4317` over gRPC) or the
//!   per-signal `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`,
//!   used as given;
//! - `OTEL_SERVICE_NAME` (else `OTEL_RESOURCE_ATTRIBUTES`, else the name the program gives);
//! - `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds, default 60 s).
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//! use tracing_subscriber::util::SubscriberInitExt;
//!
//! let telemetry = modelctx::otel::Telemetry::from_env("my-server").expect("valid OTEL_* settings");
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(telemetry.layer())
//!     .init();
//! // … serve …
//! telemetry.shutdown(); // exports what is left
//! ```

mod console;
#[cfg(feature = "otel-grpc")]
mod grpc;
mod http_client;
pub(crate) mod metrics;
pub(crate) mod propagation;

use std::time::Duration;

use http_client::ExportRuntime;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{Key, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::{EnvFilter, Layer, registry::LookupSpan};

/// Why telemetry could not be set up.
pub type OtelError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What the spans exporter keeps: the request spans of servers and clients at `DEBUG`,
/// everything else at `INFO`, and never the spans of the HTTP stack that carries the export
/// (each export would make more to export).
const EXPORTED: &str = "info,modelctx::server::request=debug,modelctx::client::request=debug,h2=off,hyper=off,\
                        hyper_util=off,reqwest=off,tower=off,opentelemetry=off,opentelemetry_sdk=off,\
                        opentelemetry_otlp=off";

/// Where one signal goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exporter {
    Otlp,
    Console,
    None,
}

impl Exporter {
    /// The exporter `variable` names: `otlp`, `console` (or `stdout`, still written to
    /// stderr), `none`; unset is `none`.
    fn from_env(variable: &str) -> Result<Self, OtelError> {
        let value = std::env::var(variable).unwrap_or_default();
        match value.trim().to_ascii_lowercase().as_str() {
            "otlp" => Ok(Self::Otlp),
            "console" | "stdout" => Ok(Self::Console),
            "" | "none" => Ok(Self::None),
            other => Err(format!("{variable}={other} is not one of otlp, console, none").into()),
        }
    }
}

/// How a signal is sent over OTLP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    /// OTLP over HTTP, in protobuf or JSON.
    Http(Protocol),
    /// OTLP over gRPC (feature `otel-grpc`).
    #[cfg(feature = "otel-grpc")]
    Grpc,
}

/// The OTLP transport of a signal: its own variable `signal_variable`, else
/// `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf` (the specification's default).
fn transport(signal_variable: &str) -> Result<Transport, OtelError> {
    let (variable, value) = [signal_variable, "OTEL_EXPORTER_OTLP_PROTOCOL"]
        .into_iter()
        .find_map(|variable| std::env::var(variable).ok().map(|value| (variable, value)))
        .unwrap_or(("", String::new()));
    match value.trim() {
        "" | "http/protobuf" => Ok(Transport::Http(Protocol::HttpBinary)),
        "http/json" => Ok(Transport::Http(Protocol::HttpJson)),
        #[cfg(feature = "otel-grpc")]
        "grpc" => Ok(Transport::Grpc),
        #[cfg(not(feature = "otel-grpc"))]
        "grpc" => Err(format!(
            "{variable}=grpc: this build exports OTLP over HTTP only (http/protobuf, http/json); \
             the feature otel-grpc adds gRPC"
        )
        .into()),
        other => Err(format!("{variable}={other} is not one of http/protobuf, http/json, grpc").into()),
    }
}

/// The OTLP span exporter `OTEL_*` asks for.
fn span_exporter(runtime: &ExportRuntime) -> Result<opentelemetry_otlp::SpanExporter, OtelError> {
    Ok(match transport("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")? {
        Transport::Http(protocol) => opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(protocol)
            .with_http_client(runtime.http_client()?)
            .build()?,
        #[cfg(feature = "otel-grpc")]
        Transport::Grpc => grpc::span_exporter(&runtime.handle()?)?,
    })
}

/// The OTLP metric exporter `OTEL_*` asks for.
fn metric_exporter(runtime: &ExportRuntime) -> Result<opentelemetry_otlp::MetricExporter, OtelError> {
    Ok(match transport("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")? {
        Transport::Http(protocol) => opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(protocol)
            .with_http_client(runtime.http_client()?)
            .build()?,
        #[cfg(feature = "otel-grpc")]
        Transport::Grpc => grpc::metric_exporter(&runtime.handle()?)?,
    })
}

/// The configured exporters; export what is left with [`Telemetry::shutdown`].
pub struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
    /// Where the OTLP exporters' requests run; after the providers, so it outlives them.
    _runtime: ExportRuntime,
}

impl Telemetry {
    /// Sets up the exporters the `OTEL_*` variables ask for. `service_name` is used when
    /// neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names the service.
    pub fn from_env(service_name: &str) -> Result<Self, OtelError> {
        let traces = Exporter::from_env("OTEL_TRACES_EXPORTER")?;
        let metrics = Exporter::from_env("OTEL_METRICS_EXPORTER")?;
        // Nothing to export: no resource to describe (a stdio server a host spawns per
        // session starts without touching the SDK).
        if (traces, metrics) == (Exporter::None, Exporter::None) {
            return Ok(Self { tracer: None, meter: None, _runtime: ExportRuntime::default() });
        }
        let resource = resource(service_name);
        let runtime = ExportRuntime::default();
        let tracer = match traces {
            Exporter::None => None,
            // Console spans are written as each one ends, so they show at once.
            Exporter::Console => Some(
                SdkTracerProvider::builder()
                    .with_resource(resource.clone())
                    .with_simple_exporter(console::Spans)
                    .build(),
            ),
            Exporter::Otlp => {
                let exporter = span_exporter(&runtime)?;
                Some(
                    SdkTracerProvider::builder()
                        .with_resource(resource.clone())
                        .with_batch_exporter(exporter)
                        .build(),
                )
            }
        };
        let meter = match metrics {
            Exporter::None => None,
            Exporter::Console => Some(
                SdkMeterProvider::builder()
                    .with_resource(resource)
                    .with_reader(
                        PeriodicReader::builder(console::Metrics).with_interval(export_interval()).build(),
                    )
                    .build(),
            ),
            Exporter::Otlp => {
                let exporter = metric_exporter(&runtime)?;
                Some(
                    SdkMeterProvider::builder()
                        .with_resource(resource)
                        .with_reader(
                            PeriodicReader::builder(exporter).with_interval(export_interval()).build(),
                        )
                        .build(),
                )
            }
        };
        if let Some(meter) = &meter {
            metrics::install(meter);
        }
        Ok(Self { tracer, meter, _runtime: runtime })
    }

    /// Whether anything is exported.
    pub fn is_enabled(&self) -> bool {
        self.tracer.is_some() || self.meter.is_some()
    }

    /// The `tracing` layer that exports spans, with its own filter (request spans at `DEBUG`,
    /// the rest at `INFO`); `None` when traces are not exported.
    pub fn layer<S>(&self) -> Option<impl Layer<S> + Send + Sync + 'static>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
    {
        let tracer = self.tracer.as_ref()?.tracer("modelctx");
        Some(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_location(false)
                .with_threads(false)
                .with_target(false)
                .with_tracked_inactivity(false)
                .with_filter(EnvFilter::new(EXPORTED)),
        )
    }

    /// Exports what is left and stops the exporters. It blocks (up to the exporters' own
    /// timeouts): call it outside async code, or in `spawn_blocking`.
    pub fn shutdown(self) {
        if let Some(tracer) = self.tracer
            && let Err(error) = tracer.shutdown()
        {
            eprintln!("modelctx: exporting the last spans failed: {error}");
        }
        if let Some(meter) = self.meter
            && let Err(error) = meter.shutdown()
        {
            eprintln!("modelctx: exporting the last metrics failed: {error}");
        }
    }
}

/// `OTEL_METRIC_EXPORT_INTERVAL` in milliseconds, default 60 s.
fn export_interval() -> Duration {
    std::env::var("OTEL_METRIC_EXPORT_INTERVAL")
        .ok()
        .and_then(|ms| ms.trim().parse().ok())
        .map_or(Duration::from_secs(60), Duration::from_millis)
}

/// The service's resource. `OTEL_SERVICE_NAME` wins over `OTEL_RESOURCE_ATTRIBUTES` (the
/// SDK's detectors let the latter win), and `default` over the SDK's `unknown_service`.
fn resource(default: &str) -> Resource {
    let named = std::env::var("OTEL_SERVICE_NAME").ok().filter(|name| !name.trim().is_empty());
    let name = named
        .or_else(|| {
            let detected = Resource::builder().build();
            let name = detected.get(&Key::from_static_str("service.name"))?.to_string();
            (!name.starts_with("unknown_service")).then_some(name)
        })
        .unwrap_or_else(|| default.to_owned());
    Resource::builder()
        .with_service_name(name)
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build()
}
