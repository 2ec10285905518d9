//! 2026-07-28 request params: each carries the required `_meta`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta::RequestMetaObject;
use super::mrtr::InputResponses;
use super::notifications::SubscriptionFilter;
use crate::JsonObject;
use crate::macros::params_types;
use crate::types::{CompletionArgument, CompletionContext, CompletionReference};

/// Params that carry only `_meta` (`RequestParams`), as `server/discover` takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Version, capabilities and other request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
}

/// The retry members of a multi-round-trip request (`InputResponseRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`, echoed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// Params of list requests (`PaginatedRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Params naming one resource (`ResourceRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The resource URI.
    pub uri: String,
}

/// Params of `resources/read` (`ReadResourceRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The resource URI.
    pub uri: String,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// Params of `tools/call` (`CallToolRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The tool name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// Params of `prompts/get` (`GetPromptRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The prompt name.
    pub name: String,
    /// Argument values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to the previous round's `inputRequests`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The previous round's `requestState`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

/// Params of `completion/complete` (`CompleteRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// The prompt or template.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
}

/// Params of `subscriptions/listen` (`SubscriptionsListenRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta")]
    pub meta: RequestMetaObject,
    /// Which notifications to receive.
    pub notifications: SubscriptionFilter,
}

params_types!(
    RequestParams,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    CallToolRequestParams,
    GetPromptRequestParams,
    CompleteRequestParams,
    SubscriptionsListenRequestParams,
);
