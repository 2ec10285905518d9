//! Tasks from the page, in either era (the tasks extension of 2026-07-28, the core tasks of
//! 2025-11-25): a tool started as a task, each such task watched — its status polled every
//! [`POLL`] and told to the page as a `task` event when it changes, its result waited for (its
//! questions answered in the page meanwhile) and told as a `task-result` event — at most
//! [`MAX_WATCHED`] at once per server; the server's tasks listed, one read, cancelled, or its
//! result waited for on demand.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use axum::Json;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use modelctx::client::{Client, Started};
use serde::Deserialize;
use serde_json::{Value, json};

use super::api::{Served, ToolCall, answer, call_json, refused, with_client};
use super::session::Session;

/// Tasks watched at once per server, at most.
pub const MAX_WATCHED: usize = 32;
/// How often a watched task's status is read.
const POLL: Duration = Duration::from_secs(1);

/// The ids of the tasks watched.
#[derive(Default)]
pub struct Tasks {
    watched: Mutex<HashSet<String>>,
}

impl Tasks {
    /// Starts watching `id`; `false` when [`MAX_WATCHED`] are watched.
    fn begin(&self, id: &str) -> bool {
        let mut watched = self.watched.lock().unwrap_or_else(PoisonError::into_inner);
        if watched.len() >= MAX_WATCHED {
            return false;
        }
        watched.insert(id.to_owned());
        true
    }

    fn end(&self, id: &str) {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }

    /// Whether any more may be watched.
    fn full(&self) -> bool {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner).len() >= MAX_WATCHED
    }
}

/// `POST …/tasks/start`: calls the tool as a task where the server runs it as one
/// (`{"result": {"taskId": …}}`, then watched) or answers at once (`{"result": {"done": …}}`);
/// `429` while [`MAX_WATCHED`] tasks are watched.
pub async fn start(Served(session): Served, Json(call): Json<ToolCall>) -> Response {
    if session.tasks.full() {
        return refused(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{MAX_WATCHED} tasks are watched, the most at once: wait for one to end"),
        );
    }
    let watching = Arc::clone(&session);
    with_client(&session, |client| async move {
        let (name, arguments) = call.parts();
        match client.start_tool(&name, arguments).await {
            Ok(Started::Done(result)) => Json(json!({"result": {"done": call_json(result)}})).into_response(),
            Ok(Started::Task(id)) => {
                watch(&watching, client, id.clone(), name);
                Json(json!({"result": {"taskId": id}})).into_response()
            }
            Err(error) => Json(json!({"error": error.to_string()})).into_response(),
        }
    })
    .await
}

/// Watches task `id` of tool `tool` until it ends, the session closes, or its wait for the
/// result gives up (the client's task timeout); unwatched when [`MAX_WATCHED`] are.
fn watch(session: &Arc<Session>, client: Arc<Client>, id: String, tool: String) {
    if !session.tasks.begin(&id) {
        return;
    }
    let session = Arc::downgrade(session);
    tokio::spawn(async move {
        let result = client.task_result(&id);
        let polled = poll_status(&session, &client, &id, &tool);
        let ended = tokio::select! {
            ended = result => ended,
            () = polled => return,
        };
        let Some(session) = session.upgrade() else { return };
        // The status it ended with, then its result.
        if let Ok(task) = client.get_task(&id).await {
            session.emit(task_event(&id, &tool, &task));
        }
        let event = match ended {
            Ok(result) => json!({"kind": "task-result", "taskId": id, "result": call_json(result)}),
            Err(error) => json!({"kind": "task-result", "taskId": id, "error": error.to_string()}),
        };
        session.emit(event);
        session.tasks.end(&id);
    });
}

/// Reads the task's status every [`POLL`], telling the page of each change; returns when the
/// session closed (the result's wait returns first otherwise).
async fn poll_status(session: &Weak<Session>, client: &Client, id: &str, tool: &str) {
    let mut last = Value::Null;
    loop {
        let state = client.get_task(id).await;
        let Some(session) = session.upgrade() else { return };
        if let Ok(task) = state {
            let shown = json!([task.get("status"), task.get("statusMessage")]);
            if shown != last {
                session.emit(task_event(id, tool, &task));
                last = shown;
            }
        }
        drop(session);
        tokio::time::sleep(POLL).await;
    }
}

/// The page's event for task `id` of `tool` in `state`.
fn task_event(id: &str, tool: &str, task: &modelctx::protocol::JsonObject) -> Value {
    json!({"kind": "task", "taskId": id, "tool": tool, "status": task.get("status"),
           "statusMessage": task.get("statusMessage")})
}

/// `GET …/tasks`: the server's tasks of this client (`tasks/list`, 2025-11-25).
pub async fn list(Served(session): Served) -> Response {
    with_client(&session, |client| async move { answer(client.list_tasks().await) }).await
}

/// The path's task id.
#[derive(Deserialize)]
pub struct TaskPath {
    id: String,
}

/// `GET …/tasks/{id}`: the task's state (`tasks/get`).
pub async fn get(Served(session): Served, Path(TaskPath { id }): Path<TaskPath>) -> Response {
    with_client(&session, |client| async move { answer(client.get_task(&id).await) }).await
}

/// `POST …/tasks/{id}/cancel`: asks the server to cancel it (`tasks/cancel`).
pub async fn cancel(Served(session): Served, Path(TaskPath { id }): Path<TaskPath>) -> Response {
    with_client(&session, |client| async move { answer(client.cancel_task(&id).await.map(|()| json!({}))) })
        .await
}

/// `POST …/tasks/{id}/result`: waits for its end and gives its result, its questions answered
/// in the page meanwhile (a task started elsewhere, or one no longer watched).
pub async fn result(Served(session): Served, Path(TaskPath { id }): Path<TaskPath>) -> Response {
    with_client(&session, |client| async move { answer(client.task_result(&id).await.map(call_json)) }).await
}
