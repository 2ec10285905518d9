//! 2026-07-28 method markers and the typed request, notification and response aliases the
//! schema names (`CallToolRequest`, `CallToolResultResponse`, …).

use super::mrtr::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ListRootsRequestParams, ListRootsResult,
};
use super::notifications::{CancelledNotificationParams, SubscriptionsAcknowledgedNotificationParams};
use super::params::{
    CallToolRequestParams, CompleteRequestParams, GetPromptRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, RequestParams, SubscriptionsListenRequestParams,
};
use super::results::{
    CallToolResult, CompleteResult, DiscoverResult, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MultiRoundResult, ReadResourceResult,
    SubscriptionsListenResult,
};
use crate::jsonrpc::{
    AnyMethodRequest, JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse, MethodCall,
};
use crate::macros::{notification_methods, request_methods, tagged_union};
use crate::types::{
    LoggingMessageNotificationParams, NotificationParams, ProgressNotificationParams,
    ResourceUpdatedNotificationParams,
};

request_methods! {
    /// `server/discover`.
    Discover = "server/discover", params RequestParams, result DiscoverResult;
    /// `resources/list`.
    ListResources = "resources/list", params PaginatedRequestParams, result ListResourcesResult;
    /// `resources/templates/list`.
    ListResourceTemplates = "resources/templates/list", params PaginatedRequestParams, result ListResourceTemplatesResult;
    /// `resources/read`.
    ReadResource = "resources/read", params ReadResourceRequestParams, result MultiRoundResult<ReadResourceResult>;
    /// `subscriptions/listen`.
    SubscriptionsListen = "subscriptions/listen", params SubscriptionsListenRequestParams, result SubscriptionsListenResult;
    /// `prompts/list`.
    ListPrompts = "prompts/list", params PaginatedRequestParams, result ListPromptsResult;
    /// `prompts/get`.
    GetPrompt = "prompts/get", params GetPromptRequestParams, result MultiRoundResult<GetPromptResult>;
    /// `tools/list`.
    ListTools = "tools/list", params PaginatedRequestParams, result ListToolsResult;
    /// `tools/call`.
    CallTool = "tools/call", params CallToolRequestParams, result MultiRoundResult<CallToolResult>;
    /// `completion/complete`.
    Complete = "completion/complete", params CompleteRequestParams, result CompleteResult;
    /// `sampling/createMessage`, only inside `inputRequests`.
    CreateMessage = "sampling/createMessage", params CreateMessageRequestParams, result CreateMessageResult;
    /// `roots/list`, only inside `inputRequests`.
    ListRoots = "roots/list", params Option<ListRootsRequestParams>, result ListRootsResult;
    /// `elicitation/create`, only inside `inputRequests`.
    Elicit = "elicitation/create", params ElicitRequestParams, result ElicitResult;
}

notification_methods! {
    /// `notifications/cancelled`.
    Cancelled = "notifications/cancelled", params CancelledNotificationParams;
    /// `notifications/progress`.
    Progress = "notifications/progress", params ProgressNotificationParams;
    /// `notifications/message`.
    LoggingMessage = "notifications/message", params LoggingMessageNotificationParams;
    /// `notifications/resources/updated`.
    ResourceUpdated = "notifications/resources/updated", params ResourceUpdatedNotificationParams;
    /// `notifications/resources/list_changed`.
    ResourceListChanged = "notifications/resources/list_changed", params Option<NotificationParams>;
    /// `notifications/tools/list_changed`.
    ToolListChanged = "notifications/tools/list_changed", params Option<NotificationParams>;
    /// `notifications/prompts/list_changed`.
    PromptListChanged = "notifications/prompts/list_changed", params Option<NotificationParams>;
    /// `notifications/subscriptions/acknowledged`.
    SubscriptionsAcknowledged = "notifications/subscriptions/acknowledged", params SubscriptionsAcknowledgedNotificationParams;
}

