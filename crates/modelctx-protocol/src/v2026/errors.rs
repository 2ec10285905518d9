//! The 2026-07-28 error definitions: error objects and error responses with fixed codes.
//!
//! The schema names each code's shape; on the wire they are all [`ErrorObject`]s or
//! [`JsonRpcErrorResponse`]s, built with the constructors on [`ErrorObject`].

use crate::jsonrpc::{ErrorObject, JsonRpcErrorResponse};

/// `-32700` (`ParseError`).
pub type ParseError = ErrorObject;
/// `-32600` (`InvalidRequestError`).
pub type InvalidRequestError = ErrorObject;
/// `-32601` (`MethodNotFoundError`).
pub type MethodNotFoundError = ErrorObject;
/// `-32602` (`InvalidParamsError`).
pub type InvalidParamsError = ErrorObject;
/// `-32603` (`InternalError`).
pub type InternalError = ErrorObject;
/// `-32020` response (`HeaderMismatchError`).
pub type HeaderMismatchError = JsonRpcErrorResponse;
/// `-32021` response (`MissingRequiredClientCapabilityError`).
pub type MissingRequiredClientCapabilityError = JsonRpcErrorResponse;
/// `-32022` response (`UnsupportedProtocolVersionError`).
pub type UnsupportedProtocolVersionError = JsonRpcErrorResponse;
