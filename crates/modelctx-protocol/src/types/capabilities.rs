//! Capability sub-objects that both revisions share.

use serde::{Deserialize, Serialize};

use crate::JsonObject;

/// `sampling` client capability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Allows `includeContext` other than `none` (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Allows `tools` and `toolChoice` in sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
}

/// `elicitation` client capability; `{}` means form mode only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
}

impl ElicitationCapability {
    /// Whether form mode is allowed (explicitly, or implied by an empty object).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is allowed.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// A server capability whose only setting is `listChanged` (`prompts`, `tools`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server notifies when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` server capability.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Clients may subscribe to resource updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}
