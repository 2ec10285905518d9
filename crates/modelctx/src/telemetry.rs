//! What server and client telemetry share: the measure of one operation's duration, which
//! is nothing unless the `otel` feature exports metrics.

use std::fmt::Display;

use modelctx_protocol::{JsonObject, Method};

/// The `DEBUG` span of one MCP operation at `target`, named `name`, of OpenTelemetry kind
/// `kind`, with the attributes both sides record (and `error.type`,
/// `rpc.response.status_code` to record at the end), then `extra` fields; `Span::none()` when
/// `target` is not enabled at `DEBUG`.
macro_rules! operation_span {
    ($target:expr, $name:literal, $kind:literal, $method:expr, $subject:expr, $version:expr $(, $($extra:tt)*)?) => {
        if tracing::enabled!(target: $target, tracing::Level::DEBUG) {
            tracing::debug_span!(
                target: $target,
                $name,
                otel.name = %$subject.span_name($method.as_str()),
                otel.kind = $kind,
                mcp.method.name = $method.as_str(),
                gen_ai.tool.name = $subject.tool,
                gen_ai.prompt.name = $subject.prompt,
                mcp.resource.uri = $subject.uri,
                mcp.protocol.version = %$version,
                "error.type" = tracing::field::Empty,
                "rpc.response.status_code" = tracing::field::Empty,
                $($($extra)*)?
            )
        } else {
            tracing::Span::none()
        }
    };
}
pub(crate) use operation_span;

/// What a request is about, as the semantic conventions name it.
pub(crate) struct Subject<'a> {
    /// `gen_ai.tool.name`: the tool of a `tools/call`.
    pub(crate) tool: Option<&'a str>,
    /// `gen_ai.prompt.name`: the prompt of a `prompts/get`.
    pub(crate) prompt: Option<&'a str>,
    /// `mcp.resource.uri`: the resource of a request that names one.
    pub(crate) uri: Option<&'a str>,
}

impl<'a> Subject<'a> {
    /// The subject of `method` with `params`.
    pub(crate) fn of(method: &Method, params: Option<&'a JsonObject>) -> Self {
        let param = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
        let (tool, prompt) = match method {
            Method::CallTool => (param("name"), None),
            Method::GetPrompt => (None, param("name")),
            _ => (None, None),
        };
        Self { tool, prompt, uri: param("uri") }
    }

    /// The subject of a `tools/call` of tool `name`.
    #[cfg(feature = "server")]
    pub(crate) fn of_tool(name: &'a str) -> Self {
        Self { tool: Some(name), prompt: None, uri: None }
    }

    /// The span name: `{method} {tool or prompt}`, or the method alone.
    pub(crate) fn span_name(&self, method: &str) -> String {
        self.tool.or(self.prompt).map_or_else(|| method.to_owned(), |target| format!("{method} {target}"))
    }
}

/// Which side measured an operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Side {
    /// A server handled it (`mcp.server.operation.duration`).
    #[cfg(feature = "server")]
    Server,
    /// A client sent it (`mcp.client.operation.duration`).
    #[cfg(feature = "client")]
    Client,
}

/// The duration of one operation, measured when metrics are exported.
pub(crate) struct Measure(#[cfg(feature = "otel")] Option<crate::otel::metrics::Operation>);

impl Measure {
    /// Whether operations are measured at all (metrics are exported).
    pub(crate) fn wanted() -> bool {
        #[cfg(feature = "otel")]
        return crate::otel::metrics::exported();
        #[cfg(not(feature = "otel"))]
        false
    }

    /// Whether nothing is measured.
    fn is_off(&self) -> bool {
        #[cfg(feature = "otel")]
        return self.0.is_none();
        #[cfg(not(feature = "otel"))]
        true
    }

    /// No measure.
    pub(crate) fn off() -> Self {
        #[cfg(feature = "otel")]
        return Self(None);
        #[cfg(not(feature = "otel"))]
        Self()
    }

    /// Starts measuring `method` (about `tool` for a tool call) at `version`.
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(crate) fn start(side: Side, method: &str, tool: Option<&str>, version: impl Display) -> Self {
        #[cfg(feature = "otel")]
        {
            use crate::otel::metrics;
            let histogram = match side {
                #[cfg(feature = "server")]
                Side::Server => metrics::server_operations(),
                #[cfg(feature = "client")]
                Side::Client => metrics::client_operations(),
            };
            Self(metrics::Operation::start(histogram, method, tool, version))
        }
        #[cfg(not(feature = "otel"))]
        Self()
    }

    /// Records the duration; `error` is what the operation failed with (a JSON-RPC code, or
    /// `cancelled`).
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(crate) fn finish(self, error: Option<&str>) {
        #[cfg(feature = "otel")]
        if let Some(operation) = self.0 {
            operation.finish(error);
        }
    }
}

/// The duration of one session (a connection, a legacy session, a client's connection),
/// recorded when dropped, when metrics are exported.
pub(crate) struct SessionMeasure {
    /// Recorded when dropped.
    #[cfg(feature = "otel")]
    _measured: Option<crate::otel::metrics::Session>,
}

impl SessionMeasure {
    /// Starts measuring a session on `side` at `version` (when one is known) over
    /// `transport` (`network.transport`: `pipe`, `tcp`).
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(crate) fn start(side: Side, version: Option<&dyn Display>, transport: &'static str) -> Self {
        #[cfg(feature = "otel")]
        {
            use crate::otel::metrics;
            let histogram = match side {
                #[cfg(feature = "server")]
                Side::Server => metrics::server_sessions(),
                #[cfg(feature = "client")]
                Side::Client => metrics::client_sessions(),
            };
            Self { _measured: metrics::Session::start(histogram, version, transport) }
        }
        #[cfg(not(feature = "otel"))]
        Self {}
    }
}

/// How an operation failed, as its span and its metric record it.
pub(crate) struct Failure {
    /// `error.type`: a JSON-RPC code, or what went wrong (`cancelled`, `timeout`).
    pub(crate) kind: String,
    /// `rpc.response.status_code`: the JSON-RPC code, when there is one.
    pub(crate) code: Option<i64>,
}

/// The span and duration of one operation, server or client side.
pub(crate) struct OperationTelemetry {
    span: tracing::Span,
    measure: Measure,
}

impl OperationTelemetry {
    /// Nothing taken: no span, no measure.
    pub(crate) fn off() -> Self {
        Self { span: tracing::Span::none(), measure: Measure::off() }
    }

    /// `span` and `measure` together.
    pub(crate) fn new(span: tracing::Span, measure: Measure) -> Self {
        Self { span, measure }
    }

    /// The span the operation runs in.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Ends the operation; `failure` (asked only when something records it) says how it
    /// failed, `None` when it did not.
    pub(crate) fn end(self, failure: impl FnOnce() -> Option<Failure>) {
        if self.span.is_disabled() && self.measure.is_off() {
            return;
        }
        let failure = failure();
        if let Some(failure) = &failure
            && !self.span.is_disabled()
        {
            self.span.record("error.type", failure.kind.as_str());
            if let Some(code) = failure.code {
                self.span.record("rpc.response.status_code", code);
            }
        }
        self.measure.finish(failure.as_ref().map(|failure| failure.kind.as_str()));
    }
}
