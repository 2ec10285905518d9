//! Capabilities across revisions: 2025-11-25 has core `tasks` and `roots.listChanged`;
//! 2026-07-28 has `extensions`. Neither carries over to the other era (CHECKLIST §10.1,
//! "Extensions across eras"): the tasks extension never enables tasks for a 2025-11-25
//! peer, and a 2025-11-25 `tasks` capability never counts as the extension.

use std::collections::BTreeMap;

use crate::JsonObject;
use crate::types::{ElicitationCapability, ListChangedCapability, ResourcesCapability, SamplingCapability};
use crate::{v2025, v2026};

/// What a client supports, in either era. (Serialised only to be stored, as a shared
/// session store does: the wire forms are the eras' own.)
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard capabilities.
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Roots (`listChanged` exists only in 2025-11-25).
    pub roots: Option<ListChangedCapability>,
    /// Sampling.
    pub sampling: Option<SamplingCapability>,
    /// Elicitation.
    pub elicitation: Option<ElicitationCapability>,
    /// 2025-11-25 experimental core tasks.
    pub legacy_tasks: Option<v2025::ClientTasksCapability>,
    /// 2026-07-28 extensions by identifier.
    pub extensions: Option<BTreeMap<String, JsonObject>>,
}

impl ClientCapabilities {
    /// Whether the client declared the extension `id` (2026-07-28 only).
    pub fn has_extension(&self, id: &str) -> bool {
        self.extensions.as_ref().is_some_and(|e| e.contains_key(id))
    }
}

impl From<v2026::ClientCapabilities> for ClientCapabilities {
    fn from(caps: v2026::ClientCapabilities) -> Self {
        let v2026::ClientCapabilities { experimental, roots, sampling, elicitation, extensions } = caps;
        Self {
            experimental,
            roots: roots.map(|_| ListChangedCapability::default()),
            sampling,
            elicitation,
            legacy_tasks: None,
            extensions,
        }
    }
}

impl From<v2025::ClientCapabilities> for ClientCapabilities {
    fn from(caps: v2025::ClientCapabilities) -> Self {
        let v2025::ClientCapabilities { experimental, roots, sampling, elicitation, tasks } = caps;
        Self { experimental, roots, sampling, elicitation, legacy_tasks: tasks, extensions: None }
    }
}

impl From<ClientCapabilities> for v2026::ClientCapabilities {
    fn from(caps: ClientCapabilities) -> Self {
        let ClientCapabilities { experimental, roots, sampling, elicitation, legacy_tasks: _, extensions } =
            caps;
        Self { experimental, roots: roots.map(|_| JsonObject::new()), sampling, elicitation, extensions }
    }
}

impl From<ClientCapabilities> for v2025::ClientCapabilities {
    fn from(caps: ClientCapabilities) -> Self {
        let ClientCapabilities { experimental, roots, sampling, elicitation, legacy_tasks, extensions: _ } =
            caps;
        Self { experimental, roots, sampling, elicitation, tasks: legacy_tasks }
    }
}

/// What a server offers, in either era.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerCapabilities {
    /// Non-standard capabilities.
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Log messages (deprecated in 2026-07-28).
    pub logging: Option<JsonObject>,
    /// Argument completion.
    pub completions: Option<JsonObject>,
    /// Prompts.
    pub prompts: Option<ListChangedCapability>,
    /// Resources.
    pub resources: Option<ResourcesCapability>,
    /// Tools.
    pub tools: Option<ListChangedCapability>,
    /// 2025-11-25 experimental core tasks.
    pub legacy_tasks: Option<v2025::ServerTasksCapability>,
    /// 2026-07-28 extensions by identifier.
    pub extensions: Option<BTreeMap<String, JsonObject>>,
}

impl From<ServerCapabilities> for v2026::ServerCapabilities {
    fn from(caps: ServerCapabilities) -> Self {
        let ServerCapabilities {
            experimental,
            logging,
            completions,
            prompts,
            resources,
            tools,
            legacy_tasks: _,
            extensions,
        } = caps;
        Self { experimental, logging, completions, prompts, resources, tools, extensions }
    }
}

impl From<ServerCapabilities> for v2025::ServerCapabilities {
    fn from(caps: ServerCapabilities) -> Self {
        let ServerCapabilities {
            experimental,
            logging,
            completions,
            prompts,
            resources,
            tools,
            legacy_tasks,
            extensions: _,
        } = caps;
        Self { experimental, logging, completions, prompts, resources, tools, tasks: legacy_tasks }
    }
}

impl From<v2026::ServerCapabilities> for ServerCapabilities {
    fn from(caps: v2026::ServerCapabilities) -> Self {
        let v2026::ServerCapabilities {
            experimental,
            logging,
            completions,
            prompts,
            resources,
            tools,
            extensions,
        } = caps;
        Self { experimental, logging, completions, prompts, resources, tools, legacy_tasks: None, extensions }
    }
}

impl From<v2025::ServerCapabilities> for ServerCapabilities {
    fn from(caps: v2025::ServerCapabilities) -> Self {
        let v2025::ServerCapabilities {
            experimental,
            logging,
            completions,
            prompts,
            resources,
            tools,
            tasks,
        } = caps;
        Self {
            experimental,
            logging,
            completions,
            prompts,
            resources,
            tools,
            legacy_tasks: tasks,
            extensions: None,
        }
    }
}
