//! The JSON-RPC error object, its codes, and constructors with messages a person can act on.
//!
//! This is the *wire* error. A tool that fails returns a `CallToolResult` with
//! `isError: true` instead; the two are different types on purpose.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::version::ProtocolVersion;

/// A JSON-RPC error code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// `-32700`: the bytes were not valid JSON (or not UTF-8).
    pub const PARSE_ERROR: Self = Self(-32700);
    /// `-32600`: valid JSON, but not a valid JSON-RPC message.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// `-32601`: unknown method, or a method behind a capability the server lacks.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// `-32602`: invalid parameters (2026-07-28 also: missing `_meta` field, resource not found).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// `-32603`: the receiver failed internally.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// `-32002`: resource not found (2025-11-25 and older only; 2026-07-28 MUST NOT emit it).
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// `-32042`: URL-mode elicitation required (2025-11-25 only).
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// `-32020`: an HTTP header is missing, malformed, or disagrees with the body (2026-07-28).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// `-32021`: processing needs a client capability the request did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// `-32022`: the requested protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);

    /// The spec's name for this code, if it has one.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Self::PARSE_ERROR => "ParseError",
            Self::INVALID_REQUEST => "InvalidRequest",
            Self::METHOD_NOT_FOUND => "MethodNotFound",
            Self::INVALID_PARAMS => "InvalidParams",
            Self::INTERNAL_ERROR => "InternalError",
            Self::RESOURCE_NOT_FOUND => "ResourceNotFound",
            Self::URL_ELICITATION_REQUIRED => "UrlElicitationRequired",
            Self::HEADER_MISMATCH => "HeaderMismatch",
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY => "MissingRequiredClientCapability",
            Self::UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
            _ => return None,
        })
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{}({name})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The `error` member of a JSON-RPC error response (`Error` in the schema).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description a person can act on.
    pub message: String,
    /// Extra machine-readable detail; `Some(Value::Null)` when the peer sent `"data": null`.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Reads a member that is present as `Some`, even when it is `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl ErrorObject {
    /// An error with the given code and message and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the message could not be parsed.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// `-32600`: the message is not a valid JSON-RPC 2.0 message.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, format!("Invalid request: {detail}"))
    }

    /// `-32601`: no such method (or its capability is not offered).
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32602`: invalid parameters.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }

    /// `-32603`: an internal failure of the receiver.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, format!("Internal error: {detail}"))
    }

    /// `-32020`: an HTTP header disagrees with the body, or is missing or malformed.
    pub fn header_mismatch(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, format!("Header mismatch: {detail}"))
    }

    /// `-32021`: the request needs client capabilities it did not declare.
    /// `required` is a `ClientCapabilities` object naming them.
    pub fn missing_client_capability(required: Value) -> Self {
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability: declare it in _meta[\"io.modelcontextprotocol/clientCapabilities\"]",
        )
        .with_data(json!({ "requiredCapabilities": required }))
    }

    /// `-32022`: `requested` is not a version this peer serves; `supported` lists those it does.
    pub fn unsupported_protocol_version(supported: &[ProtocolVersion], requested: &str) -> Self {
        let list: Vec<String> = supported.iter().map(ToString::to_string).collect();
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!("Unsupported protocol version {requested:?}; supported: {}", list.join(", ")),
        )
        .with_data(json!({ "supported": list, "requested": requested }))
    }

    /// `-32002`, the 2025-11-25 resource-not-found error (modern requests use
    /// [`ErrorObject::invalid_params`] instead).
    pub fn legacy_resource_not_found(uri: &str) -> Self {
        Self::new(ErrorCode::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
            .with_data(json!({ "uri": uri }))
    }

    /// `-32602`, the 2026-07-28 resource-not-found error.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::invalid_params(format!("resource not found: {uri}")).with_data(json!({ "uri": uri }))
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.0)
    }
}

impl std::error::Error for ErrorObject {}
