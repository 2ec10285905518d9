//! The experimental core tasks of 2025-11-25, for clients of that revision: a `tools/call`
//! with `params.task` answers a `CreateTaskResult`; `tasks/get`, `tasks/list` and
//! `tasks/cancel` read and end tasks; `tasks/result` waits for the end and answers exactly
//! what the call would have. The same tools, the same store, the same work as the
//! 2026-07-28 extension: only the wire differs.
//!
//! A question of a task's work waits in the task (`input_required`) and is asked on the
//! stream of a `tasks/result` request, as a live request tagged with the task
//! (`io.modelcontextprotocol/related-task`, T25-08/14); its answer goes back to the work.

use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx_protocol::meta::RELATED_TASK;
use modelctx_protocol::{Era, JsonObject, Method, v2025};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::run::{Work, owner};
use super::{TaskRecord, TaskSupport};
use crate::server::input::InputChannel;
use crate::server::params::to_object;
use crate::server::{RequestContext, Server, ServerEvent};

/// The legacy methods of tasks.
pub(crate) fn is_legacy_task_method(method: &Method) -> bool {
    matches!(method, Method::GetTask | Method::GetTaskPayload | Method::CancelTask | Method::ListTasks)
}

/// The `_meta` that ties a message to task `id`.
fn related(id: &str) -> Value {
    json!({ RELATED_TASK: { "taskId": id } })
}

fn no_task_call(name: &str, why: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: tools/call of {name} {why}"))
}

/// The 2025-11-25 `tasks` capability of a server whose tools do (`offered`) or do not run
/// as tasks: `tools/call` may run as a task, and `tasks/list` and `tasks/cancel` are served.
pub(crate) fn legacy_tasks_capability(offered: bool) -> Option<v2025::ServerTasksCapability> {
    offered.then(|| v2025::ServerTasksCapability {
        list: Some(JsonObject::new()),
        cancel: Some(JsonObject::new()),
        requests: Some(v2025::ServerTaskRequests {
            tools: Some(v2025::ToolsTaskRequests { call: Some(JsonObject::new()) }),
        }),
    })
}

impl Server {
    /// For a legacy `tools/call`: the `CreateTaskResult` when it runs as a task; `-32601`
    /// when the tool requires a task and the call has none, or forbids one and the call has
    /// one (T25-03/04); `None` to serve it plainly. A server with no task tools serves every
    /// call plainly, whatever `task` says (T25-05).
    pub(crate) async fn legacy_call_as_task(
        &self,
        ctx: &RequestContext,
        params: &v2025::CallToolRequestParams,
    ) -> Result<Option<JsonObject>, ErrorObject> {
        // A server that never had a task tool looks nothing up.
        if !self.inner.task_tools.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let Some(support) = self.read_registry().tools.get(&params.name).map(|tool| tool.tasks) else {
            return Ok(None);
        };
        let requested = match (support, params.task) {
            (TaskSupport::Forbidden, None) => return Ok(None),
            // T25-05: `task` is ignored where the server offers no tasks at all.
            (TaskSupport::Forbidden, Some(_)) if !self.read_registry().offers_tasks() => return Ok(None),
            (TaskSupport::Forbidden, Some(_)) => {
                return Err(no_task_call(&params.name, "as a task: the tool does not run as a task"));
            }
            (TaskSupport::Required, None) => {
                return Err(no_task_call(&params.name, "without params.task: the tool runs only as a task"));
            }
            (_, None) => return Ok(None),
            (TaskSupport::Optional | TaskSupport::Required, Some(task)) => task,
        };
        // The receiver may shorten the requested lifetime, never lengthen it past its own.
        let most = self.inner.tasks.options().ttl.map(|ttl| ttl.as_millis() as u64);
        let ttl = match (requested.ttl, most) {
            (Some(asked), Some(most)) => Some(asked.min(most)),
            (asked, None) => asked,
            (None, most) => most,
        };
        let (task, running) =
            self.inner.tasks.create_with_ttl(owner(ctx), ttl, &self.inner.announcer).await?;
        ctx.run_as(running.clone());
        let work: Work = {
            let (server, ctx, name, arguments) =
                (self.clone(), ctx.clone(), params.name.clone(), params.arguments.clone());
            Box::pin(async move { server.call_tool(ctx, &name, arguments).await })
        };
        self.run_task(running, work, Era::Legacy);
        Ok(Some(to_object(&v2025::CreateTaskResult { task: task.legacy(), meta: None })))
    }

