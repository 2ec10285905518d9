//! What an operator watches: each tool call through the gateway, told as it ends to the
//! [`CallObserver`]s of [`super::GatewayOptions::observers`] — for metrics, an audit log, or
//! anything else — with who made it, where it went, how it ended and how long it took.

use std::time::Duration;

use modelctx_protocol::JsonObject;

use crate::server::Principal;

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
}

impl CallOutcome {
    /// A short word for it: `ok`, `tool_error`, `error`, `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ToolError => "tool_error",
            Self::Error(_) => "error",
            Self::Cancelled => "cancelled",
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
