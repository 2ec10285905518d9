//! Events (experimental): SEP-3415 "Events Extension" (PR #3415, `seps/0000-events-extension.md`
//! at `5eb68628`, Draft, 2026-10-05), for 2026-07-28. A server lists event types
//! (`events/list`); a client receives their occurrences by polling (`events/poll`, resumed by
//! an opaque cursor), by a long-lived stream (`events/stream`, its notifications tagged with
//! the stream's request id), or by signed webhooks (`events/subscribe`). Here are the wire
//! types, the provisional error codes and the Standard Webhooks header names.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::JsonObject;
use crate::jsonrpc::{ErrorCode, ErrorObject};

/// The identifier in `capabilities.extensions`; the server's settings are
/// `{"listChanged": bool}`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/events";

/// Lists the event types.
pub const LIST: &str = "events/list";
/// One poll of one subscription.
pub const POLL: &str = "events/poll";
/// A push subscription, held open.
pub const STREAM: &str = "events/stream";
/// A webhook subscription, made or refreshed.
pub const SUBSCRIBE: &str = "events/subscribe";
/// A webhook subscription, ended.
pub const UNSUBSCRIBE: &str = "events/unsubscribe";

/// The event types changed (on a `subscriptions/listen` stream that asked for it).
pub const LIST_CHANGED: &str = "notifications/events/list_changed";
/// A push stream is active (first, and again after a gap).
pub const ACTIVE: &str = "notifications/events/active";
/// An occurrence on a push stream.
pub const EVENT: &str = "notifications/events/event";
/// A push stream's keepalive, with the position checked up to.
pub const HEARTBEAT: &str = "notifications/events/heartbeat";
/// A recoverable failure on a push stream.
pub const ERROR: &str = "notifications/events/error";
/// A push subscription ended by the server.
pub const TERMINATED: &str = "notifications/events/terminated";

/// The `subscriptions/listen` filter member that asks for [`LIST_CHANGED`].
pub const EVENTS_LIST_CHANGED: &str = "eventsListChanged";

/// The draft's provisional codes (`-32023`…`-32027`), by name.
pub mod codes {
    /// An unknown event name, or no such subscription (`data.kind`: `event` | `subscription`).
    pub const NOT_FOUND: i64 = -32023;
    /// The principal may not, or no longer may.
    pub const FORBIDDEN: i64 = -32024;
    /// A server limit (`data.limit`, `data.max`).
    pub const RESOURCE_EXHAUSTED: i64 = -32025;
    /// A mode or option this server or event does not offer (`data.feature`, `data.value`).
    pub const UNSUPPORTED: i64 = -32026;
    /// The callback endpoint failed verification or could not be reached (`data.reason`).
    pub const CALLBACK_ENDPOINT_ERROR: i64 = -32027;
}

/// `NotFound` for `kind` (`event` or `subscription`).
pub fn not_found(kind: &str, message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode(codes::NOT_FOUND), message).with_data(json!({"kind": kind}))
}

/// `Forbidden`, saying why.
pub fn forbidden(reason: impl Into<String>) -> ErrorObject {
    let reason = reason.into();
    ErrorObject::new(ErrorCode(codes::FORBIDDEN), format!("Forbidden: {reason}"))
        .with_data(json!({"reason": reason}))
}

/// `ResourceExhausted` at `limit` (its `max`).
pub fn resource_exhausted(limit: &str, max: usize) -> ErrorObject {
    ErrorObject::new(
        ErrorCode(codes::RESOURCE_EXHAUSTED),
        format!("ResourceExhausted: at most {max} {limit}"),
    )
    .with_data(json!({"limit": limit, "max": max}))
}

/// `Unsupported` `feature` = `value`.
pub fn unsupported(feature: &str, value: &str, message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode(codes::UNSUPPORTED), message)
        .with_data(json!({"feature": feature, "value": value}))
}

/// `CallbackEndpointError` for `reason` (one of the `lastError` categories).
pub fn callback_endpoint_error(reason: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode(codes::CALLBACK_ENDPOINT_ERROR), format!("CallbackEndpointError: {reason}"))
        .with_data(json!({"reason": reason}))
}

