//! The `tracing` span of each request a server runs, named and attributed after the
//! OpenTelemetry semantic conventions for MCP: span name `{mcp.method.name} {target}` (the
//! tool or prompt name, when the method has one) in `otel.name`, kind `server`, and the
//! attributes `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.prompt.name`, `mcp.resource.uri`,
//! `jsonrpc.request.id`, `mcp.protocol.version`, and on failure `error.type` and
//! `rpc.response.status_code` (the JSON-RPC error code).
//!
//! The span is at `DEBUG` level under the target [`TARGET`], so a subscriber that logs at
//! `INFO` pays nothing for it; an exporter enables it with a filter of its own.

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use tracing::field::Empty;

use super::RequestContext;

/// The `tracing` target of request spans.
pub const TARGET: &str = "modelctx::server::request";

/// The span of one request, entered while its handler runs.
pub(crate) fn request_span(ctx: &RequestContext, method: &str, params: Option<&JsonObject>) -> tracing::Span {
    if !tracing::enabled!(target: TARGET, tracing::Level::DEBUG) {
        return tracing::Span::none();
    }
    let param = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
    let (tool, prompt) = match method {
        "tools/call" => (param("name"), None),
        "prompts/get" => (None, param("name")),
        _ => (None, None),
    };
    tracing::debug_span!(
        target: TARGET,
        "mcp.server",
        otel.name = %tool.or(prompt).map_or_else(|| method.to_owned(), |target| format!("{method} {target}")),
        otel.kind = "server",
        mcp.method.name = method,
        gen_ai.tool.name = tool,
        gen_ai.prompt.name = prompt,
        mcp.resource.uri = param("uri"),
        jsonrpc.request.id = %ctx.request_id(),
        mcp.protocol.version = %ctx.protocol_version(),
        "error.type" = Empty,
        "rpc.response.status_code" = Empty,
    )
}

/// Records on `span` that the request failed with `error`.
pub(crate) fn record_error(span: &tracing::Span, error: &ErrorObject) {
    let code = error.code.0.to_string();
    span.record("error.type", code.as_str());
    span.record("rpc.response.status_code", code.as_str());
}
