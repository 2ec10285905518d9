//! The typed `_meta` objects of 2026-07-28 requests, notifications and results.

use serde::{Deserialize, Serialize};

use super::capabilities::ClientCapabilities;
use crate::Meta;
use crate::jsonrpc::{ProgressToken, RequestId};
use crate::types::{Implementation, LoggingLevel};
use crate::version::ProtocolVersion;

/// Any `_meta` object (`MetaObject`).
pub type MetaObject = Meta;

/// A request's `_meta` (`RequestMetaObject`): version and capabilities are required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestMetaObject {
    /// Opts into `notifications/progress`.
    #[serde(rename = "progressToken", default, skip_serializing_if = "Option::is_none")]
    pub progress_token: Option<ProgressToken>,
    /// The protocol version of this request.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: ProtocolVersion,
    /// The client software.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The client's capabilities for this request.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: ClientCapabilities,
    /// The log level for this request; absent means no `notifications/message`.
    #[serde(rename = "io.modelcontextprotocol/logLevel", default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// Every other key.
    #[serde(flatten)]
    pub other: Meta,
}

impl RequestMetaObject {
    /// `_meta` with the given version and capabilities and nothing else.
    pub fn new(protocol_version: ProtocolVersion, client_capabilities: ClientCapabilities) -> Self {
        Self {
            progress_token: None,
            protocol_version,
            client_info: None,
            client_capabilities,
            log_level: None,
            other: Meta::new(),
        }
    }
}

/// A notification's `_meta` (`NotificationMetaObject`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationMetaObject {
    /// The listen request this notification belongs to.
    #[serde(
        rename = "io.modelcontextprotocol/subscriptionId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub subscription_id: Option<RequestId>,
    /// Every other key.
    #[serde(flatten)]
    pub other: Meta,
}

/// A result's `_meta` (`ResultMetaObject`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMetaObject {
    /// The server software.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
    /// Every other key.
    #[serde(flatten)]
    pub other: Meta,
}

/// The `_meta` of a `SubscriptionsListenResult`: the subscription id is required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenResultMetaObject {
    /// The listen request's id.
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    pub subscription_id: RequestId,
    /// The server software.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
    /// Every other key.
    #[serde(flatten)]
    pub other: Meta,
}