/// How occurrences reach a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryMode {
    /// `events/poll`.
    Poll,
    /// `events/stream`.
    Push,
    /// `events/subscribe`, POSTs to a callback URL.
    Webhook,
}

/// An event type, as `events/list` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    /// Its name (`email.received`).
    pub name: String,
    /// What it is, for people and models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The modes it is delivered by (not empty).
    pub delivery: Vec<DeliveryMode>,
    /// The JSON Schema of a subscription's `arguments`.
    pub input_schema: JsonObject,
    /// The JSON Schema of an occurrence's `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_schema: Option<JsonObject>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `events/list` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResult {
    /// `complete`.
    pub result_type: String,
    /// The event types.
    pub events: Vec<EventType>,
    /// The next page's cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One occurrence of an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventOccurrence {
    /// Stable, for deduplication.
    pub event_id: String,
    /// The event type.
    pub name: String,
    /// When it happened (RFC 3339).
    pub timestamp: String,
    /// Its payload.
    pub data: Value,
    /// The subscription's position after it (push and webhook; `None` without replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Metadata (on push, the subscription id).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// What a subscription listens for and from where: the params `events/poll` and
/// `events/stream` share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionParams {
    /// The event type.
    pub name: String,
    /// Its arguments (filters, transforms), per its `inputSchema`.
    #[serde(default)]
    pub arguments: JsonObject,
    /// Where to resume; `None` (absent or `null`) starts from now.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Replay nothing older than this (ignored from now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<u64>,
    /// At most this many occurrences in one poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<usize>,
}

/// `events/poll` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PollResult {
    /// `complete`.
    pub result_type: String,
    /// The occurrences since the cursor (often none).
    pub events: Vec<EventOccurrence>,
    /// Where to poll from next (`None` without replay).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Whether delivery started later than the cursor given (occurrences were skipped).
    pub truncated: bool,
    /// Whether more are ready: poll again at once.
    pub has_more: bool,
    /// When to poll next, otherwise.
    pub next_poll_ms: u64,
}

/// `notifications/events/active` params (and `heartbeat`'s, without `truncated`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamPosition {
    /// The position.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Whether occurrences were skipped (on `active`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}

/// The Standard Webhooks header of a delivery's id (the `eventId`, or `msg_TYPE_RANDOM`).
pub const WEBHOOK_ID: &str = "webhook-id";
/// The Standard Webhooks header of a delivery's Unix time in seconds.
pub const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// The Standard Webhooks header of a delivery's signatures (`v1,BASE64 …`).
pub const WEBHOOK_SIGNATURE: &str = "webhook-signature";
/// The one MCP header of a delivery: the subscription's id.
pub const SUBSCRIPTION_ID_HEADER: &str = "x-mcp-subscription-id";
/// A Standard Webhooks symmetric secret's prefix.
pub const SECRET_PREFIX: &str = "whsec_";

/// Where webhook deliveries go, with the secret they are signed with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookDelivery {
    /// `webhook`.
    #[serde(default = "webhook_mode")]
    pub mode: String,
    /// The callback URL (`https` only).
    pub url: String,
    /// `whsec_` and the base64 of 24 to 64 random bytes; the client makes it.
    pub secret: String,
}

fn webhook_mode() -> String {
    "webhook".into()
}

/// `events/subscribe` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeParams {
    /// The event type.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: JsonObject,
    /// Where to deliver.
    pub delivery: WebhookDelivery,
    /// Where to begin (`None`: from now).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Replay nothing older than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_ms: Option<u64>,
    /// The suggested lifetime: absent for the server's default, `Some(None)` (`null`) for no
    /// expiry, `Some(Some(ms))` for a finite one.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<Option<u64>>,
}

/// Reads a member that is present (even as `null`) as `Some`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Option<u64>>, D::Error> {
    Option::<u64>::deserialize(deserializer).map(Some)
}

