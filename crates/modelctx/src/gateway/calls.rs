//! A tool call through the gateway: the inbound request's wish for progress carried to the
//! backend (its capabilities and log level go with every backend request, `relay.rs`), the backend's progress and log messages brought back, and the call
//! cancelled on the backend when the inbound request is (dropping the backend call sends
//! `notifications/cancelled`).
//!
//! Progress is matched to its call by token, so it is exact. A log message carries nothing
//! that ties it to a request; one a backend sends on the call's own response stream
//! (Streamable HTTP) is the call's all the same ([`crate::client::logs_of_requests`]) and is
//! relayed. Any other is relayed only while the call is the one call in flight to its backend:
//! with several in flight it could belong to any, and another client's log line is not this
//! client's to read. The same rule routes a 2025-11-25 backend's live questions over stdio
//! (`relay.rs`).

use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::types::LoggingMessageNotificationParams;
use modelctx_protocol::{JsonObject, Method};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::in_flight::InFlight;
use super::relay::on_behalf_of;
use crate::client::{Progress, logs_of_requests};
use crate::host::{Host, HostError, HostTool};
use crate::server::RequestContext;

/// Progress reports of one call waiting to be relayed; more are dropped.
const PROGRESS_BACKLOG: usize = 64;

/// Log messages of one call's own stream waiting to be relayed; more are dropped.
const LOG_BACKLOG: usize = 64;

/// Calls `entry` on its backend for the inbound request `ctx`.
pub(super) async fn call_tool(
    host: &Host,
    in_flight: &InFlight,
    entry: &HostTool,
    ctx: RequestContext,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorObject> {
    // Bounded: a backend reporting faster than the caller takes its reports loses the
    // reports past the bound (a later one supersedes them), never queues without end.
    let (progress, mut reports) = mpsc::channel::<Progress>(PROGRESS_BACKLOG);
    let report = ctx.wants_progress().then_some(move |report| drop(progress.try_send(report)));
    let mut notes = host.client(&entry.server).map(|client| client.notifications());
    let _entered = in_flight.enter(&entry.server, &ctx);
    let (own_logs, mut logs) = mpsc::channel::<Notification>(LOG_BACKLOG);
    let called = host.call_tool_with_progress(&entry.name, Value::Object(arguments), report);
    let called = logs_of_requests(own_logs, on_behalf_of(ctx.clone(), called));
    tokio::pin!(called);
    loop {
        tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => {
                return Err(ErrorObject::internal("the request was cancelled"));
            }
            Some(report) = reports.recv() => ctx.progress(report.progress, report.total, report.message).await,
            Some(note) = logs.recv() => relay_log(&ctx, &note).await,
            note = next_note(&mut notes) => {
                if in_flight.sole(&entry.server).is_some() {
                    relay_log(&ctx, &note).await;
                }
            }
            outcome = &mut called => {
                while let Ok(report) = reports.try_recv() {
                    ctx.progress(report.progress, report.total, report.message).await;
                }
                while let Ok(note) = logs.try_recv() {
                    relay_log(&ctx, &note).await;
                }
                return outcome.map_err(|error| call_error(&entry.name, error));
            }
        }
    }
}

/// The next notification of a backend; pending forever once there can be none.
async fn next_note(notes: &mut Option<broadcast::Receiver<Notification>>) -> Notification {
    loop {
        let Some(receiver) = notes else { return std::future::pending().await };
        match receiver.recv().await {
            Ok(note) => return note,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(missed, "the gateway fell behind a backend's notifications");
            }
            Err(broadcast::error::RecvError::Closed) => *notes = None,
        }
    }
}

/// Sends `note` on to the inbound request `ctx`'s client when it is a log message.
async fn relay_log(ctx: &RequestContext, note: &Notification) {
    if let Some(log) = log_of(note) {
        ctx.log(log.level, log.logger.as_deref(), log.data).await;
    }
}

fn log_of(note: &Notification) -> Option<LoggingMessageNotificationParams> {
    let params = note.params.clone().filter(|_| note.method == Method::LoggingMessage)?;
    serde_json::from_value(Value::Object(params)).ok()
}

/// The answer to the inbound call when the backend call failed: the backend's own JSON-RPC
/// error as it gave it, else what went wrong.
fn call_error(name: &str, error: HostError) -> ErrorObject {
    match (&error, error.client_error()) {
        (_, Some(client)) if let Some(rpc) = client.rpc_error() => rpc.clone(),
        (HostError::UnknownTool(_), _) => ErrorObject::invalid_params(format!("unknown tool: {name}")),
        _ => ErrorObject::internal(error),
    }
}
