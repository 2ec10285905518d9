//! Sampling shapes shared by both revisions: messages, content, model preferences.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::common::Role;
use super::content::{AudioContent, ContentBlock, ImageContent, TextContent};
use crate::macros::{literal, tagged_union};
use crate::{JsonObject, Meta};

literal!(
    /// The `"tool_use"` tag of [`ToolUseContent`].
    pub ToolUseType = "tool_use"
);
literal!(
    /// The `"tool_result"` tag of [`ToolResultContent`].
    pub ToolResultType = "tool_result"
);

/// The model asks to call a tool (`ToolUseContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type")]
    pub kind: ToolUseType,
    /// Id that the matching result will reference.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments.
    pub input: JsonObject,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of a tool call the model asked for (`ToolResultContent`).
///
/// `structuredContent` is any JSON value in 2026-07-28 and an object in 2025-11-25.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: ToolResultType,
    /// The `id` of the [`ToolUseContent`] answered.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

tagged_union! {
    /// Content of a sampling message (`SamplingMessageContentBlock`).
    pub enum SamplingMessageContentBlock by "type" {
        /// Text.
        "text" => Text(TextContent),
        /// An image.
        "image" => Image(ImageContent),
        /// Audio.
        "audio" => Audio(AudioContent),
        /// A tool call.
        "tool_use" => ToolUse(ToolUseContent),
        /// A tool result.
        "tool_result" => ToolResult(ToolResultContent),
    }
}

/// One block or a list of blocks, as `SamplingMessage.content` allows.
#[derive(Clone, Debug, PartialEq)]
pub enum SamplingContent {
    /// A single block.
    One(SamplingMessageContentBlock),
    /// Several blocks.
    Many(Vec<SamplingMessageContentBlock>),
}

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::One(block) => block.serialize(serializer),
            Self::Many(blocks) => blocks.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match Value::deserialize(deserializer)? {
            Value::Array(items) => items
                .into_iter()
                .map(SamplingMessageContentBlock::deserialize)
                .collect::<Result<_, _>>()
                .map(Self::Many)
                .map_err(D::Error::custom),
            other => SamplingMessageContentBlock::deserialize(other).map(Self::One).map_err(D::Error::custom),
        }
    }
}

/// A message in a sampling conversation (`SamplingMessage`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A text message from `role`.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            content: SamplingContent::One(SamplingMessageContentBlock::Text(TextContent::new(text))),
            meta: None,
        }
    }
}

/// A hint for model selection (`ModelHint`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A model name or substring, such as `"claude-3-5-sonnet"` or `"sonnet"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The server's model preferences (`ModelPreferences`); priorities range 0..=1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// How the model may use tools during sampling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call tools.
    None,
}

/// Tool selection for sampling (`ToolChoice`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// The mode (default `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// Which MCP context to include in sampling (deprecated beyond `none`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context.
    None,
    /// Context from the requesting server.
    ThisServer,
    /// Context from every connected server.
    AllServers,
}