    /// `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` of a legacy session, for
    /// the caller's own tasks; `-32602` for a task that is not there (T25-19).
    pub(crate) async fn legacy_task_method(
        &self,
        ctx: &RequestContext,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<JsonObject, ErrorObject> {
        let owner = owner(ctx);
        let announcer = &self.inner.announcer;
        let tasks = &self.inner.tasks;
        if *method == Method::ListTasks {
            let cursor = params.as_ref().and_then(|p| p.get("cursor")).and_then(Value::as_str);
            let after = cursor.map(crate::server::pagination::decode).transpose()?;
            let page_size = self.options().page_size.max(1);
            let mut listed = tasks.list(owner.as_deref(), after.as_deref(), page_size + 1).await?;
            let more = listed.len() > page_size;
            listed.truncate(page_size);
            let next_cursor =
                more.then(|| listed.last().map(|task| crate::server::pagination::encode(task.id())));
            let result = v2025::ListTasksResult {
                tasks: listed.iter().map(TaskRecord::legacy).collect(),
                next_cursor: next_cursor.flatten(),
                meta: None,
            };
            return Ok(to_object(&result));
        }
        let Some(id) = params.as_ref().and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            return Err(ErrorObject::invalid_params(format!("{method} needs params.taskId, a string")));
        };
        let task = tasks.get(id, owner.as_deref(), announcer).await?;
        let flat = |task: &TaskRecord| to_object(&v2025::GetTaskResult { task: task.legacy(), meta: None });
        match method {
            Method::GetTask => Ok(flat(&task)),
            Method::CancelTask => {
                if task.terminal() {
                    return Err(ErrorObject::invalid_params(format!(
                        "task {id:?} has already ended ({}); an ended task cannot be cancelled",
                        json!(task.status()).as_str().unwrap_or_default()
                    )));
                }
                tasks.cancel(id, announcer).await?;
                // Cancelled before the answer (T25-18).
                let cancelled = tasks.get(id, owner.as_deref(), announcer).await?;
                Ok(flat(&cancelled))
            }
            _ => self.task_result(ctx, id, owner.as_deref()).await,
        }
    }

    /// `tasks/result`: waits until the task ends, asking its questions on this request's
    /// stream meanwhile, then answers exactly what the call would have (T25-13), tied to the
    /// task (T25-14). Bounded by the request's time limit.
    async fn task_result(
        &self,
        ctx: &RequestContext,
        id: &str,
        owner: Option<&str>,
    ) -> Result<JsonObject, ErrorObject> {
        let announcer = &self.inner.announcer;
        let mut changes = self.events();
        loop {
            let task = self.inner.tasks.get(id, owner, announcer).await?;
            if let Some(outcome) = task.outcome() {
                let mut result = outcome?;
                let meta = result.entry("_meta").or_insert_with(|| json!({}));
                if let (Value::Object(meta), Value::Object(tag)) = (meta, related(id)) {
                    meta.extend(tag);
                }
                return Ok(result);
            }
            for (key, question) in task.questions() {
                self.ask_for_task(ctx, id, key, question).await?;
            }
            if !task.questions().is_empty() {
                continue;
            }
            loop {
                tokio::select! {
                    () = ctx.closing().cancelled() => {
                        return Err(ErrorObject::internal("the server is shutting down; ask for the result again"));
                    }
                    event = changes.recv() => match event {
                        Ok(ServerEvent::TaskChanged(changed)) if changed == id => break,
                        Ok(_) => {}
                        Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => return Err(ErrorObject::internal("the server stopped")),
                    },
                }
            }
        }
    }

    /// Asks the client the task's question `key` as a live request on `ctx`'s stream, tied
    /// to the task, and hands the answer to the task's work.
    async fn ask_for_task(
        &self,
        ctx: &RequestContext,
        id: &str,
        key: &str,
        question: &Value,
    ) -> Result<(), ErrorObject> {
        let InputChannel::Legacy(peer) = ctx.input() else {
            return Err(ErrorObject::internal("tasks/result has no way to ask the client here"));
        };
        let method = Method::from(question.get("method").and_then(Value::as_str).unwrap_or_default());
        let mut params = question.get("params").cloned().unwrap_or_else(|| json!({}));
        if let (Some(params), Value::Object(tag)) = (params.as_object_mut(), related(id)) {
            match params.get_mut("_meta").and_then(Value::as_object_mut) {
                Some(meta) => meta.extend(tag),
                None => drop(params.insert("_meta".into(), Value::Object(tag))),
            }
        }
        let answer = peer.request::<JsonObject>(method.clone(), params).await.map_err(|e| {
            ErrorObject::internal(format!(
                "the task's question ({method}) got no answer: {e}; ask for the result again"
            ))
        })?;
        let mut answers = JsonObject::new();
        answers.insert(key.to_owned(), Value::Object(answer));
        let update = |task: &mut TaskRecord| task.update(&answers);
        self.inner.tasks.change(id, &update, &self.inner.announcer).await.map(drop)
    }
}
