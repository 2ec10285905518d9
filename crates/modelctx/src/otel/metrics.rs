//! The duration histograms of the MCP semantic conventions: of each operation, and of each
//! session.

use std::fmt::Display;
use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, MeterProvider as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;

/// The bucket bounds the conventions recommend for operation durations, in seconds.
const BOUNDS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

struct Instruments {
    #[cfg(feature = "server")]
    server: Histogram<f64>,
    client: Histogram<f64>,
    #[cfg(feature = "server")]
    server_sessions: Histogram<f64>,
    client_sessions: Histogram<f64>,
}

/// Set once metrics are exported; until then nothing is measured.
static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

/// Whether metrics are exported.
pub(crate) fn exported() -> bool {
    INSTRUMENTS.get().is_some()
}

/// Creates the histograms on `provider` (the first provider installed stays).
pub(super) fn install(provider: &SdkMeterProvider) {
    let meter = provider.meter("modelctx");
    let histogram = |name: &'static str, description: &'static str| {
        meter
            .f64_histogram(name)
            .with_unit("s")
            .with_description(description)
            .with_boundaries(BOUNDS.to_vec())
            .build()
    };
    let _ = INSTRUMENTS.set(Instruments {
        #[cfg(feature = "server")]
        server: histogram("mcp.server.operation.duration", "Duration of MCP requests a server handled"),
        client: histogram("mcp.client.operation.duration", "Duration of MCP requests a client sent"),
        #[cfg(feature = "server")]
        server_sessions: histogram("mcp.server.session.duration", "Duration of MCP sessions a server held"),
        client_sessions: histogram("mcp.client.session.duration", "Duration of MCP sessions a client held"),
    });
}

/// `mcp.server.session.duration`, once metrics are exported.
#[cfg(feature = "server")]
pub(crate) fn server_sessions() -> Option<&'static Histogram<f64>> {
    INSTRUMENTS.get().map(|instruments| &instruments.server_sessions)
}

/// `mcp.client.session.duration`, once metrics are exported.
#[cfg(feature = "client")]
pub(crate) fn client_sessions() -> Option<&'static Histogram<f64>> {
    INSTRUMENTS.get().map(|instruments| &instruments.client_sessions)
}

/// One session being measured, for its histogram: recorded when dropped.
pub(crate) struct Session {
    histogram: &'static Histogram<f64>,
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl Session {
    /// Starts measuring a session at `version` over `transport` (`network.transport`), or
    /// `None` when metrics are not exported.
    pub(crate) fn start(
        histogram: Option<&'static Histogram<f64>>,
        version: Option<&dyn Display>,
        transport: &'static str,
    ) -> Option<Self> {
        let histogram = histogram?;
        let mut attributes = vec![KeyValue::new("network.transport", transport)];
        if let Some(version) = version {
            attributes.push(KeyValue::new("mcp.protocol.version", version.to_string()));
        }
        Some(Self { histogram, started: Instant::now(), attributes })
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.histogram.record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}

/// `mcp.server.operation.duration`, once metrics are exported.
#[cfg(feature = "server")]
pub(crate) fn server_operations() -> Option<&'static Histogram<f64>> {
    INSTRUMENTS.get().map(|instruments| &instruments.server)
}

/// `mcp.client.operation.duration`, once metrics are exported.
#[cfg(feature = "client")]
pub(crate) fn client_operations() -> Option<&'static Histogram<f64>> {
    INSTRUMENTS.get().map(|instruments| &instruments.client)
}

/// One operation being measured, for its histogram.
pub(crate) struct Operation {
    histogram: &'static Histogram<f64>,
    started: Instant,
    attributes: Vec<KeyValue>,
}

impl Operation {
    /// Starts measuring `method` (about `tool`, when it is a tool call) for `histogram`, or
    /// `None` when metrics are not exported.
    pub(crate) fn start(
        histogram: Option<&'static Histogram<f64>>,
        method: &str,
        tool: Option<&str>,
        version: impl Display,
    ) -> Option<Self> {
        let histogram = histogram?;
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", method.to_owned()),
            KeyValue::new("mcp.protocol.version", version.to_string()),
        ];
        if let Some(tool) = tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        Some(Self { histogram, started: Instant::now(), attributes })
    }

    /// Records the operation's duration; `error` is what it failed with.
    pub(crate) fn finish(mut self, error: Option<&str>) {
        if let Some(error) = error {
            self.attributes.push(KeyValue::new("error.type", error.to_owned()));
        }
        self.histogram.record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}
