//! The `tracing` span of each request a client sends, after the OpenTelemetry semantic
//! conventions for MCP: `otel.name` `{mcp.method.name} {target}`, kind `client`, the
//! attributes `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
//! `mcp.protocol.version`, and on failure `error.type`. With the `otel` feature the request
//! carries the span's trace context in `params._meta` (`traceparent`, `tracestate`) for the
//! server to continue, and its duration goes to `mcp.client.operation.duration`.
//!
//! At `DEBUG` under [`TARGET`], like the server's: nothing is paid at `INFO`.

use modelctx_protocol::{JsonObject, ProtocolVersion};

use super::ClientError;
use crate::telemetry::{Measure, Side, Subject, operation_span};

/// The `tracing` target of client request spans.
pub const TARGET: &str = "modelctx::client::request";

/// The span and duration of one request, over all its rounds of input.
pub(super) struct RequestTelemetry {
    span: tracing::Span,
    measure: Measure,
}

impl RequestTelemetry {
    /// Starts the telemetry of `method` with `params`, sent at `version`.
    pub(super) fn start(method: &str, params: &JsonObject, version: ProtocolVersion) -> Self {
        if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) && !Measure::wanted() {
            return Self { span: tracing::Span::none(), measure: Measure::off() };
        }
        let subject = Subject::of(method, Some(params));
        let span = operation_span!(TARGET, "mcp.client", "client", method, subject, version);
        Self { span, measure: Measure::start(Side::Client, method, subject.tool, version) }
    }

    /// The span the request is sent in.
    pub(super) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Writes the span's trace context into the request's `_meta`, for the server to continue
    /// (a no-op unless an OpenTelemetry layer records the span).
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))]
    pub(super) fn inject(&self, params: &mut JsonObject) {
        #[cfg(feature = "otel")]
        if !self.span.is_disabled() {
            crate::otel::propagation::inject(&self.span, super::wire::request_meta(params));
        }
    }

    /// Records how the request ended.
    pub(super) fn finish<T>(self, outcome: &Result<T, ClientError>) {
        let error = outcome.as_ref().err().map(|error| match error.rpc_error() {
            Some(rpc) => rpc.code.0.to_string(),
            None if error.is_timeout() => "timeout".to_owned(),
            None => "transport".to_owned(),
        });
        if let Some(code) = &error
            && !self.span.is_disabled()
        {
            self.span.record("error.type", code.as_str());
            if let Some(rpc) = outcome.as_ref().err().and_then(ClientError::rpc_error) {
                self.span.record("rpc.response.status_code", rpc.code.0);
            }
        }
        self.measure.finish(error.as_deref());
    }
}
