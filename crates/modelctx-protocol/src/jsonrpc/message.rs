//! The four JSON-RPC 2.0 message kinds MCP uses, in their untyped form.
//!
//! Params and results stay JSON objects here; typed views live in the revision modules
//! ([`crate::v2026`], [`crate::v2025`]). Parsing is strict and bounded: see [`crate::jsonrpc::parse`].

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::ErrorObject;
use super::id::RequestId;
use crate::{JsonObject, Method};

/// The only `jsonrpc` value MCP accepts.
pub const JSONRPC_VERSION: &str = "2.0";

/// A request: expects exactly one response with the same id.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The request id, unique among the sender's outstanding requests.
    pub id: RequestId,
    /// The method, for example [`Method::CallTool`].
    pub method: Method,
    /// The params object, if any.
    pub params: Option<JsonObject>,
}

/// A notification: no id, never answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    /// The method, for example [`Method::Cancelled`].
    pub method: Method,
    /// The params object, if any.
    pub params: Option<JsonObject>,
}

/// A successful response.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The id of the request being answered.
    pub id: RequestId,
    /// The result object.
    pub result: JsonObject,
}

/// An error response. `id` is `None` only when the request's id could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorResponse {
    /// The id of the request being answered, if it could be read.
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

/// Any JSON-RPC message (`JSONRPCMessage` in the schema).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

/// A successful response with one result member already serialised: what a server writes
/// for a large listing it keeps as JSON. It is written, never parsed: it reads back as a
/// [`Message::Response`].
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedResponse {
    /// The id of the request being answered.
    pub id: RequestId,
    /// The result.
    pub result: PreparedResult,
}

impl PreparedResponse {
    /// The plain response: the serialised member parsed back into the result.
    pub fn into_response(self) -> Response {
        Response { id: self.id, result: self.result.into_object() }
    }

    /// Serialises to one line of JSON, as [`Message::to_json`] does.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a PreparedResponse always serialises")
    }
}

impl Serialize for PreparedResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("result", &self.result)?;
        map.end()
    }
}

/// A result object with one member kept as JSON text: a large listing a server serialises once
/// and sends many times.
#[derive(Clone, Debug)]
pub struct PreparedResult {
    /// The other members (a member named `key` here is left out when written).
    pub result: JsonObject,
    /// The serialised member's name.
    pub key: &'static str,
    /// Its value, as JSON text.
    pub value: std::sync::Arc<serde_json::value::RawValue>,
}

impl PartialEq for PreparedResult {
    fn eq(&self, other: &Self) -> bool {
        (&self.result, self.key, self.value.get()) == (&other.result, other.key, other.value.get())
    }
}

impl PreparedResult {
    /// The result as one object, the serialised member parsed back.
    pub fn into_object(self) -> JsonObject {
        let mut result = self.result;
        let value = serde_json::from_str(self.value.get()).expect("a RawValue holds valid JSON");
        result.insert(self.key.to_owned(), value);
        result
    }
}

impl Serialize for PreparedResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.result.len() + 1))?;
        for (key, value) in &self.result {
            if key != self.key {
                map.serialize_entry(key, value)?;
            }
        }
        map.serialize_entry(self.key, &*self.value)?;
        map.end()
    }
}

impl Message {
    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&Method> {
        match self {
            Self::Request(r) => Some(&r.method),
            Self::Notification(n) => Some(&n.method),
            Self::Response(_) | Self::Error(_) => None,
        }
    }

    /// The params object, for requests and notifications that have one.
    pub fn params(&self) -> Option<&JsonObject> {
        match self {
            Self::Request(r) => r.params.as_ref(),
            Self::Notification(n) => n.params.as_ref(),
            Self::Response(_) | Self::Error(_) => None,
        }
    }

    /// The id, for requests and responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request(r) => Some(&r.id),
            Self::Response(r) => Some(&r.id),
            Self::Error(e) => e.id.as_ref(),
            Self::Notification(_) => None,
        }
    }

    /// Serialises to one line of JSON (no embedded newlines, as stdio framing requires).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Message always serialises")
    }
}

impl From<Request> for Message {
    fn from(r: Request) -> Self {
        Self::Request(r)
    }
}

impl From<Notification> for Message {
    fn from(n: Notification) -> Self {
        Self::Notification(n)
    }
}

impl From<Response> for Message {
    fn from(r: Response) -> Self {
        Self::Response(r)
    }
}

impl From<ErrorResponse> for Message {
    fn from(e: ErrorResponse) -> Self {
        Self::Error(e)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        match self {
            Self::Request(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("method", &r.method)?;
                if let Some(params) = &r.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Notification(n) => {
                map.serialize_entry("method", &n.method)?;
                if let Some(params) = &n.params {
                    map.serialize_entry("params", params)?;
                }
            }
            Self::Response(r) => {
                map.serialize_entry("id", &r.id)?;
                map.serialize_entry("result", &r.result)?;
            }
            Self::Error(e) => {
                if let Some(id) = &e.id {
                    map.serialize_entry("id", id)?;
                }
                map.serialize_entry("error", &e.error)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    /// Deserialises with the same rules as [`crate::jsonrpc::parse_message`] except the byte
    /// limits (which need the raw input).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = super::parse::RawEnvelope::deserialize(deserializer)?;
        raw.classify().map_err(|failure| serde::de::Error::custom(failure.error.message))
    }
}
