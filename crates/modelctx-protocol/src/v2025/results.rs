//! 2025-11-25 results of client requests: no `resultType`, no cache hints, an optional
//! plain `_meta`.

use serde::{Deserialize, Serialize};

use super::capabilities::ServerCapabilities;
use super::tool::Tool;
use crate::macros::list_result;
use crate::types::{
    Completion, ContentBlock, Implementation, Prompt, PromptMessage, Resource, ResourceTemplate, TextOrBlob,
};
use crate::version::ProtocolVersion;
use crate::{JsonObject, Meta};

/// A result that carries nothing (`EmptyResult`): the answer to `ping`, `logging/setLevel`,
/// `resources/subscribe` and `resources/unsubscribe`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Any result (`Result`): `_meta` and members of any shape, kept as they came.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Result {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Every other member.
    #[serde(flatten)]
    pub members: JsonObject,
}

/// The pagination mixin (`PaginatedResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedResult {
    /// Where the next page starts; absent on the last page (an empty string is a cursor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `initialize` (`InitializeResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the server chose; the client disconnects if it cannot speak it.
    pub protocol_version: String,
    /// What the server offers for the session.
    pub capabilities: ServerCapabilities,
    /// The server software.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeResult {
    /// The chosen version, if it is a well-formed `YYYY-MM-DD` date.
    pub fn version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

list_result! {
    meta Meta,
    extra {};
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
pub struct ReadResourceResult {
    /// The contents (several for a composite resource).
    pub contents: Vec<TextOrBlob>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `tools/call` (`CallToolResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Structured output: an object conforming to the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<JsonObject>,
    /// Whether the tool failed (the model sees the failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `prompts/get` (`GetPromptResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The answer to `completion/complete` (`CompleteResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
