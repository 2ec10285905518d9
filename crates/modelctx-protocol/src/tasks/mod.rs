//! The `io.modelcontextprotocol/tasks` extension for 2026-07-28: every type of its schema.
//!
//! A server that negotiated the extension on a request may answer a `tools/call` with a
//! [`CreateTaskResult`] (`resultType: "task"`) instead of the standard result; the client
//! then polls [`GetTask`] (`tasks/get`, whose result is a [`DetailedTask`] with
//! `resultType: "complete"`), answers input requests with [`UpdateTask`], may cancel with
//! [`CancelTask`], and may receive [`TaskStatusNotification`]s on a `subscriptions/listen`
//! stream that asked for the task's id.
//!
//! ```
//! use modelctx_protocol::tasks::{CallToolTaskResult, DetailedTask, GetTaskResult, MaybeTask, TaskStatus};
//!
//! let answer: CallToolTaskResult = serde_json::from_str(r#"{
//!     "resultType": "task", "taskId": "t-1", "status": "working",
//!     "createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:30:00Z",
//!     "ttlMs": null, "pollIntervalMs": 5000 }"#).unwrap();
//! let MaybeTask::Task(handle) = answer else { panic!("expected a task") };
//! assert_eq!(handle.task.ttl_ms, None);
//!
//! let polled: GetTaskResult = serde_json::from_str(r#"{
//!     "resultType": "complete", "taskId": "t-1", "status": "completed",
//!     "createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:31:00Z",
//!     "ttlMs": null, "result": { "content": [] } }"#).unwrap();
//! assert_eq!(polled.task.status(), TaskStatus::Completed);
//! assert!(matches!(polled.task, DetailedTask::Completed(ref done) if done.result["content"] == serde_json::json!([])));
//! ```
//!
//! Decisions where the extension's text is loose (see CHECKLIST §19 #7): `tasks/get`,
//! `tasks/update` and `tasks/cancel` results always carry `resultType: "complete"` and
//! refuse any other value; a [`CreateTaskResult`] always carries `"task"`, whatever its
//! seed status. `ttlMs` is always written, as `null` when unlimited, and must be present
//! when read.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::jsonrpc::ErrorObject;
use crate::v2026::{ClientCapabilities, ServerCapabilities};

mod messages;
mod task;
#[cfg(test)]
mod tests;

pub use crate::types::TaskStatus;
pub use messages::{
    CallToolTaskResult, CancelTask, CancelTaskRequest, CancelTaskRequestParams, CancelTaskResult,
    CancelTaskResultResponse, CompleteResultType, CreateTaskResult, CreateTaskResultResponse, GetTask,
    GetTaskRequest, GetTaskRequestParams, GetTaskResult, GetTaskResultResponse, MaybeTask,
    TASK_REQUEST_METHODS, TaskRequest, TaskResultType, TaskStatusChanged, TaskStatusNotification,
    TaskStatusNotificationParams, UpdateTask, UpdateTaskRequest, UpdateTaskRequestParams, UpdateTaskResult,
    UpdateTaskResultResponse,
};
pub use task::{
    CancelledStatus, CancelledTask, CompletedStatus, CompletedTask, DetailedTask, FailedStatus, FailedTask,
    InputRequiredStatus, InputRequiredTask, Task, WorkingStatus, WorkingTask,
};

/// The extension identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

/// The extension's capability (`TasksExtensionCapability`): an empty object; no settings are
/// defined yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TasksExtensionCapability {}

/// The task members of a `subscriptions/listen` filter (`TaskSubscriptionNotifications`);
/// on the wire they sit in [`crate::v2026::SubscriptionFilter::task_ids`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSubscriptionNotifications {
    /// Send `notifications/tasks` for these task ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// The task members of `notifications/subscriptions/acknowledged`
/// (`TaskSubscriptionAcknowledgedNotifications`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSubscriptionAcknowledgedNotifications {
    /// The task ids the server agreed to send `notifications/tasks` for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

/// Whether a request's client capabilities declare the extension. Only
/// `extensions["io.modelcontextprotocol/tasks"]` counts: a client with nothing but the
/// 2025-11-25 `tasks` capability is non-declaring (TX-21).
pub fn client_declares(capabilities: &ClientCapabilities) -> bool {
    capabilities.extensions.as_ref().is_some_and(|extensions| extensions.contains_key(EXTENSION_ID))
}

/// Whether a server's capabilities (from `server/discover`) declare the extension.
pub fn server_declares(capabilities: &ServerCapabilities) -> bool {
    capabilities.extensions.as_ref().is_some_and(|extensions| extensions.contains_key(EXTENSION_ID))
}

/// The `-32021` error for a request that needs the extension but did not declare it:
/// `tasks/*` requests, a listen filter with `taskIds`, or a request the server can only
/// serve as a task (TX-03, TX-15, TX-18).
pub fn missing_capability_error() -> ErrorObject {
    ErrorObject::missing_client_capability(json!({ "extensions": { EXTENSION_ID: {} } }))
}
