//! A tool call through the gateway: the inbound request's wish for progress carried to the
//! backend (its capabilities and log level go with every backend request, `relay.rs`), the backend's progress and log messages brought back, and the call
//! cancelled on the backend when the inbound request is (dropping the backend call sends
//! `notifications/cancelled`).
//!
//! Progress is matched to its call by token, so it is exact. A log message carries nothing
//! that ties it to a request, so it is relayed only while the call is the one call in flight
//! to its backend: with several in flight it could belong to any, and another client's log
//! line is not this client's to read.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::types::LoggingMessageNotificationParams;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::relay::on_behalf_of;
use crate::client::ClientError;
use crate::host::{Host, HostError, HostTool};
use crate::server::RequestContext;

/// The calls in flight through the gateway, counted by backend.
#[derive(Debug, Default)]
pub(super) struct InFlight(Mutex<HashMap<String, usize>>);

/// One call counted in [`InFlight`] until dropped.
struct Entered<'a> {
    in_flight: &'a InFlight,
    server: &'a str,
}

impl InFlight {
    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enter<'a>(&'a self, server: &'a str) -> Entered<'a> {
        *self.counts().entry(server.to_owned()).or_default() += 1;
        Entered { in_flight: self, server }
    }

    /// Whether one call alone is in flight to `server`.
    fn alone(&self, server: &str) -> bool {
        self.counts().get(server) == Some(&1)
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut counts = self.in_flight.counts();
        if let Some(count) = counts.get_mut(self.server) {
            *count -= 1;
            if *count == 0 {
                counts.remove(self.server);
            }
        }
    }
}

/// Calls `entry` on its backend for the inbound request `ctx`.
pub(super) async fn call_tool(
    host: &Host,
    in_flight: &InFlight,
    entry: &HostTool,
    ctx: RequestContext,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorObject> {
    let (progress, mut reports) = mpsc::unbounded_channel();
    let report = ctx.wants_progress().then_some(move |report| drop(progress.send(report)));
    let mut notes = host.client(&entry.server).map(|client| client.notifications());
    let _entered = in_flight.enter(&entry.server);
    let called = host.call_tool_with_progress(&entry.name, Value::Object(arguments), report);
    let called = on_behalf_of(ctx.clone(), called);
    tokio::pin!(called);
    loop {
        tokio::select! {
            biased;
            () = ctx.cancellation().cancelled() => {
                return Err(ErrorObject::internal("the request was cancelled"));
            }
            Some(report) = reports.recv() => ctx.progress(report.progress, report.total, report.message).await,
            note = next_note(&mut notes) => {
                if let Some(log) = log_of(&note)
                    && in_flight.alone(&entry.server)
                {
                    ctx.log(log.level, log.logger.as_deref(), log.data).await;
                }
            }
            outcome = &mut called => {
                while let Ok(report) = reports.try_recv() {
                    ctx.progress(report.progress, report.total, report.message).await;
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

fn log_of(note: &Notification) -> Option<LoggingMessageNotificationParams> {
    let params = note.params.clone().filter(|_| note.method == "notifications/message")?;
    serde_json::from_value(Value::Object(params)).ok()
}

/// The answer to the inbound call when the backend call failed: the backend's own JSON-RPC
/// error as it gave it, else what went wrong.
fn call_error(name: &str, error: HostError) -> ErrorObject {
    match (&error, error.client_error()) {
        (_, Some(ClientError::Rpc(rpc))) => rpc.clone(),
        (HostError::UnknownTool(_), _) => ErrorObject::invalid_params(format!("unknown tool: {name}")),
        _ => ErrorObject::internal(error),
    }
}
