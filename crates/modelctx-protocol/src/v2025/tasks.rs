//! The experimental core tasks of 2025-11-25: task-augmented requests answer with a
//! `CreateTaskResult`, and the requester polls `tasks/get`, fetches `tasks/result`, and may
//! `tasks/cancel` or `tasks/list`. (2026-07-28 moved tasks into an extension: `crate::tasks`.)

use serde::{Deserialize, Serialize};

use super::params::RequestMeta;
use crate::Meta;
use crate::macros::sniff::has;
use crate::macros::{list_result, params_types, sniffed_union};
use crate::types::{TaskStatus, required_nullable};

/// The `task` member of a task-augmented request (`TaskMetadata`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMetadata {
    /// Requested retention in milliseconds from creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

/// The value of `_meta["io.modelcontextprotocol/related-task"]`, tying a message to a task
/// (`RelatedTaskMetadata`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task id.
    pub task_id: String,
}

/// A task's state (`Task`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task id.
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// A human-readable account of the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Retention in milliseconds from creation; `None` means unlimited. Always on the wire:
    /// `None` is written as `null`, and a missing member is an error.
    #[serde(deserialize_with = "required_nullable")]
    pub ttl: Option<u64>,
    /// Suggested milliseconds between polls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

/// The immediate answer to a task-augmented request (`CreateTaskResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreateTaskResult {
    /// The task just created.
    pub task: Task,
    /// Result metadata (may hold `io.modelcontextprotocol/model-immediate-response`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `tasks/get` (`GetTaskResult`, `Result & Task`): the task's members, flat.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetTaskResult {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `tasks/cancel` (`CancelTaskResult`): the task, now cancelled.
pub type CancelTaskResult = GetTaskResult;

/// The answer to `tasks/result` (`GetTaskPayloadResult`): the result the original request
/// would have returned, of any shape.
pub type GetTaskPayloadResult = super::results::Result;

/// Params of `notifications/tasks/status` (`TaskStatusNotificationParams`,
/// `NotificationParams & Task`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// The task's new state.
    #[serde(flatten)]
    pub task: Task,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `tasks/get`, `tasks/result` and `tasks/cancel`: the task id. (The schema has
/// no name for them; `_meta` is kept when a peer sends it.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

params_types!(TaskIdParams, TaskStatusNotificationParams);

list_result! {
    meta Meta,
    extra {};
    /// A page of `tasks/list` (`ListTasksResult`).
    ListTasksResult { tasks: Task = "tasks" }
}

sniffed_union! {
    /// The answer to a request that may run as a task (`tools/call`, `sampling/createMessage`,
    /// `elicitation/create`): the result itself, or a [`CreateTaskResult`] when the request
    /// carried `task`. Told apart by the `task` member.
    pub enum TaskAugmentedResult<T> {
        /// The request runs as a task.
        Task(CreateTaskResult) if has("task"),
        _ =>
        /// The request ran to completion.
        Complete(T),
    }
}
