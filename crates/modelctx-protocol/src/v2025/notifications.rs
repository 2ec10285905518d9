//! 2025-11-25 notification params and the notification unions of each side.

use serde::{Deserialize, Serialize};

use super::methods::{
    CancelledNotification, ElicitationCompleteNotification, InitializedNotification,
    LoggingMessageNotification, ProgressNotification, PromptListChangedNotification,
    ResourceListChangedNotification, ResourceUpdatedNotification, RootsListChangedNotification,
    TaskStatusNotification, ToolListChangedNotification,
};
use crate::Meta;
use crate::jsonrpc::RequestId;
use crate::macros::{params_types, tagged_union};

/// Params of `notifications/cancelled` (`CancelledNotificationParams`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel; required for ordinary requests (tasks use `tasks/cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params of `notifications/elicitation/complete`: a URL-mode elicitation finished. (The
/// schema has no name for them; `_meta` is kept when a peer sends it.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the URL-mode request.
    pub elicitation_id: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

params_types!(CancelledNotificationParams, ElicitationCompleteNotificationParams);

tagged_union! {
    /// Any notification a 2025-11-25 client sends (`ClientNotification`).
    pub enum ClientNotification by "method" {
        /// Cancels a request.
        "notifications/cancelled" => Cancelled(CancelledNotification),
        /// Ends the handshake.
        "notifications/initialized" => Initialized(InitializedNotification),
        /// Progress of a server request.
        "notifications/progress" => Progress(ProgressNotification),
        /// A task's status changed.
        "notifications/tasks/status" => TaskStatus(TaskStatusNotification),
        /// The roots changed.
        "notifications/roots/list_changed" => RootsListChanged(RootsListChangedNotification),
    }
}

tagged_union! {
    /// Any notification a 2025-11-25 server sends (`ServerNotification`).
    pub enum ServerNotification by "method" {
        /// Cancels a request.
        "notifications/cancelled" => Cancelled(CancelledNotification),
        /// Progress of a client request.
        "notifications/progress" => Progress(ProgressNotification),
        /// The resource list changed.
        "notifications/resources/list_changed" => ResourceListChanged(ResourceListChangedNotification),
        /// A subscribed resource changed.
        "notifications/resources/updated" => ResourceUpdated(ResourceUpdatedNotification),
        /// The prompt list changed.
        "notifications/prompts/list_changed" => PromptListChanged(PromptListChangedNotification),
        /// The tool list changed.
        "notifications/tools/list_changed" => ToolListChanged(ToolListChangedNotification),
        /// A task's status changed.
        "notifications/tasks/status" => TaskStatus(TaskStatusNotification),
        /// A log message.
        "notifications/message" => LoggingMessage(LoggingMessageNotification),
        /// A URL-mode elicitation finished.
        "notifications/elicitation/complete" => ElicitationComplete(ElicitationCompleteNotification),
    }
}
