//! What server and client telemetry share: the measure of one operation's duration, which
//! is nothing unless the `otel` feature exports metrics.

use std::fmt::Display;

use modelctx_protocol::jsonrpc::MethodName as _;
use modelctx_protocol::{JsonObject, v2026};

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
                otel.name = %$subject.span_name($method),
                otel.kind = $kind,
                mcp.method.name = $method,
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
    pub(crate) fn of(method: &str, params: Option<&'a JsonObject>) -> Self {
        let param = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
        let (tool, prompt) = match method {
            v2026::CallTool::NAME => (param("name"), None),
            v2026::GetPrompt::NAME => (None, param("name")),
            _ => (None, None),
        };
        Self { tool, prompt, uri: param("uri") }
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
    Server,
    /// A client sent it (`mcp.client.operation.duration`).
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
        return Self(crate::otel::metrics::Operation::start(side, method, tool, version));
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
