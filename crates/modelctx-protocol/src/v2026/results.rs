//! 2026-07-28 results: every one carries `resultType`; cacheable ones carry `ttlMs` and
//! `cacheScope`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::ServerCapabilities;
use super::meta::{ResultMetaObject, SubscriptionsListenResultMetaObject};
use super::mrtr::InputRequests;
use super::tool::Tool;
use crate::macros::sniff::{has, nested, string_is};
use crate::macros::{list_result, open_enum, sniffed_union};
use crate::types::{Completion, ContentBlock, Prompt, PromptMessage, Resource, ResourceTemplate, TextOrBlob};

open_enum! {
    /// What kind of result this is (`ResultType`). Absent on the wire means `complete`.
    #[derive(Default)]
    pub enum ResultType {
        /// The request finished.
        #[default]
        "complete" => Complete,
        /// The server needs input before it can finish (MRTR).
        "input_required" => InputRequired,
        /// The tasks extension: the request continues as a task.
        "task" => Task,
    }
}

/// Who may reuse a cached result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Holds no user data; any client or gateway may share it.
    Public,
    /// Reusable only within the same authorization context; what an absent scope means.
    #[default]
    Private,
}

/// A result with nothing but its type (`Result`, `EmptyResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Always `complete` for an empty result.
    #[serde(default)]
    pub result_type: ResultType,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// What a client answers (`ClientResult`); 2026-07-28 clients send no responses, so only the
/// empty result remains.
pub type ClientResult = EmptyResult;

/// The cache hint mixin (`CacheableResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheableResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Milliseconds the result stays fresh. Servers always send it; absent (an older
    /// server) counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it. Servers always send it; absent counts as private.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The pagination mixin (`PaginatedResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Where the next page starts; absent on the last page (an empty string is a cursor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

list_result! {
    meta ResultMetaObject,
    extra {
        /// The result type.
        #[serde(default)]
        pub result_type: ResultType,
        /// Milliseconds this page stays fresh. Absent (an older server) counts as 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ttl_ms: Option<u64>,
        /// Who may reuse it; absent counts as private.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cache_scope: Option<CacheScope>,
    };
    /// A page of `tools/list` (`ListToolsResult`).
    ListToolsResult { tools: Tool = "tools" }
    /// A page of `prompts/list` (`ListPromptsResult`).
    ListPromptsResult { prompts: Prompt = "prompts" }
    /// A page of `resources/list` (`ListResourcesResult`).
    ListResourcesResult { resources: Resource = "resources" }
    /// A page of `resources/templates/list` (`ListResourceTemplatesResult`).
    ListResourceTemplatesResult { resource_templates: ResourceTemplate = "resourceTemplates" }
}

/// The answer to `resources/read` (`ReadResourceResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// The contents (several for a composite resource).
    pub contents: Vec<TextOrBlob>,
    /// Milliseconds the contents stay fresh. Absent (an older server) counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse them; absent counts as private.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The answer to `server/discover` (`DiscoverResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Every protocol version the server serves.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Milliseconds this answer stays fresh. Absent (an older server) counts as 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse it; absent counts as private.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata, with `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The answer to `tools/call` (`CallToolResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Structured output: any JSON value, conforming to the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (the model sees the failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The answer to `prompts/get` (`GetPromptResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The answer to `completion/complete` (`CompleteResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// The suggestions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

/// The final answer on a `subscriptions/listen` stream when the server closes it
/// gracefully (`SubscriptionsListenResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// The result type.
    #[serde(default)]
    pub result_type: ResultType,
    /// Carries the subscription id.
    #[serde(rename = "_meta")]
    pub meta: SubscriptionsListenResultMetaObject,
}

/// The server needs the client to fulfil requests before it can finish
/// (`InputRequiredResult`). At least one of the two members is present.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `input_required`.
    pub result_type: ResultType,
    /// What the client should do, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResultMetaObject>,
}

sniffed_union! {
    /// The result of a request that may need more rounds: `tools/call`, `prompts/get`,
    /// `resources/read`. Chosen by `resultType`.
    #[allow(
        clippy::large_enum_variant,
        reason = "the complete result is as large in practice; boxing would allocate for every result"
    )]
    pub enum MultiRoundResult<T> {
        /// The server needs input first.
        InputRequired(InputRequiredResult) if string_is("resultType", "input_required"),
        _ =>
        /// The request finished.
        Complete(T),
    }
}

sniffed_union! {
    /// Any result a server sends (`ServerResult`), told apart by `resultType` and by the
    /// member that only one result shape has. Prefer the method's own result type when it is
    /// known.
    pub enum ServerResult {
        /// `input_required`.
        InputRequired(InputRequiredResult) if string_is("resultType", "input_required"),
        /// `server/discover`.
        Discover(DiscoverResult) if has("supportedVersions"),
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
        /// `tools/call`.
        CallTool(CallToolResult) if has("content"),
        /// `tools/list`.
        ListTools(ListToolsResult) if has("tools"),
        /// The graceful end of `subscriptions/listen`.
        SubscriptionsListen(SubscriptionsListenResult) if nested("_meta", crate::meta::SUBSCRIPTION_ID),
        _ =>
        /// Anything else: an empty result.
        Empty(EmptyResult),
    }
}
