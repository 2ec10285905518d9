//! Completion references, arguments and results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::macros::{literal, tagged_union};

literal!(
    /// The `"ref/prompt"` tag of [`PromptReference`].
    pub PromptReferenceType = "ref/prompt"
);
literal!(
    /// The `"ref/resource"` tag of [`ResourceTemplateReference`].
    pub ResourceTemplateReferenceType = "ref/resource"
);

/// Identifies a prompt (`PromptReference`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptReference {
    /// Always `"ref/prompt"`.
    #[serde(rename = "type")]
    pub kind: PromptReferenceType,
    /// The prompt name.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Identifies a resource or resource template (`ResourceTemplateReference`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// Always `"ref/resource"`.
    #[serde(rename = "type")]
    pub kind: ResourceTemplateReferenceType,
    /// The URI or URI template.
    pub uri: String,
}

tagged_union! {
    /// What is being completed: a prompt's argument or a template's variable.
    pub enum CompletionReference by "type" {
        /// A prompt argument.
        "ref/prompt" => Prompt(PromptReference),
        /// A resource template variable.
        "ref/resource" => ResourceTemplate(ResourceTemplateReference),
    }
}

/// The argument being completed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Its name.
    pub name: String,
    /// What the user typed so far.
    pub value: String,
}

/// Already-resolved arguments that may narrow the completion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Argument names and values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// The `completion` member of a `CompleteResult`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 suggestions, best first.
    pub values: Vec<String>,
    /// How many suggestions exist in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more exist than were returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}
