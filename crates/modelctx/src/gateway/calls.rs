//! A tool call through the gateway: the inbound request's wish for progress carried to the
//! backend (its capabilities and log level go with every backend request, `relay.rs`), the
//! backend's progress and log messages brought back, and the call cancelled on the backend
//! when the inbound request is (dropping the backend call sends `notifications/cancelled`).
//!
//! Tasks are relayed: when the inbound call runs as a task or may become one (its tool runs as
//! a task on its backend), the backend may run it as a task too; once the backend answers with
//! a task, the inbound call becomes the gateway's own task (`continue_as_task`), whose work
//! follows the backend's to its end — its questions asked through the gateway's task, its
//! result or error the gateway task's. The gateway's task ends its backend task with it: a
//! task cancelled at the gateway (or expired, or its caller gone) is cancelled on the backend
//! with `tasks/cancel`. Task ids are each side's own; tasks are bound to the gateway's callers
//! by the gateway's server, as any server binds them.
//!
//! Progress is matched to its call by token, so it is exact. A log message of a 2025-11-25
//! backend task names its task (`related-task`) and is relayed for the call that follows that
//! task. Any other carries nothing that ties it to a request; one a backend sends on the call's
//! own response stream (Streamable HTTP) is the call's all the same
//! ([`crate::client::logs_of_requests`]) and is relayed. Any other is relayed only while the
//! call is the one call in flight to its backend: with several in flight it could belong to
//! any, and another client's log line is not this client's to read. The same rules route a
//! 2025-11-25 backend's live questions (`relay.rs`).

use std::sync::{Arc, Mutex, PoisonError};

use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::types::LoggingMessageNotificationParams;
use modelctx_protocol::{JsonObject, Method};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::in_flight::InFlight;
use super::observe::{CallObserver, CallOutcome, CallRecord};
use super::relay::on_behalf_of;
use crate::client::{Client, Progress, TaskStarted, logs_of_requests, when_tasks_start};
use crate::host::{Host, HostError, HostTool};
use crate::server::RequestContext;

/// Progress reports of one call waiting to be relayed; more are dropped.
const PROGRESS_BACKLOG: usize = 64;

/// Log messages of one call's own stream waiting to be relayed; more are dropped.
const LOG_BACKLOG: usize = 64;

/// What every call through the gateway shares: the calls in flight, and who is told of each.
pub(super) struct Calls {
    pub(super) in_flight: Arc<InFlight>,
    pub(super) observers: Arc<[Arc<dyn CallObserver>]>,
}

/// Calls `entry` on its backend for the inbound request `ctx`, telling the observers how it
/// ended.
pub(super) async fn call_tool(
    host: &Host,
    calls: &Calls,
    entry: &HostTool,
    ctx: RequestContext,
    arguments: JsonObject,
) -> Result<CallToolResult, ErrorObject> {
    let mut observed = Observed::new(&calls.observers, entry, &ctx, &arguments);
    let outcome = relay_call(host, &calls.in_flight, entry, ctx.clone(), arguments).await;
    observed.ended(&outcome);
    outcome
}

/// Tells the observers of one call how it ended; dropped before that, it was cancelled.
struct Observed<'a> {
    observers: &'a [Arc<dyn CallObserver>],
    entry: &'a HostTool,
    ctx: &'a RequestContext,
    /// The arguments, kept only when someone is told.
    arguments: Option<JsonObject>,
    started: Instant,
    told: bool,
}

impl<'a> Observed<'a> {
    fn new(
        observers: &'a [Arc<dyn CallObserver>],
        entry: &'a HostTool,
        ctx: &'a RequestContext,
        arguments: &JsonObject,
    ) -> Self {
        let arguments = (!observers.is_empty()).then(|| arguments.clone());
        Self { observers, entry, ctx, arguments, started: Instant::now(), told: observers.is_empty() }
    }

    fn ended(&mut self, outcome: &Result<CallToolResult, ErrorObject>) {
        let (outcome, detail) = match outcome {
            Ok(result) if result.is_error == Some(true) => (CallOutcome::ToolError, None),
            Ok(_) => (CallOutcome::Ok, None),
            Err(_) if self.ctx.is_cancelled() => (CallOutcome::Cancelled, None),
            Err(error) => (CallOutcome::Error(error.code.0), Some(error.message.as_str())),
        };
        self.tell(outcome, detail);
    }

