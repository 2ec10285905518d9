//! The extension's messages: the `CreateTaskResult` a task-augmented request may return,
//! `tasks/get`, `tasks/update`, `tasks/cancel`, and `notifications/tasks`.

use serde::{Deserialize, Serialize};

use super::task::{DetailedTask, Task};
use crate::JsonObject;
use crate::jsonrpc::{JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse};
use crate::macros::sniff::string_is;
use crate::macros::{
    literal, notification_methods, params_types, request_methods, sniffed_union, tagged_union,
};
use crate::v2026::{
    CallToolResult, InputResponses, MultiRoundResult, NotificationMetaObject, RequestMetaObject,
    ResultMetaObject, ResultType,
};

literal!(
    /// `"resultType": "complete"`, the only value `tasks/*` results may carry. Absent on the
    /// wire reads as `complete`, as for every result.
    pub CompleteResultType = "complete"
);
literal!(
    /// `"resultType": "task"`, reserved for [`CreateTaskResult`].
    pub TaskResultType = "task"
);

impl From<CompleteResultType> for ResultType {
    fn from(_: CompleteResultType) -> Self {
        Self::Complete
    }
}

impl From<TaskResultType> for ResultType {
    fn from(_: TaskResultType) -> Self {
        Self::Task
    }
}

/// What a server returns in lieu of the standard result when it runs the request as a task
/// (`CreateTaskResult`: `Result & Task` flat, with `resultType: "task"` whatever the seed
/// status).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// Always `"task"`; a result without it is not a task handle.
    pub result_type: TaskResultType,
    /// The seed state of the task, usually `working`.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
    /// Any other member (`Result` allows them). A seed with a terminal status may carry its
    /// `result` or `error` here, as the extension's error-handling examples do; see
    /// [`CreateTaskResult::detailed`]. Must not repeat the members above.
    #[serde(flatten)]
    pub other: JsonObject,
}

impl CreateTaskResult {
    /// A task handle for `task`.
    pub fn new(task: Task) -> Self {
        Self { result_type: TaskResultType, task, meta: None, other: JsonObject::new() }
    }

    /// The seed as a [`DetailedTask`], reading the status-specific member (`inputRequests`,
    /// `result`, `error`) from [`CreateTaskResult::other`]. Fails when the seed's status
    /// needs a member it does not carry (a `completed` seed without `result`, say).
    pub fn detailed(&self) -> Result<DetailedTask, serde_json::Error> {
        serde_json::to_value(self).and_then(serde_json::from_value)
    }
}

sniffed_union! {
    /// The answer to a request that may be task-augmented: the request's standard result, or
    /// a [`CreateTaskResult`] (chosen by `resultType: "task"`). Clients that declared the
    /// extension must accept both (TX-02).
    // Clippy sizes the generic `T` as zero; the standard results it stands for (a
    // `CallToolResult` with its `_meta`) are as large as a task handle, so boxing would buy
    // nothing.
    #[allow(clippy::large_enum_variant)]
    pub enum MaybeTask<T> {
        /// The server runs the request as a task.
        Task(CreateTaskResult) if string_is("resultType", "task"),
        _ =>
        /// The request's own result (which may itself be an `InputRequiredResult`).
        Standard(T),
    }
}

/// The result of `tools/call` for a client that declared the extension: a task handle, an
/// `InputRequiredResult`, or the `CallToolResult`.
pub type CallToolTaskResult = MaybeTask<MultiRoundResult<CallToolResult>>;

/// Params of `tasks/get` and `tasks/cancel`.
///
/// The extension's schema and examples show only `taskId`; a 2026-07-28 client still sends
/// the per-request `_meta` (META-01), which the server reads to check that the request
/// declared the extension (TX-18). It is optional here so that the extension's examples
/// parse; the era router decides what a request without it means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequestParams {
    /// The task to query.
    pub task_id: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
}

