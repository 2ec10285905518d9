//! The client's side of tasks, in both eras. A `tools/call` answered with a task is followed
//! to its end, polled with `tasks/get` at the server's pace, and cancelled with `tasks/cancel`
//! (never `notifications/cancelled`, TX-13) when the caller's patience ends.
//!
//! - 2026-07-28, the tasks extension: the server decides to run a call as a task when the
//!   client declared the extension; the task's questions are answered once each through the
//!   client's handlers with `tasks/update` (TX-09, TX-11), and its result is read from
//!   `tasks/get`.
//! - 2025-11-25, the core tasks: the client asks for a task (`params.task`) where the server
//!   runs calls as tasks and the listed tool requires one, or allows one and the client wants
//!   them ([`ClientOptions::tasks`](super::ClientOptions::tasks)); once the task needs input
//!   or has ended, `tasks/result` waits for its result, the questions coming as requests tied
//!   to the task on that request's stream.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::{CallToolResult, ServerCapabilities};
use modelctx_protocol::v2025::TaskSupport;
use modelctx_protocol::v2026::ResultType;
use modelctx_protocol::{Era, JsonObject, Method, tasks};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::dialect::Dialect;
use super::known_tools::Lookup;
use super::wire::result_type;
use super::{Client, ClientError};

/// What [`Client::start_tool`] got: the call's result, or the id of the task that runs it.
#[derive(Clone, Debug, PartialEq)]
pub enum Started {
    /// The server answered at once.
    Done(modelctx_protocol::model::CallToolResult),
    /// The server runs the call as this task.
    Task(String),
}

/// A `tools/call` answer: the call's result, or the task that runs it.
pub(super) enum CallAnswer {
    /// The call's result.
    Result(JsonObject),
    /// The task's id and its state as the answer gave it.
    Task(String, JsonObject),
}

/// Told the id of each task a `tools/call` is answered with, before the call follows it
/// ([`when_tasks_start`]).
pub type TaskStarted = Arc<dyn Fn(String) -> BoxFuture<'static, ()> + Send + Sync>;

tokio::task_local! {
    static TASK_STARTED: TaskStarted;
}

/// Runs `work`, telling `started` the id of each task a `tools/call` made from it (by
/// [`Client::call_tool`] and its variants) is answered with, before the call follows that task
/// to its end: a gateway turns its own call into a task then, and knows which task to cancel
/// when its caller gives up.
pub async fn when_tasks_start<T>(started: TaskStarted, work: impl Future<Output = T>) -> T {
    TASK_STARTED.scope(started, work).await
}

/// Tells the [`when_tasks_start`] hook, if any, that the call became task `id`.
pub(super) async fn task_started(id: &str) {
    if let Ok(started) = TASK_STARTED.try_with(Arc::clone) {
        started(id.to_owned()).await;
    }
}

/// What following a task does when the caller's patience ends first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Late {
    /// Cancels the task: its call was the caller's own.
    Cancel,
    /// Leaves it running: the caller only looked at it.
    Leave,
}

/// The polling interval when the server suggests none, and the bounds on its suggestion.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(5);

impl Client {
    /// A task's current state (`tasks/get`): its status, and (2026-07-28) its `result`, `error`
    /// or outstanding `inputRequests`.
    pub async fn get_task(&self, task_id: &str) -> Result<JsonObject, ClientError> {
        self.request(Method::GetTask, json!({"taskId": task_id})).await
    }