/// How a webhook subscription's deliveries fare.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryStatus {
    /// Whether the server is delivering.
    pub active: bool,
    /// The last delivery the endpoint accepted.
    #[serde(default)]
    pub last_delivery_at: Option<String>,
    /// The last failure's category (`connection_refused`, `timeout`, `tls_error`, `http_4xx`,
    /// `http_5xx`, `challenge_failed`).
    #[serde(default)]
    pub last_error: Option<String>,
    /// Since when deliveries have been failing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_since: Option<String>,
}

/// `events/subscribe` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeResult {
    /// `complete`.
    pub result_type: String,
    /// The subscription's id, derived from its key (`X-MCP-Subscription-Id` on deliveries).
    pub id: String,
    /// When it expires unless refreshed (`None`: never).
    pub refresh_before: Option<String>,
    /// A position safe to persist.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Whether delivery starts later than the cursor given.
    pub truncated: bool,
    /// How deliveries fare (on a refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_status: Option<DeliveryStatus>,
}

/// The callback of an `events/unsubscribe`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallbackUrl {
    /// The callback URL it was subscribed with.
    pub url: String,
}

/// `events/unsubscribe` params: the subscription's key, less the principal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnsubscribeParams {
    /// The event type.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: JsonObject,
    /// Its callback.
    pub delivery: CallbackUrl,
}

/// The key bytes of a `whsec_` secret; why not, otherwise.
pub fn secret_bytes(secret: &str) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    let encoded = secret.strip_prefix(SECRET_PREFIX).ok_or("the secret does not start with whsec_")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| "the secret after whsec_ is not base64".to_owned())?;
    if (24..=64).contains(&bytes.len()) {
        Ok(bytes)
    } else {
        Err(format!("the secret holds {} bytes; it must hold 24 to 64", bytes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_drafts_poll_example_reads() {
        let request: SubscriptionParams = serde_json::from_value(json!({
            "name": "email.received", "arguments": {"from": "*@anthropic.com", "redact_pii": true},
            "cursor": null, "maxAgeMs": 300000, "maxEvents": 50
        }))
        .unwrap();
        assert_eq!((request.cursor, request.max_events), (None, Some(50)));
        let result: PollResult = serde_json::from_value(json!({
            "resultType": "complete",
            "events": [{"eventId": "evt_001", "name": "email.received", "timestamp": "2026-02-19T15:30:00Z",
                        "data": {"messageId": "msg_xyz"}}],
            "cursor": "historyId_99842", "truncated": false, "hasMore": false, "nextPollMs": 30000
        }))
        .unwrap();
        assert_eq!(result.events[0].cursor, None, "an absent cursor is null");
    }

    #[test]
    fn errors_carry_their_data() {
        assert_eq!(not_found("event", "no such event").data, Some(json!({"kind": "event"})));
        assert_eq!(unsupported("deliveryMode", "push", "no").code.0, codes::UNSUPPORTED);
    }

    #[test]
    fn a_ttl_is_absent_null_or_a_number() {
        let base = json!({"name": "e", "delivery": {"url": "https://x.example/h", "secret": "whsec_x"}});
        let absent: SubscribeParams = serde_json::from_value(base.clone()).unwrap();
        let mut null = base.clone();
        null["ttlMs"] = Value::Null;
        let null: SubscribeParams = serde_json::from_value(null).unwrap();
        let mut finite = base;
        finite["ttlMs"] = json!(60000);
        let finite: SubscribeParams = serde_json::from_value(finite).unwrap();
        assert_eq!((absent.ttl_ms, null.ttl_ms, finite.ttl_ms), (None, Some(None), Some(Some(60000))));
    }

    #[test]
    fn secrets_are_whsec_and_24_to_64_bytes() {
        use base64::Engine as _;
        let encode =
            |n: usize| format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(vec![7u8; n]));
        assert_eq!(secret_bytes(&encode(32)).unwrap().len(), 32);
        assert!(secret_bytes(&encode(16)).unwrap_err().contains("24 to 64"));
        assert!(secret_bytes("sk_abc").is_err() && secret_bytes("whsec_!!").is_err());
    }
}
