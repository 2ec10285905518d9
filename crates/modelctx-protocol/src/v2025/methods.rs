//! 2025-11-25 method markers, the typed request and notification aliases the schema names
//! (`CallToolRequest`, `InitializedNotification`, …), and the request unions of each side.

use super::client_features::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult,
};
use super::notifications::{CancelledNotificationParams, ElicitationCompleteNotificationParams};
use super::params::{
    CallToolRequestParams, CompleteRequestParams, GetPromptRequestParams, InitializeRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, RequestParams, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use super::results::{
    CallToolResult, CompleteResult, EmptyResult, GetPromptResult, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ReadResourceResult,
};
use super::tasks::{
    CancelTaskResult, GetTaskPayloadResult, GetTaskResult, ListTasksResult, TaskAugmentedResult,
    TaskIdParams, TaskStatusNotificationParams,
};
use crate::jsonrpc::{JsonRpcNotification, JsonRpcRequest};
use crate::macros::{notification_methods, request_methods, tagged_union};
use crate::types::{
    LoggingMessageNotificationParams, NotificationParams, ProgressNotificationParams,
    ResourceUpdatedNotificationParams,
};

request_methods! {
    /// `initialize`.
    Initialize = "initialize", params InitializeRequestParams, result InitializeResult;
    /// `ping`, sent by either side.
    Ping = "ping", params Option<RequestParams>, result EmptyResult;
    /// `resources/list`.
    ListResources = "resources/list", params Option<PaginatedRequestParams>, result ListResourcesResult;
    /// `resources/templates/list`.
    ListResourceTemplates = "resources/templates/list", params Option<PaginatedRequestParams>, result ListResourceTemplatesResult;
    /// `resources/read`.
    ReadResource = "resources/read", params ReadResourceRequestParams, result ReadResourceResult;
    /// `resources/subscribe`.
    Subscribe = "resources/subscribe", params SubscribeRequestParams, result EmptyResult;
    /// `resources/unsubscribe`.
    Unsubscribe = "resources/unsubscribe", params UnsubscribeRequestParams, result EmptyResult;
    /// `prompts/list`.
    ListPrompts = "prompts/list", params Option<PaginatedRequestParams>, result ListPromptsResult;
    /// `prompts/get`.
    GetPrompt = "prompts/get", params GetPromptRequestParams, result GetPromptResult;
    /// `tools/list`.
    ListTools = "tools/list", params Option<PaginatedRequestParams>, result ListToolsResult;
    /// `tools/call`; a `CreateTaskResult` answers it when the params carry `task`.
    CallTool = "tools/call", params CallToolRequestParams, result TaskAugmentedResult<CallToolResult>;
    /// `tasks/get`, sent by either side.
    GetTask = "tasks/get", params TaskIdParams, result GetTaskResult;
    /// `tasks/result`, sent by either side.
    GetTaskPayload = "tasks/result", params TaskIdParams, result GetTaskPayloadResult;
    /// `tasks/cancel`, sent by either side.
    CancelTask = "tasks/cancel", params TaskIdParams, result CancelTaskResult;
    /// `tasks/list`, sent by either side.
    ListTasks = "tasks/list", params Option<PaginatedRequestParams>, result ListTasksResult;
    /// `logging/setLevel`.
    SetLevel = "logging/setLevel", params SetLevelRequestParams, result EmptyResult;
    /// `completion/complete`.
    Complete = "completion/complete", params CompleteRequestParams, result CompleteResult;
    /// `sampling/createMessage`, server to client; a `CreateTaskResult` answers it when the
    /// params carry `task`.
    CreateMessage = "sampling/createMessage", params CreateMessageRequestParams, result TaskAugmentedResult<CreateMessageResult>;
    /// `roots/list`, server to client.
    ListRoots = "roots/list", params Option<RequestParams>, result ListRootsResult;
    /// `elicitation/create`, server to client; a `CreateTaskResult` answers it when the
    /// params carry `task`.
    Elicit = "elicitation/create", params ElicitRequestParams, result TaskAugmentedResult<ElicitResult>;
}

notification_methods! {
    /// `notifications/cancelled`, sent by either side.
    Cancelled = "notifications/cancelled", params CancelledNotificationParams;
    /// `notifications/initialized`, client to server.
    Initialized = "notifications/initialized", params Option<NotificationParams>;
    /// `notifications/progress`, sent by either side.
    Progress = "notifications/progress", params ProgressNotificationParams;
    /// `notifications/tasks/status`, sent by either side.
    TaskStatusChanged = "notifications/tasks/status", params TaskStatusNotificationParams;
    /// `notifications/roots/list_changed`, client to server.
    RootsListChanged = "notifications/roots/list_changed", params Option<NotificationParams>;
    /// `notifications/message`, server to client.
    LoggingMessage = "notifications/message", params LoggingMessageNotificationParams;
    /// `notifications/resources/updated`, server to client.
    ResourceUpdated = "notifications/resources/updated", params ResourceUpdatedNotificationParams;
    /// `notifications/resources/list_changed`, server to client.
    ResourceListChanged = "notifications/resources/list_changed", params Option<NotificationParams>;
    /// `notifications/tools/list_changed`, server to client.
    ToolListChanged = "notifications/tools/list_changed", params Option<NotificationParams>;
    /// `notifications/prompts/list_changed`, server to client.
    PromptListChanged = "notifications/prompts/list_changed", params Option<NotificationParams>;
    /// `notifications/elicitation/complete`, server to client.
    ElicitationComplete = "notifications/elicitation/complete", params ElicitationCompleteNotificationParams;
}

/// `InitializeRequest`.
pub type InitializeRequest = JsonRpcRequest<Initialize>;
/// `PingRequest`.
pub type PingRequest = JsonRpcRequest<Ping>;
/// `ListResourcesRequest`.
pub type ListResourcesRequest = JsonRpcRequest<ListResources>;
/// `ListResourceTemplatesRequest`.
pub type ListResourceTemplatesRequest = JsonRpcRequest<ListResourceTemplates>;
/// `ReadResourceRequest`.
pub type ReadResourceRequest = JsonRpcRequest<ReadResource>;
/// `SubscribeRequest`.
pub type SubscribeRequest = JsonRpcRequest<Subscribe>;
/// `UnsubscribeRequest`.
pub type UnsubscribeRequest = JsonRpcRequest<Unsubscribe>;
/// `ListPromptsRequest`.
pub type ListPromptsRequest = JsonRpcRequest<ListPrompts>;
/// `GetPromptRequest`.
pub type GetPromptRequest = JsonRpcRequest<GetPrompt>;
/// `ListToolsRequest`.
pub type ListToolsRequest = JsonRpcRequest<ListTools>;
/// `CallToolRequest`.
pub type CallToolRequest = JsonRpcRequest<CallTool>;
/// `GetTaskRequest`.
pub type GetTaskRequest = JsonRpcRequest<GetTask>;
/// `GetTaskPayloadRequest`.
pub type GetTaskPayloadRequest = JsonRpcRequest<GetTaskPayload>;
/// `CancelTaskRequest`.
pub type CancelTaskRequest = JsonRpcRequest<CancelTask>;
/// `ListTasksRequest`.
pub type ListTasksRequest = JsonRpcRequest<ListTasks>;
/// `SetLevelRequest`.
pub type SetLevelRequest = JsonRpcRequest<SetLevel>;
/// `CompleteRequest`.
pub type CompleteRequest = JsonRpcRequest<Complete>;
/// `CreateMessageRequest`.
pub type CreateMessageRequest = JsonRpcRequest<CreateMessage>;
/// `ListRootsRequest`.
pub type ListRootsRequest = JsonRpcRequest<ListRoots>;
/// `ElicitRequest`.
pub type ElicitRequest = JsonRpcRequest<Elicit>;

/// `CancelledNotification`.
pub type CancelledNotification = JsonRpcNotification<Cancelled>;
/// `InitializedNotification`.
pub type InitializedNotification = JsonRpcNotification<Initialized>;
/// `ProgressNotification`.
pub type ProgressNotification = JsonRpcNotification<Progress>;
/// `TaskStatusNotification`.
pub type TaskStatusNotification = JsonRpcNotification<TaskStatusChanged>;
/// `RootsListChangedNotification`.
pub type RootsListChangedNotification = JsonRpcNotification<RootsListChanged>;
/// `LoggingMessageNotification`.
pub type LoggingMessageNotification = JsonRpcNotification<LoggingMessage>;
/// `ResourceUpdatedNotification`.
pub type ResourceUpdatedNotification = JsonRpcNotification<ResourceUpdated>;
/// `ResourceListChangedNotification`.
pub type ResourceListChangedNotification = JsonRpcNotification<ResourceListChanged>;
/// `ToolListChangedNotification`.
pub type ToolListChangedNotification = JsonRpcNotification<ToolListChanged>;
/// `PromptListChangedNotification`.
pub type PromptListChangedNotification = JsonRpcNotification<PromptListChanged>;
/// `ElicitationCompleteNotification`.
pub type ElicitationCompleteNotification = JsonRpcNotification<ElicitationComplete>;

tagged_union! {
    /// Any request a 2025-11-25 client sends (`ClientRequest`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    pub enum ClientRequest by "method" {
        /// `initialize`.
        "initialize" => Initialize(InitializeRequest),
        /// `ping`.
        "ping" => Ping(PingRequest),
        /// `resources/list`.
        "resources/list" => ListResources(ListResourcesRequest),
        /// `resources/templates/list`.
        "resources/templates/list" => ListResourceTemplates(ListResourceTemplatesRequest),
        /// `resources/read`.
        "resources/read" => ReadResource(ReadResourceRequest),
        /// `resources/subscribe`.
        "resources/subscribe" => Subscribe(SubscribeRequest),
        /// `resources/unsubscribe`.
        "resources/unsubscribe" => Unsubscribe(UnsubscribeRequest),
        /// `prompts/list`.
        "prompts/list" => ListPrompts(ListPromptsRequest),
        /// `prompts/get`.
        "prompts/get" => GetPrompt(GetPromptRequest),
        /// `tools/list`.
        "tools/list" => ListTools(ListToolsRequest),
        /// `tools/call`.
        "tools/call" => CallTool(CallToolRequest),
        /// `tasks/get`.
        "tasks/get" => GetTask(GetTaskRequest),
        /// `tasks/result`.
        "tasks/result" => GetTaskPayload(GetTaskPayloadRequest),
        /// `tasks/cancel`.
        "tasks/cancel" => CancelTask(CancelTaskRequest),
        /// `tasks/list`.
        "tasks/list" => ListTasks(ListTasksRequest),
        /// `logging/setLevel`.
        "logging/setLevel" => SetLevel(SetLevelRequest),
        /// `completion/complete`.
        "completion/complete" => Complete(CompleteRequest),
    }
}

tagged_union! {
    /// Any request a 2025-11-25 server sends (`ServerRequest`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    pub enum ServerRequest by "method" {
        /// `ping`.
        "ping" => Ping(PingRequest),
        /// `tasks/get`.
        "tasks/get" => GetTask(GetTaskRequest),
        /// `tasks/result`.
        "tasks/result" => GetTaskPayload(GetTaskPayloadRequest),
        /// `tasks/cancel`.
        "tasks/cancel" => CancelTask(CancelTaskRequest),
        /// `tasks/list`.
        "tasks/list" => ListTasks(ListTasksRequest),
        /// `sampling/createMessage`.
        "sampling/createMessage" => CreateMessage(CreateMessageRequest),
        /// `roots/list`.
        "roots/list" => ListRoots(ListRootsRequest),
        /// `elicitation/create`.
        "elicitation/create" => Elicit(ElicitRequest),
    }
}

/// Every request method a 2025-11-25 server answers, for routing unknown methods to `-32601`.
pub const CLIENT_REQUEST_METHODS: [&str; 17] = [
    "initialize",
    "ping",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "tools/call",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
    "tasks/list",
    "logging/setLevel",
    "completion/complete",
];
