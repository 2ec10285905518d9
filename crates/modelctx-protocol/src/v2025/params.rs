//! 2025-11-25 request params: `_meta` is optional and holds at most a `progressToken` besides
//! free-form keys; session state (version, capabilities, log level) lives in the session.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::capabilities::ClientCapabilities;
use super::tasks::TaskMetadata;
use crate::jsonrpc::ProgressToken;
use crate::macros::params_types;
use crate::types::{
    CompletionArgument, CompletionContext, CompletionReference, Implementation, LoggingLevel,
};
use crate::version::ProtocolVersion;
use crate::{JsonObject, Meta};

/// The `_meta` of a request: an optional progress token and any other keys.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// Opts into `notifications/progress` carrying this token.
    #[serde(rename = "progressToken", default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// Every other key.
    #[serde(flatten)]
    pub other: Meta,
}

/// Params that carry only `_meta` (`RequestParams`), as `ping` and `roots/list` take.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// Params of a request that may run as a task (`TaskAugmentedRequestParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskAugmentedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Asks the receiver to run the request as a task and answer with a `CreateTaskResult`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

/// Params of list requests (`PaginatedRequestParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Params naming one resource (`ResourceRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The resource URI.
    pub uri: String,
}

/// Params of `resources/read` (`ReadResourceRequestParams`).
pub type ReadResourceRequestParams = ResourceRequestParams;
/// Params of `resources/subscribe` (`SubscribeRequestParams`).
pub type SubscribeRequestParams = ResourceRequestParams;
/// Params of `resources/unsubscribe` (`UnsubscribeRequestParams`).
pub type UnsubscribeRequestParams = ResourceRequestParams;

/// Params of `tools/call` (`CallToolRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallToolRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The tool name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Run the call as a task (needs the server's `tasks.requests.tools.call`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

/// Params of `prompts/get` (`GetPromptRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GetPromptRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The prompt name.
    pub name: String,
    /// Argument values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Params of `completion/complete` (`CompleteRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The prompt or template.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

/// Params of `logging/setLevel` (`SetLevelRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The lowest severity the client wants as `notifications/message`.
    pub level: LoggingLevel,
}

/// Params of `initialize` (`InitializeRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// The latest version the client supports, as sent (it may be one this crate does not
    /// know, or not a date at all; see [`InitializeRequestParams::version`]).
    pub protocol_version: String,
    /// What the client supports for the session.
    pub capabilities: ClientCapabilities,
    /// The client software.
    pub client_info: Implementation,
}

impl InitializeRequestParams {
    /// The requested version, if it is a well-formed `YYYY-MM-DD` date.
    pub fn version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

params_types!(
    RequestParams,
    TaskAugmentedRequestParams,
    PaginatedRequestParams,
    ResourceRequestParams,
    CallToolRequestParams,
    GetPromptRequestParams,
    CompleteRequestParams,
    SetLevelRequestParams,
    InitializeRequestParams,
);
