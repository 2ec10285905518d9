//! What a 2025-11-25 server may ask of the client with requests of its own: sampling,
//! elicitation (form and URL mode) and roots. Sampling and elicitation may run as tasks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::params::RequestMeta;
use super::tasks::TaskMetadata;
use super::tool::Tool;
use crate::macros::{params_types, tagged_union};
use crate::types::{
    ElicitAction, ElicitValue, IncludeContext, ModelPreferences, RequestedSchema, Root, SamplingMessage,
    ToolChoice,
};
use crate::{JsonObject, Meta};

// Identical in both revisions; defined once, in the 2026-07-28 module.
pub use crate::v2026::{CreateMessageResult, FormMode, StopReason, UrlMode};

/// Params of `sampling/createMessage` (`CreateMessageRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Run the request as a task (needs the client's `tasks.requests.sampling.createMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may change or ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include (`thisServer`/`allServers` need the client's `sampling.context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may call (needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// Ask the user to fill in a form (`ElicitRequestFormParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Run the request as a task (needs the client's `tasks.requests.elicitation.create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `"form"`, or absent (which means form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What to tell the user.
    pub message: String,
    /// The form.
    pub requested_schema: RequestedSchema,
}

/// Ask the user to visit a URL (`ElicitRequestURLParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Run the request as a task (needs the client's `tasks.requests.elicitation.create`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Always `"url"`.
    pub mode: UrlMode,
    /// What to tell the user.
    pub message: String,
    /// Identifies this elicitation in `notifications/elicitation/complete`.
    pub elicitation_id: String,
    /// Where to send the user.
    pub url: String,
}

tagged_union! {
    /// Form or URL elicitation (`ElicitRequestParams`), by `mode` (absent means form).
    pub enum ElicitRequestParams by "mode" or "form" {
        /// Form mode.
        "form" => Form(ElicitRequestFormParams),
        /// URL mode.
        "url" => Url(ElicitRequestURLParams),
    }
}

/// The user's answer (`ElicitResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form, for `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The client's roots (`ListRootsResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

params_types!(CreateMessageRequestParams, ElicitRequestParams);