    fn tell(&mut self, outcome: CallOutcome, detail: Option<&str>) {
        if std::mem::replace(&mut self.told, true) {
            return;
        }
        let empty = JsonObject::new();
        let trace_id = super::observe::trace_id();
        let record = CallRecord {
            server: &self.entry.server,
            tool: &self.entry.tool.name,
            name: &self.entry.name,
            principal: self.ctx.principal(),
            arguments: self.arguments.as_ref().unwrap_or(&empty),
            outcome,
            detail,
            duration: self.started.elapsed(),
            trace_id: trace_id.as_deref(),
        };
        for observer in self.observers {
            observer.call_ended(&record);
        }
    }
}

impl Drop for Observed<'_> {
    fn drop(&mut self) {
        self.tell(CallOutcome::Cancelled, None);
    }
}

/// The call itself: progress, logs and questions relayed, a backend task followed.
async fn relay_call(
    host: &Host,
    in_flight: &Arc<InFlight>,
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
    let backend_task = BackendTask::new(host, in_flight, &entry.server);
    // On the heap: the client's call, wrapped three times here, is a large future.
    let called = Box::pin(host.call_tool_with_progress(&entry.name, Value::Object(arguments), report));
    let called = when_tasks_start(backend_task.on_start(&ctx), called);
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
                let ours = match note.params.as_ref().and_then(modelctx_protocol::meta::related_task) {
                    Some(task) => backend_task.is(task),
                    None => in_flight.sole(&entry.server).is_some(),
                };
                if ours {
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
                backend_task.ended();
                return outcome.map_err(|error| call_error(&entry.name, error));
            }
        }
    }
}

/// The task a backend runs a call as, once it answered with one: known to [`InFlight`] while
/// it is followed (its questions name it), and cancelled on the backend (`tasks/cancel`) when
/// the call is dropped before its end — its inbound task cancelled, expired or failed by its
/// limit — unless [`BackendTask::ended`] was called.
struct BackendTask {
    in_flight: Arc<InFlight>,
    server: String,
    client: Option<Arc<Client>>,
    id: Arc<Mutex<Option<String>>>,
    ended: bool,
}

impl BackendTask {
    fn new(host: &Host, in_flight: &Arc<InFlight>, server: &str) -> Self {
        Self {
            in_flight: Arc::clone(in_flight),
            server: server.to_owned(),
            client: host.client(server),
            id: Arc::default(),
            ended: false,
        }
    }

    /// The hook the backend call runs when the backend answers with a task: the task is kept
    /// and known to [`InFlight`], and the inbound call becomes a task of the gateway's (when
    /// it may; else it waits on).
    fn on_start(&self, ctx: &RequestContext) -> TaskStarted {
        let (ctx, kept, in_flight, server) =
            (ctx.clone(), Arc::clone(&self.id), Arc::clone(&self.in_flight), self.server.clone());
        Arc::new(move |id| {
            in_flight.task_started(&server, &id, &ctx);
            *kept.lock().unwrap_or_else(PoisonError::into_inner) = Some(id);
            let ctx = ctx.clone();
            Box::pin(async move { drop(ctx.continue_as_task().await) })
        })
    }

    /// Whether the backend runs the call as task `id`.
    fn is(&self, id: &str) -> bool {
        self.id.lock().unwrap_or_else(PoisonError::into_inner).as_deref() == Some(id)
    }

    /// The backend call came to its end: its task, if any, needs no cancelling.
    fn ended(mut self) {
        self.ended = true;
    }
}

impl Drop for BackendTask {
    fn drop(&mut self) {
        let Some(id) = self.id.lock().unwrap_or_else(PoisonError::into_inner).take() else { return };
        self.in_flight.task_ended(&self.server, &id);
        let (Some(client), false) = (self.client.take(), self.ended) else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            if let Err(error) = client.cancel_task(&id).await {
                tracing::debug!(task = %id, %error, "a backend task left behind could not be cancelled");
            }
        });
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
        (HostError::CircuitOpen { refusal, .. }, _) => {
            let retry_after_ms = u64::try_from(refusal.retry_in.as_millis()).unwrap_or(u64::MAX);
            ErrorObject::internal(&error).with_data(serde_json::json!({ "retryAfterMs": retry_after_ms }))
        }
        _ => ErrorObject::internal(error),
    }
}
