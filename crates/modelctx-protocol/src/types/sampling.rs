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
    /// Its content blocks, one or many.
    pub fn blocks(&self) -> Vec<&SamplingMessageContentBlock> {
        match &self.content {
            SamplingContent::One(block) => vec![block],
            SamplingContent::Many(blocks) => blocks.iter().collect(),
        }
    }

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

/// Checks the tool-use rules of a sampling conversation (SAMP-04, SAMP-05, SAMP-09): a user
/// message that holds tool results holds nothing else, and every assistant message that asks
/// for tools is followed, next, by a user message answering exactly those `tool_use` ids.
/// The error says which message breaks which rule (messages counted from 0).
pub fn check_conversation(messages: &[SamplingMessage]) -> Result<(), String> {
    let mut unanswered: Option<(usize, Vec<&str>)> = None;
    for (at, message) in messages.iter().enumerate() {
        let content = message.blocks();
        let results: Vec<&str> = content
            .iter()
            .filter_map(|block| match block {
                SamplingMessageContentBlock::ToolResult(result) => Some(result.tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        if !results.is_empty() && (message.role != Role::User || results.len() != content.len()) {
            return Err(format!("message {at} mixes tool results with other content, or is not the user's"));
        }
        if let Some((asked_at, mut asked)) = unanswered.take() {
            let mut answered = results.clone();
            asked.sort_unstable();
            answered.sort_unstable();
            if asked != answered {
                return Err(format!(
                    "message {asked_at} asks for tools {asked:?}; the next message must answer exactly those, \
                     and answers {answered:?}"
                ));
            }
        } else if !results.is_empty() {
            return Err(format!("message {at} answers tool uses that the message before it did not ask for"));
        }
        let uses: Vec<&str> = content
            .iter()
            .filter_map(|block| match block {
                SamplingMessageContentBlock::ToolUse(using) => Some(using.id.as_str()),
                _ => None,
            })
            .collect();
        if !uses.is_empty() {
            if message.role != Role::Assistant {
                return Err(format!("message {at} asks for tools but is not the assistant's"));
            }
            unanswered = Some((at, uses));
        }
    }
    match unanswered {
        Some((at, asked)) => Err(format!("message {at} asks for tools {asked:?} that no message answers")),
        None => Ok(()),
    }
}

/// A model a client could sample with, as [`ModelPreferences::choose`] weighs it: each
/// quality from 0 (worst) to 1 (best).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCandidate {
    /// The model's name.
    pub name: String,
    /// How cheap it is.
    pub cheapness: f64,
    /// How fast it is.
    pub speed: f64,
    /// How capable it is.
    pub intelligence: f64,
}

impl ModelPreferences {
    /// The model to use among `candidates` (SAMP-07): the hints first, in order — the first
    /// hint naming a substring of some candidate's name (case-insensitive) picks the first
    /// such candidate — and only when no hint matches, the candidate that scores best by the
    /// numeric priorities (each quality times its priority, ties to the earlier candidate).
    pub fn choose<'a>(&self, candidates: &'a [ModelCandidate]) -> Option<&'a ModelCandidate> {
        let hinted = self.hints.iter().flatten().filter_map(|hint| hint.name.as_deref()).find_map(|hint| {
            let hint = hint.to_lowercase();
            candidates.iter().find(|candidate| candidate.name.to_lowercase().contains(&hint))
        });
        hinted.or_else(|| {
            let weight = |priority: Option<f64>| priority.unwrap_or(0.0).clamp(0.0, 1.0);
            let score = |c: &ModelCandidate| {
                weight(self.cost_priority) * c.cheapness
                    + weight(self.speed_priority) * c.speed
                    + weight(self.intelligence_priority) * c.intelligence
            };
            candidates.iter().fold(None, |best: Option<&ModelCandidate>, candidate| match best {
                Some(best) if score(best) >= score(candidate) => Some(best),
                _ => Some(candidate),
            })
        })
    }
}

#[cfg(test)]
mod rules {
    use super::*;
    use serde_json::json;

