//! Notification params whose shape both revisions share.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::LoggingLevel;
use crate::Meta;
use crate::jsonrpc::ProgressToken;
use crate::macros::params_types;

/// Params of a notification that carries only `_meta` (`NotificationParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// Extra metadata (2026-07-28: `io.modelcontextprotocol/subscriptionId` on listen streams).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/progress` (`ProgressNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/message` (`LoggingMessageNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Which logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/resources/updated` (`ResourceUpdatedNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceUpdatedNotificationParams {
    /// The updated resource (possibly a sub-resource of the one subscribed to).
    pub uri: String,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

params_types!(
    NotificationParams,
    ProgressNotificationParams,
    LoggingMessageNotificationParams,
    ResourceUpdatedNotificationParams,
);
