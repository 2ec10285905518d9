//! 2025-11-25 capabilities, exchanged once in `initialize`: `roots.listChanged` and the
//! experimental `tasks` capability on both sides, and no `extensions`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::JsonObject;
use crate::types::{ElicitationCapability, ListChangedCapability, ResourcesCapability, SamplingCapability};

/// What a client supports for the session (`ClientCapabilities`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// The client answers `roots/list`; `listChanged` says it sends
    /// `notifications/roots/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<ListChangedCapability>,
    /// The client answers `sampling/createMessage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client answers `elicitation/create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// The client runs server requests as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
}

/// What a server offers for the session (`ServerCapabilities`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// The server sends `notifications/message` and answers `logging/setLevel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// The server runs client requests as tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
}

/// The `tasks` capability of either side; `R` lists which requests may run as tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(serialize = "R: Serialize", deserialize = "R: Deserialize<'de>"))]
pub struct TasksCapability<R> {
    /// The peer answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The peer answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which request types may carry `task`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<R>,
}

/// The client's `tasks` capability.
pub type ClientTasksCapability = TasksCapability<ClientTaskRequests>;
/// The server's `tasks` capability.
pub type ServerTasksCapability = TasksCapability<ServerTaskRequests>;

impl<R> Default for TasksCapability<R> {
    fn default() -> Self {
        Self { list: None, cancel: None, requests: None }
    }
}

/// Server requests a client can run as tasks (`ClientCapabilities.tasks.requests`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientTaskRequests {
    /// Sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingTaskRequests>,
    /// Elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationTaskRequests>,
}

/// Sampling requests that may run as tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingTaskRequests {
    /// `sampling/createMessage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
}

/// Elicitation requests that may run as tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationTaskRequests {
    /// `elicitation/create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
}

/// Client requests a server can run as tasks (`ServerCapabilities.tasks.requests`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTaskRequests {
    /// Tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsTaskRequests>,
}

/// Tool requests that may run as tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolsTaskRequests {
    /// `tools/call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
}
