//! The client's side of the tasks extension: a `tools/call` answered with a task is followed
//! to its end — polled with `tasks/get` at the server's pace, its questions answered once each
//! through the client's handlers with `tasks/update` (TX-09, TX-11), and cancelled with
//! `tasks/cancel` (never `notifications/cancelled`, TX-13) when the caller's patience ends.

use std::collections::HashSet;
use std::time::Duration;

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::{Era, JsonObject};
use serde_json::{Value, json};

use super::{Client, ClientError};

/// What [`Client::start_tool`] got: the call's result, or the id of the task that runs it.
#[derive(Clone, Debug, PartialEq)]
pub enum Started {
    /// The server answered at once.
    Done(modelctx_protocol::model::CallToolResult),
    /// The server runs the call as this task.
    Task(String),
}

/// The polling interval when the server suggests none, and the bounds on its suggestion.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(20);
const MAX_POLL: Duration = Duration::from_secs(5);

impl Client {
    /// A task's current state (`tasks/get`): its status, and its `result`, `error` or
    /// outstanding `inputRequests`.
    pub async fn get_task(&self, task_id: &str) -> Result<JsonObject, ClientError> {
        self.request(Method::GetTask, json!({"taskId": task_id})).await
    }

    /// Asks the server to cancel a task (`tasks/cancel`); cancellation is cooperative, and
    /// the task may still end otherwise.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.request(Method::CancelTask, json!({"taskId": task_id})).await.map(drop)
    }

    /// Follows the task of a `CreateTaskResult` to its end: the result of a completed task,
    /// the error of a failed one.
    pub(super) async fn follow_task(&self, created: JsonObject) -> Result<JsonObject, ClientError> {
        let invalid = |detail: &str| ClientError::invalid_result(Method::CallTool, detail);
        let id = created
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| invalid("a task without a taskId"))?;
        let id = id.as_str();
        let deadline = tokio::time::Instant::now() + self.options.task_timeout;
        let mut answered: HashSet<String> = HashSet::new();
        let mut state = created;
        loop {
            let poll = state
                .get("pollIntervalMs")
                .and_then(Value::as_u64)
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .clamp(MIN_POLL, MAX_POLL);
            if tokio::time::Instant::now() + poll > deadline {
                // Our patience ends before the task does: tell the server to stop.
                let _ = self.cancel_task(id).await;
                return Err(ClientError::timeout("tools/call (as a task)".into(), self.options.task_timeout));
            }
            tokio::time::sleep(poll).await;
            state = self.get_task(id).await?;
            match state.get("status").and_then(Value::as_str) {
                Some("completed") => {
                    return state
                        .get("result")
                        .and_then(Value::as_object)
                        .cloned()
                        .ok_or_else(|| invalid("a completed task without a result"));
                }
                Some("failed") => {
                    let error = state
                        .get("error")
                        .cloned()
                        .and_then(|e| serde_json::from_value::<ErrorObject>(e).ok());
                    return Err(ClientError::rpc(
                        error.unwrap_or_else(|| ErrorObject::internal("the task failed")),
                    ));
                }
                Some("cancelled") => {
                    let why = state.get("statusMessage").and_then(Value::as_str).unwrap_or("no reason given");
                    return Err(ClientError::closed(format!("the server cancelled task {id}: {why}")));
                }
                Some("input_required") => self.answer_task(id, &state, &mut answered).await?,
                _ => {}
            }
        }
    }

    /// Answers the task's questions not answered before, in one `tasks/update`.
    async fn answer_task(
        &self,
        id: &str,
        state: &JsonObject,
        answered: &mut HashSet<String>,
    ) -> Result<(), ClientError> {
        let asked = state.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut responses = JsonObject::new();
        for (key, request) in asked {
            if answered.contains(&key) {
                continue;
            }
            let method = Method::from(request.get("method").and_then(Value::as_str).unwrap_or_default());
            let params = request.get("params").and_then(Value::as_object).cloned();
            let answer =
                self.options.handlers.answer(Era::Modern, &method, params).await.map_err(ClientError::rpc)?;
            responses.insert(key.clone(), Value::Object(answer));
            answered.insert(key);
        }
        if responses.is_empty() {
            return Ok(());
        }
        self.request(Method::UpdateTask, json!({"taskId": id, "inputResponses": responses})).await.map(drop)
    }
}
