//! What an operator watches: each tool call through the gateway, told as it ends to the
//! [`CallObserver`]s of [`super::GatewayOptions::observers`] — for metrics, an audit log, or
//! anything else — with who made it, where it went, how it ended and how long it took.

use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::JsonObject;

use crate::host::Host;
use crate::server::Principal;
use crate::server::middleware::McpRequest;

/// How a tool call through the gateway ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// The tool answered.
    Ok,
    /// The tool answered with an error result (`isError: true`).
    ToolError,
    /// The call failed with this JSON-RPC error code (the backend's, or the gateway's own:
    /// unreachable, busy, timed out).
    Error(i64),
    /// The caller gave up (or its task was cancelled) before the answer.
    Cancelled,
    /// The gateway refused it (a policy, a rate limit); no backend was called.
    Refused,
}

impl CallOutcome {
    /// A short word for it: `ok`, `tool_error`, `error`, `cancelled`, `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ToolError => "tool_error",
            Self::Error(_) => "error",
            Self::Cancelled => "cancelled",
            Self::Refused => "refused",
        }
    }
}

/// One tool call through the gateway, as it ended.
#[derive(Clone, Copy, Debug)]
pub struct CallRecord<'a> {
    /// The backend's name in the configuration.
    pub server: &'a str,
    /// The tool's name on its backend.
    pub tool: &'a str,
    /// The tool's name at the gateway (`{prefix}__{tool}`).
    pub name: &'a str,
    /// Who called: the verified principal, when the gateway checks tokens.
    pub principal: Option<&'a Principal>,
    /// The arguments the caller sent.
    pub arguments: &'a JsonObject,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Why, when it failed or was refused: the error's message.
    pub detail: Option<&'a str>,
    /// From the gateway's receiving the call to its end.
    pub duration: Duration,
    /// The OpenTelemetry trace the call is part of, when one is exported (feature `otel`).
    pub trace_id: Option<&'a str>,
}

/// Told of every tool call through the gateway as it ends. Called on the call's task: keep
/// it short (count, queue a line), never block.
pub trait CallObserver: Send + Sync {
    /// `record`'s call has ended.
    fn call_ended(&self, record: &CallRecord<'_>);
}

/// Tells `observers` that the gateway refused the tool call `request` (`detail` says why),
/// before any backend saw it.
pub(super) fn tell_refused(
    observers: &[Arc<dyn CallObserver>],
    host: &Host,
    request: &McpRequest,
    detail: &str,
) {
    if observers.is_empty() {
        return;
    }
    let name = request.target().unwrap_or_default();
    let entry = host.tool(name);
    let empty = JsonObject::new();
    let arguments = request.params.as_ref().and_then(|params| params.get("arguments")?.as_object());
    let trace_id = trace_id();
    let record = CallRecord {
        server: entry.as_ref().map_or("", |entry| entry.server.as_str()),
        tool: entry.as_ref().map_or(name, |entry| entry.tool.name.as_str()),
        name,
        principal: request.ctx.principal(),
        arguments: arguments.unwrap_or(&empty),
        outcome: CallOutcome::Refused,
        detail: Some(detail),
        duration: Duration::ZERO,
        trace_id: trace_id.as_deref(),
    };
    for observer in observers {
        observer.call_ended(&record);
    }
}

/// The OpenTelemetry trace the current call is part of, when one is exported.
pub(super) fn trace_id() -> Option<String> {
    #[cfg(feature = "otel")]
    return crate::otel::propagation::current_trace_id();
    #[cfg(not(feature = "otel"))]
    None
}
