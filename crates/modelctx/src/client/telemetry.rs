//! The `tracing` span of each request a client sends, after the OpenTelemetry semantic
//! conventions for MCP: `otel.name` `{mcp.method.name} {target}`, kind `client`, the
//! attributes `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
//! `mcp.protocol.version`, `network.transport` (`pipe` over stdio, `tcp` over HTTP),
//! `jsonrpc.request.id` (of the last round, when a request took several), and on failure
//! `error.type`. With the `otel` feature the request
//! carries the span's trace context in `params._meta` (`traceparent`, `tracestate`) for the
//! server to continue, and its duration goes to `mcp.client.operation.duration`.
//!
//! At `DEBUG` under [`TARGET`], like the server's: nothing is paid at `INFO`.

use modelctx_protocol::jsonrpc::RequestId;
use modelctx_protocol::{JsonObject, Method, ProtocolVersion};

use super::ClientError;
use crate::telemetry::{Failure, Measure, OperationTelemetry, Side, Subject, operation_span};

/// The `tracing` target of client request spans.
pub const TARGET: &str = "modelctx::client::request";

/// Starts the telemetry of `method` with `params`, sent at `version` over `transport` (its
/// `network.transport`), over all its rounds of input: nothing at all when neither spans nor
/// metrics are taken.
pub(super) fn start(
    method: &Method,
    params: &JsonObject,
    version: ProtocolVersion,
    transport: &'static str,
) -> OperationTelemetry {
    if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) && !Measure::wanted() {
        return OperationTelemetry::off();
    }
    let subject = Subject::of(method, Some(params));
    let span = operation_span!(
        TARGET,
        "mcp.client",
        "client",
        method,
        subject,
        version,
        network.transport = transport,
        "jsonrpc.request.id" = tracing::field::Empty
    );
    OperationTelemetry::new(span, Measure::start(Side::Client, method.as_str(), subject.tool, version))
}

/// Writes the span's trace context into the request's `_meta`, for the server to continue
/// (a no-op unless an OpenTelemetry layer records the span).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(super) fn inject(telemetry: &OperationTelemetry, params: &mut JsonObject) {
    #[cfg(feature = "otel")]
    if !telemetry.span().is_disabled() {
        crate::otel::propagation::inject(telemetry.span(), super::wire::request_meta(params));
    }
}

/// Records `id`, the request just sent, on the request's span (the current one; nothing when
/// spans are not taken).
pub(super) fn record_request_id(id: &RequestId) {
    tracing::Span::current().record("jsonrpc.request.id", tracing::field::display(id));
}

/// How a request failed.
pub(super) fn failure<T>(outcome: &Result<T, ClientError>) -> Option<Failure> {
    let error = outcome.as_ref().err()?;
    let code = error.rpc_error().map(|rpc| rpc.code.0);
    let kind = match code {
        Some(code) => code.to_string(),
        None if error.is_timeout() => "timeout".to_owned(),
        None => "transport".to_owned(),
    };
    Some(Failure { kind, code })
}
