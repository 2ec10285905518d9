//! The result unions of each side (`ServerResult`, `ClientResult`). Results carry no tag, so
//! the member only one shape has tells them apart; prefer the method's own result type
//! (`<M as RequestMethod>::Result`) when the request is known.

use super::client_features::{CreateMessageResult, ElicitResult, ListRootsResult};
use super::results::{
    CallToolResult, CompleteResult, EmptyResult, GetPromptResult, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ReadResourceResult,
    Result as AnyResult,
};
use super::tasks::{CreateTaskResult, GetTaskResult, ListTasksResult};
use crate::macros::sniff::{has, only_meta};
use crate::macros::sniffed_union;

sniffed_union! {
    /// Any result a 2025-11-25 server sends (`ServerResult`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    pub enum ServerResult {
        /// A task-augmented request became a task. (Not in the schema's union, but what
        /// a task-augmented `tools/call` answers.)
        CreateTask(CreateTaskResult) if has("task"),
        /// `tasks/get` or `tasks/cancel` (`GetTaskResult`, `CancelTaskResult`).
        GetTask(GetTaskResult) if has("taskId"),
        /// `tasks/list`.
        ListTasks(ListTasksResult) if has("tasks"),
        /// `initialize`.
        Initialize(InitializeResult) if has("protocolVersion"),
        /// `completion/complete`.
        Complete(CompleteResult) if has("completion"),
        /// `prompts/get`.
        GetPrompt(GetPromptResult) if has("messages"),
        /// `prompts/list`.
        ListPrompts(ListPromptsResult) if has("prompts"),
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplatesResult) if has("resourceTemplates"),
        /// `resources/list`.
        ListResources(ListResourcesResult) if has("resources"),
        /// `resources/read`.
        ReadResource(ReadResourceResult) if has("contents"),
        /// `tools/call` (also a `tasks/result` payload of a tool call).
        CallTool(CallToolResult) if has("content"),
        /// `tools/list`.
        ListTools(ListToolsResult) if has("tools"),
        /// `ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`:
        /// nothing but `_meta`.
        Empty(EmptyResult) if only_meta,
        _ =>
        /// Any other shape, such as a `tasks/result` payload (`GetTaskPayloadResult`).
        Other(AnyResult),
    }
}

sniffed_union! {
    /// Any result a 2025-11-25 client sends (`ClientResult`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    pub enum ClientResult {
        /// A task-augmented request became a task. (Not in the schema's union, but what
        /// a task-augmented `sampling/createMessage` or `elicitation/create` answers.)
        CreateTask(CreateTaskResult) if has("task"),
        /// `tasks/get` or `tasks/cancel` (`GetTaskResult`, `CancelTaskResult`).
        GetTask(GetTaskResult) if has("taskId"),
        /// `tasks/list`.
        ListTasks(ListTasksResult) if has("tasks"),
        /// `elicitation/create`.
        Elicit(ElicitResult) if has("action"),
        /// `roots/list`.
        ListRoots(ListRootsResult) if has("roots"),
        /// `sampling/createMessage`.
        CreateMessage(CreateMessageResult) if has("model"),
        /// `ping`: nothing but `_meta`.
        Empty(EmptyResult) if only_meta,
        _ =>
        /// Any other shape, such as a `tasks/result` payload (`GetTaskPayloadResult`).
        Other(AnyResult),
    }
}
