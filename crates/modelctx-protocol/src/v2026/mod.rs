//! Every type of the 2026-07-28 schema, under the schema's names.
//!
//! Shapes both revisions share come from [`crate::types`] and are re-exported here, so
//! `v2026::X` names the 2026-07-28 `X` for every definition in `schema.json`.

mod capabilities;
mod errors;
mod meta;
mod methods;
mod mrtr;
mod notifications;
mod params;
mod results;
mod tool;

pub use crate::jsonrpc::{ErrorObject as Error, ProgressToken, RequestId};
pub use crate::types::*;
pub use capabilities::{ClientCapabilities, ServerCapabilities};
pub use errors::{
    HeaderMismatchError, InternalError, InvalidParamsError, InvalidRequestError, MethodNotFoundError,
    MissingRequiredClientCapabilityError, ParseError, UnsupportedProtocolVersionError,
};
pub use meta::{
    MetaObject, NotificationMetaObject, RequestMetaObject, ResultMetaObject,
    SubscriptionsListenResultMetaObject,
};
pub use methods::*;
pub use mrtr::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestURLParams, ElicitResult, FormMode, InputRequest, InputRequests, InputResponse,
    InputResponses, ListRootsRequestParams, ListRootsResult, StopReason, UrlMode,
};
pub use notifications::{
    CancelledNotificationParams, ClientNotification, ServerNotification, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams,
};
pub use params::{
    CallToolRequestParams, CompleteRequestParams, GetPromptRequestParams, InputResponseRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, RequestParams, ResourceRequestParams,
    SubscriptionsListenRequestParams,
};
pub use results::{
    CacheScope, CacheableResult, CallToolResult, ClientResult, CompleteResult, DiscoverResult, EmptyResult,
    GetPromptResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, MultiRoundResult, PaginatedResult, ReadResourceResult, ResultType,
    ServerResult, SubscriptionsListenResult,
};
pub use tool::Tool;