/// `PaginatedRequest`: any list request.
pub type PaginatedRequest = AnyMethodRequest<PaginatedRequestParams>;
/// `DiscoverRequest`.
pub type DiscoverRequest = JsonRpcRequest<Discover>;
/// `ListResourcesRequest`.
pub type ListResourcesRequest = JsonRpcRequest<ListResources>;
/// `ListResourceTemplatesRequest`.
pub type ListResourceTemplatesRequest = JsonRpcRequest<ListResourceTemplates>;
/// `ReadResourceRequest`.
pub type ReadResourceRequest = JsonRpcRequest<ReadResource>;
/// `SubscriptionsListenRequest`.
pub type SubscriptionsListenRequest = JsonRpcRequest<SubscriptionsListen>;
/// `ListPromptsRequest`.
pub type ListPromptsRequest = JsonRpcRequest<ListPrompts>;
/// `GetPromptRequest`.
pub type GetPromptRequest = JsonRpcRequest<GetPrompt>;
/// `ListToolsRequest`.
pub type ListToolsRequest = JsonRpcRequest<ListTools>;
/// `CallToolRequest`.
pub type CallToolRequest = JsonRpcRequest<CallTool>;
/// `CompleteRequest`.
pub type CompleteRequest = JsonRpcRequest<Complete>;
/// `CreateMessageRequest`: an input request, without the JSON-RPC envelope.
pub type CreateMessageRequest = MethodCall<CreateMessage>;
/// `ListRootsRequest`: an input request, without the JSON-RPC envelope.
pub type ListRootsRequest = MethodCall<ListRoots>;
/// `ElicitRequest`: an input request, without the JSON-RPC envelope.
pub type ElicitRequest = MethodCall<Elicit>;

/// `CancelledNotification`.
pub type CancelledNotification = JsonRpcNotification<Cancelled>;
/// `ProgressNotification`.
pub type ProgressNotification = JsonRpcNotification<Progress>;
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
/// `SubscriptionsAcknowledgedNotification`.
pub type SubscriptionsAcknowledgedNotification = JsonRpcNotification<SubscriptionsAcknowledged>;

/// `DiscoverResultResponse`.
pub type DiscoverResultResponse = JsonRpcResultResponse<DiscoverResult>;
/// `ListResourcesResultResponse`.
pub type ListResourcesResultResponse = JsonRpcResultResponse<ListResourcesResult>;
/// `ListResourceTemplatesResultResponse`.
pub type ListResourceTemplatesResultResponse = JsonRpcResultResponse<ListResourceTemplatesResult>;
/// `ReadResourceResultResponse`.
pub type ReadResourceResultResponse = JsonRpcResultResponse<MultiRoundResult<ReadResourceResult>>;
/// `SubscriptionsListenResultResponse`.
pub type SubscriptionsListenResultResponse = JsonRpcResultResponse<SubscriptionsListenResult>;
/// `ListPromptsResultResponse`.
pub type ListPromptsResultResponse = JsonRpcResultResponse<ListPromptsResult>;
/// `GetPromptResultResponse`.
pub type GetPromptResultResponse = JsonRpcResultResponse<MultiRoundResult<GetPromptResult>>;
/// `ListToolsResultResponse`.
pub type ListToolsResultResponse = JsonRpcResultResponse<ListToolsResult>;
/// `CallToolResultResponse`.
pub type CallToolResultResponse = JsonRpcResultResponse<MultiRoundResult<CallToolResult>>;
/// `CompleteResultResponse`.
pub type CompleteResultResponse = JsonRpcResultResponse<CompleteResult>;

tagged_union! {
    /// Any request a 2026-07-28 client sends (`ClientRequest`).
    pub enum ClientRequest by "method" {
        /// `server/discover`.
        "server/discover" => Discover(DiscoverRequest),
        /// `completion/complete`.
        "completion/complete" => Complete(CompleteRequest),
        /// `prompts/get`.
        "prompts/get" => GetPrompt(GetPromptRequest),
        /// `prompts/list`.
        "prompts/list" => ListPrompts(ListPromptsRequest),
        /// `resources/list`.
        "resources/list" => ListResources(ListResourcesRequest),
        /// `resources/templates/list`.
        "resources/templates/list" => ListResourceTemplates(ListResourceTemplatesRequest),
        /// `resources/read`.
        "resources/read" => ReadResource(ReadResourceRequest),
        /// `subscriptions/listen`.
        "subscriptions/listen" => SubscriptionsListen(SubscriptionsListenRequest),
        /// `tools/call`.
        "tools/call" => CallTool(CallToolRequest),
        /// `tools/list`.
        "tools/list" => ListTools(ListToolsRequest),
    }
}

/// Every request method a 2026-07-28 server answers, for routing unknown methods to `-32601`.
pub const CLIENT_REQUEST_METHODS: [&str; 10] = [
    "server/discover",
    "completion/complete",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
];
