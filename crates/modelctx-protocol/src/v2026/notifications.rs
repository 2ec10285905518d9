//! 2026-07-28 notifications: request-scoped ones and those on `subscriptions/listen` streams.

use serde::{Deserialize, Serialize};

use super::meta::NotificationMetaObject;
use super::methods::{
    CancelledNotification, LoggingMessageNotification, ProgressNotification, PromptListChangedNotification,
    ResourceListChangedNotification, ResourceUpdatedNotification, SubscriptionsAcknowledgedNotification,
    ToolListChangedNotification,
};
use crate::jsonrpc::RequestId;
use crate::macros::{params_types, tagged_union};

/// Params of `notifications/cancelled` (`CancelledNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel (or the listen request the server ends).
    pub request_id: RequestId,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
}

/// Which notifications a `subscriptions/listen` stream carries (`SubscriptionFilter`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// The tasks extension: `notifications/tasks` for these task ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// The events extension (experimental, SEP-3415): `notifications/events/list_changed`.
    #[cfg(feature = "experimental")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_list_changed: Option<bool>,
}

/// Params of `notifications/subscriptions/acknowledged`: the notifications the server will
/// honour (`SubscriptionsAcknowledgedNotificationParams`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The accepted subset of the requested filter.
    pub notifications: SubscriptionFilter,
    /// Carries the subscription id.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<NotificationMetaObject>,
}

params_types!(CancelledNotificationParams, SubscriptionsAcknowledgedNotificationParams,);

/// What a 2026-07-28 client sends as a notification (`ClientNotification`).
pub type ClientNotification = CancelledNotification;

tagged_union! {
    /// Any notification a 2026-07-28 server sends (`ServerNotification`).
    pub enum ServerNotification by "method" {
        /// Ends a listen stream (stdio).
        "notifications/cancelled" => Cancelled(CancelledNotification),
        /// Progress of a request.
        "notifications/progress" => Progress(ProgressNotification),
        /// A log message for a request that asked for them.
        "notifications/message" => LoggingMessage(LoggingMessageNotification),
        /// A subscribed resource changed.
        "notifications/resources/updated" => ResourceUpdated(ResourceUpdatedNotification),
        /// The resource list changed.
        "notifications/resources/list_changed" => ResourceListChanged(ResourceListChangedNotification),
        /// The tool list changed.
        "notifications/tools/list_changed" => ToolListChanged(ToolListChangedNotification),
        /// The prompt list changed.
        "notifications/prompts/list_changed" => PromptListChanged(PromptListChangedNotification),
        /// The first message of a listen stream.
        "notifications/subscriptions/acknowledged" => SubscriptionsAcknowledged(SubscriptionsAcknowledgedNotification),
    }
}
