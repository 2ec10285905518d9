//! Every type of the 2025-11-25 schema, under the schema's names.
//!
//! Shapes both revisions share come from [`crate::types`] and are re-exported here, so
//! `v2025::X` names the 2025-11-25 `X` for every definition in `schema.json`. This is the
//! session revision: `initialize` negotiates version and capabilities once, `_meta` is
//! optional everywhere, the server sends JSON-RPC requests of its own (sampling,
//! elicitation, roots, ping), and experimental core tasks let a request run in the
//! background.
//!
//! `Result` and `Error` are schema names too: a glob import of this module shadows the
//! prelude's `Result`, so prefer importing names one by one.

mod capabilities;
mod client_features;
mod errors;
mod jsonrpc;
mod methods;
mod notifications;
mod params;
mod result_unions;
mod results;
mod tasks;
mod tool;

pub use crate::jsonrpc::{ErrorObject as Error, ProgressToken, RequestId};
pub use crate::types::*;
pub use capabilities::{
    ClientCapabilities, ClientTaskRequests, ClientTasksCapability, ElicitationTaskRequests,
    SamplingTaskRequests, ServerCapabilities, ServerTaskRequests, ServerTasksCapability, TasksCapability,
    ToolsTaskRequests,
};
pub use client_features::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestURLParams, ElicitResult, FormMode, ListRootsResult, StopReason, UrlMode,
};
pub use errors::{URLElicitationRequiredError, url_elicitation_required};
pub use jsonrpc::{
    Cursor, JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse,
    JSONRPCResultResponse, Notification, PaginatedRequest, Request,
};
pub use methods::*;
pub use notifications::{
    CancelledNotificationParams, ClientNotification, ElicitationCompleteNotificationParams,
    ServerNotification,
};
pub use params::{
    CallToolRequestParams, CompleteRequestParams, GetPromptRequestParams, InitializeRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, RequestMeta, RequestParams, ResourceRequestParams,
    SetLevelRequestParams, SubscribeRequestParams, TaskAugmentedRequestParams, UnsubscribeRequestParams,
};
pub use result_unions::{ClientResult, ServerResult};
pub use results::{
    CallToolResult, CompleteResult, EmptyResult, GetPromptResult, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedResult, ReadResourceResult,
    Result,
};
pub use tasks::{
    CancelTaskResult, CreateTaskResult, GetTaskPayloadResult, GetTaskResult, ListTasksResult,
    RelatedTaskMetadata, Task, TaskAugmentedResult, TaskIdParams, TaskMetadata, TaskStatusNotificationParams,
};
pub use tool::{TaskSupport, Tool, ToolExecution};