/// Params of `tasks/cancel`: the same members as `tasks/get`.
pub type CancelTaskRequestParams = GetTaskRequestParams;

/// Params of `tasks/update`. `_meta` is optional for the reason given on
/// [`GetTaskRequestParams`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskRequestParams {
    /// The task to update.
    pub task_id: String,
    /// Answers to outstanding `inputRequests`, by the same keys. A partial set is allowed;
    /// the server ignores keys that are not outstanding.
    pub input_responses: InputResponses,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMetaObject>,
}

params_types!(GetTaskRequestParams, UpdateTaskRequestParams);

/// The answer to `tasks/get` (`GetTaskResult`): the task with its status-specific members,
/// flat, and always `resultType: "complete"` (CHECKLIST §19 #7).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: CompleteResultType,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

impl GetTaskResult {
    /// The result for `task`.
    pub fn new(task: impl Into<DetailedTask>) -> Self {
        Self { result_type: CompleteResultType, task: task.into(), meta: None }
    }
}

/// Declares an empty acknowledgement result with `resultType: "complete"`.
macro_rules! ack_result {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// Always `"complete"`.
            #[serde(default)]
            pub result_type: CompleteResultType,
            /// Result metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<ResultMetaObject>,
        }
    };
}

ack_result!(
    /// The acknowledgement of `tasks/update` (`UpdateTaskResult`); eventually consistent.
    UpdateTaskResult
);
ack_result!(
    /// The acknowledgement of `tasks/cancel` (`CancelTaskResult`); cancellation is
    /// cooperative and the task may still end in another status.
    CancelTaskResult
);

/// Params of `notifications/tasks` (`TaskStatusNotificationParams`): the same task a
/// `tasks/get` would return at that moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// Notification metadata, with the listen stream's subscription id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
}

params_types!(TaskStatusNotificationParams);

request_methods! {
    /// `tasks/get`.
    GetTask = "tasks/get", params GetTaskRequestParams, result GetTaskResult;
    /// `tasks/update`.
    UpdateTask = "tasks/update", params UpdateTaskRequestParams, result UpdateTaskResult;
    /// `tasks/cancel`.
    CancelTask = "tasks/cancel", params CancelTaskRequestParams, result CancelTaskResult;
}

notification_methods! {
    /// `notifications/tasks`: a task's status changed.
    TaskStatusChanged = "notifications/tasks", params TaskStatusNotificationParams;
}

/// `GetTaskRequest`.
pub type GetTaskRequest = JsonRpcRequest<GetTask>;
/// `UpdateTaskRequest`.
pub type UpdateTaskRequest = JsonRpcRequest<UpdateTask>;
/// `CancelTaskRequest`.
pub type CancelTaskRequest = JsonRpcRequest<CancelTask>;
/// `TaskStatusNotification`.
pub type TaskStatusNotification = JsonRpcNotification<TaskStatusChanged>;
/// A response carrying a [`GetTaskResult`].
pub type GetTaskResultResponse = JsonRpcResultResponse<GetTaskResult>;
/// A response carrying an [`UpdateTaskResult`].
pub type UpdateTaskResultResponse = JsonRpcResultResponse<UpdateTaskResult>;
/// A response carrying a [`CancelTaskResult`].
pub type CancelTaskResultResponse = JsonRpcResultResponse<CancelTaskResult>;
/// A response carrying a [`CreateTaskResult`].
pub type CreateTaskResultResponse = JsonRpcResultResponse<CreateTaskResult>;

tagged_union! {
    /// Any request of the extension, chosen by `method`.
    pub enum TaskRequest by "method" {
        /// `tasks/get`.
        "tasks/get" => Get(GetTaskRequest),
        /// `tasks/update`.
        "tasks/update" => Update(UpdateTaskRequest),
        /// `tasks/cancel`.
        "tasks/cancel" => Cancel(CancelTaskRequest),
    }
}

/// Every request method the extension adds, for routing.
pub const TASK_REQUEST_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];
