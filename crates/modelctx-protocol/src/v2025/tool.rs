//! The 2025-11-25 `Tool`: object-rooted schemas and the `execution.taskSupport` hint.

use serde::{Deserialize, Serialize};

use crate::types::{Icon, ToolAnnotations};
use crate::{JsonObject, Meta};

/// A tool the client can call (`Tool`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema of the arguments; its root has `"type": "object"`.
    pub input_schema: JsonObject,
    /// Whether the tool can run as a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// JSON Schema of `structuredContent`; its root has `"type": "object"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Execution properties of a tool (`ToolExecution`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether calls may or must run as tasks; absent means [`TaskSupport::Forbidden`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

/// Whether a tool supports task-augmented calls (`ToolExecution.taskSupport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Calls must not carry `task` (the default).
    #[default]
    Forbidden,
    /// Calls may carry `task`.
    Optional,
    /// Calls must carry `task`.
    Required,
}
