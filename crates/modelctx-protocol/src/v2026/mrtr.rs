//! Multi round-trip requests: what a 2026-07-28 server may ask of the client inside an
//! `InputRequiredResult`, and the answers the client sends back on its retry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::methods::{CreateMessageRequest, ElicitRequest, ListRootsRequest};
use super::tool::Tool;
use crate::macros::sniff::has;
use crate::macros::{literal, open_enum, params_types, sniffed_union, tagged_union};
use crate::types::{
    ElicitAction, ElicitValue, IncludeContext, ModelPreferences, RequestedSchema, Role, Root,
    SamplingContent, SamplingMessage, ToolChoice,
};
use crate::{JsonObject, Meta};

/// Params of a sampling input request (`CreateMessageRequestParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may change or ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include (deprecated beyond `none`).
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

impl CreateMessageRequestParams {
    /// A request to sample at most `max_tokens` after `messages`, with no other preferences.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }
}

open_enum! {
    /// Why sampling stopped.
    pub enum StopReason {
        /// The model finished its turn.
        "endTurn" => EndTurn,
        /// A stop sequence was produced.
        "stopSequence" => StopSequence,
        /// `maxTokens` was reached.
        "maxTokens" => MaxTokens,
        /// The model wants to call tools.
        "toolUse" => ToolUse,
    }
}

/// The client's sampling answer (`CreateMessageResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally `assistant`).
    pub role: Role,
    /// What was sampled.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

literal!(
    /// `"mode": "form"`.
    pub FormMode = "form"
);
literal!(
    /// `"mode": "url"`.
    pub UrlMode = "url"
);

/// Ask the user to fill in a form (`ElicitRequestFormParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
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
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: UrlMode,
    /// What to tell the user.
    pub message: String,
    /// Where to send them.
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
}

/// Params of a roots input request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsRequestParams {
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The client's roots (`ListRootsResult`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

params_types!(CreateMessageRequestParams, ElicitRequestParams, ListRootsRequestParams);

tagged_union! {
    /// One thing the server asks of the client (`InputRequest`).
    pub enum InputRequest by "method" {
        /// Sample from the client's model.
        "sampling/createMessage" => CreateMessage(CreateMessageRequest),
        /// List the client's roots.
        "roots/list" => ListRoots(ListRootsRequest),
        /// Ask the user.
        "elicitation/create" => Elicit(ElicitRequest),
    }
}

/// The input requests of one round, by server-chosen key (`InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

sniffed_union! {
    /// One answer to an input request (`InputResponse`); these carry no tag, so the shape
    /// tells them apart: `action` is an elicitation, `roots` a roots list, otherwise a
    /// sampling result.
    pub enum InputResponse {
        /// An elicitation answer.
        Elicit(ElicitResult) if has("action"),
        /// A roots list.
        ListRoots(ListRootsResult) if has("roots"),
        _ =>
        /// A sampling result.
        CreateMessage(CreateMessageResult),
    }
}

/// The answers of one round, keyed like the requests (`InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;