    fn message(value: serde_json::Value) -> SamplingMessage {
        serde_json::from_value(value).unwrap()
    }

    fn use_block(id: &str) -> serde_json::Value {
        json!({"type": "tool_use", "id": id, "name": "weather", "input": {}})
    }

    fn result_block(id: &str) -> serde_json::Value {
        json!({"type": "tool_result", "toolUseId": id, "content": []})
    }

    /// SAMP-04: a user message with tool results holds tool results only.
    #[test]
    fn samp_04_a_message_of_tool_results_holds_nothing_else() {
        let ask = message(json!({"role": "assistant", "content": [use_block("a")]}));
        let mixed =
            message(json!({"role": "user", "content": [result_block("a"), {"type": "text", "text": "and"}]}));
        let error = check_conversation(&[ask.clone(), mixed]).unwrap_err();
        assert!(error.contains("message 1 mixes tool results"), "{error}");
        let clean = message(json!({"role": "user", "content": [result_block("a")]}));
        assert_eq!(check_conversation(&[ask, clean]), Ok(()));
    }

    /// SAMP-05 and SAMP-09: every tool use is answered by the very next message, exactly.
    #[test]
    fn samp_05_09_tool_uses_are_answered_next_and_exactly() {
        let ask = message(json!({"role": "assistant", "content": [use_block("a"), use_block("b")]}));
        let partial = message(json!({"role": "user", "content": [result_block("a")]}));
        assert!(
            check_conversation(&[ask.clone(), partial]).unwrap_err().contains("must answer exactly those")
        );
        let text = message(json!({"role": "user", "content": {"type": "text", "text": "hm"}}));
        assert!(check_conversation(&[ask.clone(), text]).is_err(), "something else came first");
        assert!(
            check_conversation(std::slice::from_ref(&ask)).unwrap_err().contains("that no message answers")
        );
        let stray = message(json!({"role": "user", "content": [result_block("z")]}));
        assert!(check_conversation(&[stray]).unwrap_err().contains("did not ask for"));
        let both = message(json!({"role": "user", "content": [result_block("b"), result_block("a")]}));
        assert_eq!(check_conversation(&[ask, both]), Ok(()));
    }

    /// SAMP-08: a message's role is `user` or `assistant`, and it has content.
    #[test]
    fn samp_08_a_message_is_the_users_or_the_assistants_with_content() {
        assert!(
            serde_json::from_value::<SamplingMessage>(
                json!({"role": "system", "content": {"type": "text", "text": "x"}})
            )
            .is_err()
        );
        assert!(serde_json::from_value::<SamplingMessage>(json!({"role": "user"})).is_err());
    }

    /// SAMP-07: hints are tried in order before any numeric priority.
    #[test]
    fn samp_07_hints_in_order_before_priorities() {
        let model = |name: &str, cheapness, intelligence| ModelCandidate {
            name: name.into(),
            cheapness,
            speed: 0.5,
            intelligence,
        };
        let candidates =
            [model("fast-mini", 0.9, 0.2), model("big-sonnet-4", 0.1, 0.9), model("opus", 0.0, 1.0)];
        let hint = |name: &str| ModelHint { name: Some(name.into()) };
        let prefers = ModelPreferences {
            hints: Some(vec![hint("gpt"), hint("SONNET"), hint("mini")]),
            cost_priority: Some(1.0),
            ..ModelPreferences::default()
        };
        assert_eq!(
            prefers.choose(&candidates).unwrap().name,
            "big-sonnet-4",
            "the first hint that matches wins, over cost"
        );
        let no_hint = ModelPreferences { hints: Some(vec![hint("gpt")]), ..prefers.clone() };
        assert_eq!(no_hint.choose(&candidates).unwrap().name, "fast-mini", "then the priorities");
        let clever = ModelPreferences { intelligence_priority: Some(1.0), ..ModelPreferences::default() };
        assert_eq!(clever.choose(&candidates).unwrap().name, "opus");
        assert!(ModelPreferences::default().choose(&[]).is_none());
    }
}
