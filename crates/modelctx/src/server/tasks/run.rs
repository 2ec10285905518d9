//! Where a `tools/call` becomes a task, how the task's work runs, and the `tasks/*` methods.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::FutureExt as _;
use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::tasks;
use modelctx_protocol::{Era, JsonObject, Method, v2025};
use serde_json::{Value, json};

use super::{Running, TaskRecord, TaskSupport};
use crate::server::dispatch::Asked;
use crate::server::params::to_object;
use crate::server::{Principal, RequestContext, Server};

/// A tool call's work, owned so that it can move into a task halfway.
pub(super) type Work = BoxFuture<'static, Result<CallToolResult, ErrorObject>>;

/// How a call that may become a task in its handler ended its synchronous part.
enum Detached {
    /// The handler finished without becoming a task.
    Finished(CallToolResult),
    /// The handler asked to become a task; the rest of its work.
    Start(Work),
}

/// Polls a tool call until it finishes or its handler calls `continue_as_task`.
struct Detachable {
    work: Option<Work>,
    ctx: RequestContext,
}

impl Future for Detachable {
    type Output = Result<Detached, ErrorObject>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(work) = self.work.as_mut() else { return Poll::Pending };
        match work.as_mut().poll(cx) {
            Poll::Ready(outcome) => Poll::Ready(outcome.map(Detached::Finished)),
            Poll::Pending if self.ctx.task_requested() => {
                Poll::Ready(Ok(Detached::Start(self.work.take().expect("checked above"))))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Whom a task is bound to: the principal; for a legacy session without one, the session
/// (so that `tasks/list` shows a session its own tasks only, T25-21/22).
pub(super) fn owner(ctx: &RequestContext) -> Option<String> {
    ctx.principal().map(Principal::key).or_else(|| match ctx.era() {
        Era::Legacy => ctx.session_id().map(|session| format!("session:{session}")),
        Era::Modern => None,
    })
}

/// A tool's result as the call's era has it.
fn in_era(server: &Server, result: CallToolResult, era: Era) -> Result<JsonObject, ErrorObject> {
    match era {
        Era::Modern => Ok(to_object(&result.into_modern(Some(server.info().clone())))),
        Era::Legacy => v2025::CallToolResult::try_from(result)
            .map(|result| to_object(&result))
            .map_err(ErrorObject::internal),
    }
}

impl Server {
    /// For a modern `tools/call` of a tool that runs as a task: `-32021` for a client that
    /// did not declare the extension when the tool requires it (TX-03); the task's
    /// `CreateTaskResult` (or the call's own answer, when its handler never became a task)
    /// for one that did; `None` to serve the call plainly.
    pub(crate) async fn call_as_task(
        &self,
        ctx: &RequestContext,
        digest: Option<String>,
        name: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<Option<JsonObject>, ErrorObject> {
        if !self.inner.task_tools.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let Some((support, in_handler)) =
            self.read_registry().tools.get(name).map(|tool| (tool.tasks, tool.task_in_handler))
        else {
            return Ok(None);
        };
        let declared = ctx.client_capabilities().has_extension(tasks::EXTENSION_ID);
        match (support, declared) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => return Ok(None),
            (TaskSupport::Required, false) => return Err(tasks::missing_capability_error()),
            (TaskSupport::Optional | TaskSupport::Required, true) => {}
        }
        let work: Work = {
            let (server, ctx, name, arguments) =
                (self.clone(), ctx.clone(), name.to_owned(), arguments.cloned());
            Box::pin(async move { server.call_tool(ctx, &name, arguments).await })
        };
        let work = if in_handler {
            ctx.allow_task();
            let detachable = Detachable { work: Some(work), ctx: ctx.clone() };
            match self.in_round(ctx, &Method::CallTool, digest, detachable).await? {
                Asked::Done(Detached::Start(work)) => work,
                Asked::Done(Detached::Finished(result)) => {
                    return Ok(Some(to_object(&result.into_modern(Some(self.info().clone())))));
                }
                Asked::InputRequired(required) => return Ok(Some(to_object(&*required))),
            }
        } else {
            work
        };
        let (task, running) = self.inner.tasks.create(owner(ctx), &self.inner.announcer).await?;
        ctx.run_as(running.clone());
        self.run_task(running, work, Era::Modern);
        // The seed state, as the store kept it before the work could move it on.
        Ok(Some(task.created()))
    }

    /// Runs a task's work to its end, bounded by `TaskOptions::max_duration`, renewing the
    /// task's lease meanwhile. The work is dropped when the task ends first (cancelled on any
    /// instance, or expired). A panic fails the task with `-32603`.
    pub(super) fn run_task(&self, running: Arc<Running>, work: Work, era: Era) {
        let server = self.clone();
        tokio::spawn(async move {
            let tasks = &server.inner.tasks;
            let options = tasks.options();
            let work =
                tokio::time::timeout(options.max_duration, std::panic::AssertUnwindSafe(work).catch_unwind());
            let mut work = std::pin::pin!(work);
            let mut changes = running.changes();
            let mut renewal = tokio::time::interval((options.lease / 3).max(Duration::from_millis(1)));
            renewal.tick().await;
            let ended = loop {
                tokio::select! {
                    biased;
                    () = running.cancelled.cancelled() => break None,
                    ended = &mut work => break Some(ended),
                    _ = changes.changed() => {
                        if server.task_ended(&running.id).await {
                            break None;
                        }
                    }
                    _ = renewal.tick() => {
                        let until = tasks.lease_until();
                        match tasks.store.modify(&running.id, &|task: &mut TaskRecord| task.renew(until)).await {
                            Ok(Some(task)) if !task.terminal() => {}
                            Ok(_) => break None,
                            Err(e) => tracing::warn!(task = %running.id, error = %e, "the task's lease could not be renewed"),
                        }
                    }
                }
            };
            match ended {
                None => running.cancelled.cancel(),
                Some(ended) => {
                    let outcome = match ended {
                        Err(_) => Err(ErrorObject::internal(format!(
                            "the task ran past its limit of {} s and was stopped",
                            options.max_duration.as_secs()
                        ))),
                        Ok(Err(_panic)) => Err(ErrorObject::internal("the task's handler panicked")),
                        Ok(Ok(result)) => result.and_then(|result| in_era(&server, result, era)),
                    };
                    let finish = |task: &mut TaskRecord| task.finish(&outcome);
                    if let Err(e) = tasks.change(&running.id, &finish, &server.inner.announcer).await {
                        tracing::error!(task = %running.id, error = %e.message, "the task's outcome could not be stored");
                    }
                }
            }
            tasks.ended(&running.id);
        });
    }

    /// Whether task `id` ended (or is gone) in the store.
    async fn task_ended(&self, id: &str) -> bool {
        match self.inner.tasks.store.get(id).await {
            Ok(task) => task.is_none_or(|task| task.terminal()),
            Err(_) => false,
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`, for a client that declared the
    /// extension on this request (TX-02: `-32021` first, whatever the task); `-32602` for a
    /// task that is not there (TX-18).
    pub(crate) async fn task_method(
        &self,
        ctx: &RequestContext,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        if !ctx.client_capabilities().has_extension(tasks::EXTENSION_ID) {
            return Err(tasks::missing_capability_error());
        }
        let params = params.unwrap_or_default();
        let Some(id) = params.get("taskId").and_then(Value::as_str) else {
            return Err(ErrorObject::invalid_params(format!("{method} needs params.taskId, a string")));
        };
        let announcer = &self.inner.announcer;
        let task = self.inner.tasks.get(id, owner(ctx).as_deref(), announcer).await?;
        let ack = || json!({"resultType": "complete"}).as_object().cloned().unwrap_or_default();
        match method {
            Method::GetTask => Ok(task.detailed()),
            Method::UpdateTask => {
                // Read as plain JSON: answers to keys that are not outstanding are passed
                // over before any is read as an answer (TX-12).
                let Some(responses) = params.get("inputResponses").and_then(Value::as_object) else {
                    return Err(ErrorObject::invalid_params(
                        "tasks/update needs params.inputResponses, an object",
                    ));
                };
                self.inner
                    .tasks
                    .change(id, &|task: &mut TaskRecord| task.update(responses), announcer)
                    .await?;
                Ok(ack())
            }
            Method::CancelTask => {
                self.inner.tasks.cancel(id, announcer).await?;
                Ok(ack())
            }
            other => Err(ErrorObject::method_not_found(other.as_str())),
        }
    }
}

/// Whether `method` is one of the extension's.
pub(crate) fn is_task_method(method: &Method) -> bool {
    matches!(method, Method::GetTask | Method::UpdateTask | Method::CancelTask)
}