    /// Asks the server to cancel a task (`tasks/cancel`); cancellation is cooperative, and
    /// the task may still end otherwise.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.request(Method::CancelTask, json!({"taskId": task_id})).await.map(drop)
    }

    /// The server's tasks of this client's (`tasks/list`, every page): a 2025-11-25 method,
    /// for a server that declared `tasks.list`.
    pub async fn list_tasks(&self) -> Result<Vec<JsonObject>, ClientError> {
        self.list_all(&Method::ListTasks, "tasks").await
    }

    /// Waits for the end of task `task_id`, started by [`Client::start_tool`] (here or by
    /// another client of the same principal), answering its questions as they come; its
    /// result, or its error. Past [`ClientOptions::task_timeout`](super::ClientOptions) the
    /// wait ends and the task goes on.
    pub async fn task_result(&self, task_id: &str) -> Result<CallToolResult, ClientError> {
        let result = match self.dialect {
            Dialect::Modern => {
                let state = self.get_task(task_id).await?;
                self.follow_task(task_id, state, Late::Leave).await?
            }
            // `tasks/result` itself waits for the end.
            Dialect::Legacy => {
                let deadline = Instant::now() + self.options.task_timeout;
                self.legacy_task_result(task_id, deadline, Late::Leave).await?
            }
        };
        self.dialect.call_result(result)
    }

    /// Whether calls of tool `name` may run as tasks here, as the last listing says: a
    /// 2025-11-25 server that runs calls as tasks gives each tool's `execution.taskSupport`; a
    /// 2026-07-28 server that declared the tasks extension decides per call, so every tool of
    /// it is `Optional`; any other is `Forbidden`.
    pub fn task_support(&self, name: &str) -> TaskSupport {
        let capabilities = &self.server.capabilities;
        match self.era() {
            Era::Modern => {
                let declared =
                    capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(tasks::EXTENSION_ID));
                if declared { TaskSupport::Optional } else { TaskSupport::Forbidden }
            }
            Era::Legacy if runs_task_calls(capabilities) => {
                match self.tools.look(name, |tool| tool.task_support) {
                    Lookup::Listed(support) => support,
                    Lookup::Unknown | Lookup::Unlisted => TaskSupport::Forbidden,
                }
            }
            Era::Legacy => TaskSupport::Forbidden,
        }
    }

    /// The params of a `tools/call` of `name`: with `task` for a 2025-11-25 server that runs
    /// calls as tasks when the listed tool requires one, or allows one and the client wants
    /// them. A listing that fails leaves the call plain (the server says if it needed a task).
    pub(super) async fn call_params(&self, name: &str, arguments: Value) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        if self.era() != Era::Legacy || !runs_task_calls(&self.server.capabilities) {
            return params;
        }
        let support = match self.tool_fact(name, |tool| tool.task_support).await {
            Ok(Lookup::Listed(support)) => support,
            Ok(_) => TaskSupport::Forbidden,
            Err(error) => {
                tracing::debug!(tool = name, %error, "the tools could not be listed to see if a call runs as a task");
                TaskSupport::Forbidden
            }
        };
        let wanted = support == TaskSupport::Optional && super::behalf::wants_tasks(&self.options);
        if support == TaskSupport::Required || wanted {
            // Kept at least as long as the client follows it; the server may shorten it.
            let ttl = u64::try_from(self.options.task_timeout.as_millis()).unwrap_or(u64::MAX);
            params["task"] = json!({"ttl": ttl});
        }
        params
    }

    /// Reads a `tools/call` answer: a 2026-07-28 task (`resultType: "task"`), a 2025-11-25
    /// `CreateTaskResult` (`{"task": …}`), or the call's result.
    pub(super) fn call_answer(&self, result: JsonObject) -> Result<CallAnswer, ClientError> {
        let task = match self.dialect {
            Dialect::Modern if result_type(&result) == ResultType::Task => result,
            Dialect::Legacy if !result.contains_key("content") => match result.get("task") {
                Some(Value::Object(task)) => task.clone(),
                _ => return Ok(CallAnswer::Result(result)),
            },
            _ => return Ok(CallAnswer::Result(result)),
        };
        match task.get("taskId").and_then(Value::as_str) {
            Some(id) => Ok(CallAnswer::Task(id.to_owned(), task)),
            None => Err(ClientError::invalid_result(Method::CallTool, "a task without a taskId")),
        }
    }

    /// Follows the client's own task `id` (its `state` as the call's answer gave it) to its
    /// end: the result of a completed task, the error of a failed one.
    pub(super) async fn follow_own_task(
        &self,
        id: &str,
        state: JsonObject,
    ) -> Result<JsonObject, ClientError> {
        self.follow_task(id, state, Late::Cancel).await
    }

    /// Follows task `id`, last seen in `state`, to its end, within the task timeout.
    async fn follow_task(
        &self,
        id: &str,
        mut state: JsonObject,
        late: Late,
    ) -> Result<JsonObject, ClientError> {
        let invalid = |detail: &str| ClientError::invalid_result(Method::CallTool, detail);
        let deadline = Instant::now() + self.options.task_timeout;
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            match (self.dialect, state.get("status").and_then(Value::as_str)) {
                (_, Some("cancelled")) => {
                    let why = state.get("statusMessage").and_then(Value::as_str).unwrap_or("no reason given");
                    return Err(ClientError::closed(format!("the server cancelled task {id}: {why}")));
                }
                (Dialect::Legacy, Some("completed" | "failed" | "input_required")) => {
                    return self.legacy_task_result(id, deadline, late).await;
                }
                (Dialect::Modern, Some("completed")) => {
                    return state
                        .get("result")
                        .and_then(Value::as_object)
                        .cloned()
                        .ok_or_else(|| invalid("a completed task without a result"));
                }
                (Dialect::Modern, Some("failed")) => {
                    let error = state
                        .get("error")
                        .cloned()
                        .and_then(|e| serde_json::from_value::<ErrorObject>(e).ok());
                    return Err(ClientError::rpc(
                        error.unwrap_or_else(|| ErrorObject::internal("the task failed")),
                    ));
                }
                (Dialect::Modern, Some("input_required")) => {
                    self.answer_task(id, &state, &mut answered).await?
                }
                _ => {}
            }
            let poll = state
                .get(self.dialect.poll_interval_member())
                .and_then(Value::as_u64)
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            if Instant::now() + poll > deadline {
                return Err(self.too_late(id, late).await);
            }
            tokio::time::sleep(poll).await;
            state = self.get_task(id).await?;
        }
    }

    /// The error of a wait that outlived the caller's patience; an own task is cancelled
    /// first, so the server stops its work.
    async fn too_late(&self, id: &str, late: Late) -> ClientError {
        if late == Late::Cancel {
            let _ = self.cancel_task(id).await;
        }
        ClientError::timeout("tools/call (as a task)".into(), self.options.task_timeout)
    }

    /// A 2025-11-25 task's result (`tasks/result`), waited for until `deadline`: what the
    /// call would have answered, its JSON-RPC error included. The task's questions arrive on
    /// the request's stream and are answered by the client's handlers meanwhile.
    async fn legacy_task_result(
        &self,
        id: &str,
        deadline: Instant,
        late: Late,
    ) -> Result<JsonObject, ClientError> {
        let patience = deadline.saturating_duration_since(Instant::now());
        let params = json!({"taskId": id}).as_object().cloned().unwrap_or_default();
        match self.request_within(&Method::GetTaskPayload, params, patience).await {
            Err(error) if error.is_timeout() => Err(self.too_late(id, late).await),
            answered => answered,
        }
    }

    /// Answers the task's questions not answered before, all at once (a question the
    /// handlers wait on does not hold the others back), in one `tasks/update` (2026-07-28).
    /// Each handler is told its question's key ([`input_key`](super::input_key)).
    async fn answer_task(
        &self,
        id: &str,
        state: &JsonObject,
        answered: &mut HashSet<String>,
    ) -> Result<(), ClientError> {
        let asked = state.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        let unanswered = asked.into_iter().filter(|(key, _)| !answered.contains(key));
        let answers = futures::future::try_join_all(unanswered.map(|(key, request)| async move {
            let method = Method::from(request.get("method").and_then(Value::as_str).unwrap_or_default());
            let params = request.get("params").and_then(Value::as_object).cloned();
            let answer = self.options.handlers.answer_input(key.clone(), &method, params).await;
            answer.map(|answer| (key, Value::Object(answer))).map_err(ClientError::rpc)
        }))
        .await?;
        if answers.is_empty() {
            return Ok(());
        }
        answered.extend(answers.iter().map(|(key, _)| key.clone()));
        let responses: JsonObject = answers.into_iter().collect();
        self.request(Method::UpdateTask, json!({"taskId": id, "inputResponses": responses})).await.map(drop)
    }
}

/// Whether a 2025-11-25 server runs `tools/call` as a task when asked
/// (`tasks.requests.tools.call`).
fn runs_task_calls(capabilities: &ServerCapabilities) -> bool {
    let requests = capabilities.legacy_tasks.as_ref().and_then(|tasks| tasks.requests.as_ref());
    requests.and_then(|requests| requests.tools.as_ref()).is_some_and(|tools| tools.call.is_some())
}
