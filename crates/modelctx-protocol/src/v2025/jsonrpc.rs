//! The schema's JSON-RPC and base names (`JSONRPCMessage`, `Request`, `Cursor`, …) as the
//! crate's envelope types.

use super::params::PaginatedRequestParams;
use super::results::Result as AnyResult;
use crate::jsonrpc::{AnyMethodRequest, JsonRpcErrorResponse, JsonRpcResultResponse, MethodAndParams};
use crate::macros::sniff::has;
use crate::macros::sniffed_union;

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

sniffed_union! {
    /// A response, successful or not (`JSONRPCResponse`), told apart by the `error` member.
    pub enum JSONRPCResponse {
        /// An error.
        Error(JSONRPCErrorResponse) if has("error"),
        _ =>
        /// A result.
        Result(JSONRPCResultResponse),
    }
}
