//! The schema's JSON-RPC and base names (`JSONRPCMessage`, `Request`, `Cursor`, …) as the
//! crate's envelope types.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::params::PaginatedRequestParams;
use super::results::Result as AnyResult;
use crate::jsonrpc::{AnyMethodRequest, JsonRpcErrorResponse, JsonRpcResultResponse, MethodAndParams};

/// An opaque pagination position (`Cursor`).
pub type Cursor = String;

/// A method and optional params, without the envelope (`Request`).
pub type Request = MethodAndParams;
/// A method and optional params, without the envelope (`Notification`).
pub type Notification = MethodAndParams;

/// Any JSON-RPC message (`JSONRPCMessage`).
pub type JSONRPCMessage = crate::jsonrpc::Message;
/// A request of any method, params untyped (`JSONRPCRequest`); it serialises as a
/// [`JSONRPCMessage`].
pub type JSONRPCRequest = crate::jsonrpc::Request;
/// A notification of any method, params untyped (`JSONRPCNotification`); it serialises as a
/// [`JSONRPCMessage`].
pub type JSONRPCNotification = crate::jsonrpc::Notification;
/// A successful response carrying any result (`JSONRPCResultResponse`).
pub type JSONRPCResultResponse = JsonRpcResultResponse<AnyResult>;
/// An error response (`JSONRPCErrorResponse`).
pub type JSONRPCErrorResponse = JsonRpcErrorResponse;

/// A list request of any method (`PaginatedRequest`); params may be absent.
pub type PaginatedRequest = AnyMethodRequest<Option<PaginatedRequestParams>>;

/// A response, successful or not (`JSONRPCResponse`), told apart by the `error` member.
#[derive(Clone, Debug, PartialEq)]
pub enum JSONRPCResponse {
    /// A result.
    Result(JSONRPCResultResponse),
    /// An error.
    Error(JSONRPCErrorResponse),
}

impl Serialize for JSONRPCResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Result(response) => response.serialize(serializer),
            Self::Error(response) => response.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for JSONRPCResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        if value.get("error").is_some() {
            JSONRPCErrorResponse::deserialize(value).map(Self::Error)
        } else {
            JSONRPCResultResponse::deserialize(value).map(Self::Result)
        }
        .map_err(D::Error::custom)
    }
}
