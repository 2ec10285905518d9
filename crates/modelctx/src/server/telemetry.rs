//! The `tracing` span of each request a server runs, named and attributed after the
//! OpenTelemetry semantic conventions for MCP: span name `{mcp.method.name} {target}` (the
//! tool or prompt name, when the method has one) in `otel.name`, kind `server`, and the
//! attributes `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
//! `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.session.id` (2025-11-25 sessions),
//! `network.transport` (`pipe`, `tcp`), and on failure `error.type` and
//! `rpc.response.status_code` (the JSON-RPC error code). With the `otel` feature the span
//! continues the caller's trace (`traceparent` in `params._meta`) and the request's duration
//! goes to `mcp.server.operation.duration`.
//!
//! The span is at `DEBUG` level under the target [`TARGET`], so a subscriber that logs at
//! `INFO` pays nothing for it; an exporter enables it with a filter of its own.

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::{JsonObject, Method};

use super::{Answer, RequestContext};
use crate::telemetry::{Failure, Measure, OperationTelemetry, Side, Subject, operation_span};

/// The `tracing` target of request spans.
pub const TARGET: &str = "modelctx::server::request";

/// Starts the telemetry of a request as it is admitted, about `subject`; `params` may carry
/// the caller's trace context. Nothing at all (not even a look at the subject) when neither
/// spans nor metrics are taken.
pub(crate) fn start<'a>(
    ctx: &RequestContext,
    method: &Method,
    subject: impl FnOnce() -> Subject<'a>,
    params: Option<&JsonObject>,
) -> OperationTelemetry {
    if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) && !Measure::wanted() {
        return OperationTelemetry::off();
    }
    let subject = subject();
    OperationTelemetry::new(
        request_span(ctx, method, &subject, params),
        Measure::start(Side::Server, method.as_str(), subject.tool, ctx.protocol_version()),
    )
}

/// How a request failed: its answer's error, or `None` when it was cancelled.
pub(crate) fn failure(answered: Option<&Result<Answer, ErrorObject>>) -> Option<Failure> {
    match answered {
        None => Some(Failure { kind: "cancelled".to_owned(), code: None }),
        Some(Ok(_)) => None,
        Some(Err(error)) => Some(Failure { kind: error.code.0.to_string(), code: Some(error.code.0) }),
    }
}

/// The span of a request; `params` may carry the caller's trace context.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
fn request_span(
    ctx: &RequestContext,
    method: &Method,
    subject: &Subject<'_>,
    params: Option<&JsonObject>,
) -> tracing::Span {
    let version = ctx.protocol_version();
    let span = operation_span!(TARGET, "mcp.server", "server", method, subject, version,
        jsonrpc.request.id = %ctx.request_id(), mcp.session.id = ctx.session_id(),
        network.transport = ctx.network_transport());
    #[cfg(feature = "otel")]
    if !span.is_disabled()
        && let Some(meta) = params.and_then(|p| p.get("_meta")).and_then(|m| m.as_object())
    {
        crate::otel::propagation::continue_trace(&span, meta);
    }
    span
}
