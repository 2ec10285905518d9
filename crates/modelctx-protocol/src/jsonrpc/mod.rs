//! JSON-RPC 2.0 as MCP uses it: ids, the message envelope, error objects, strict parsing,
//! and the typed request/notification/response wrappers built on a [`RequestMethod`].

mod error;
mod id;
mod laid_out;
mod message;
mod parse;
mod tool_call;
mod typed;

pub use error::{ErrorCode, ErrorObject};
pub use id::{ProgressToken, RequestId};
pub use message::{
    ErrorResponse, JSONRPC_VERSION, Message, Notification, PreparedResponse, PreparedResult, Request,
    Response,
};
pub use parse::{ParseFailure, ParseLimits, parse_message, parse_message_with};
pub use tool_call::{ToolCall, TypedRead, read_typed};
pub use typed::{
    AnyMethodRequest, JsonRpcErrorResponse, JsonRpcNotification, JsonRpcRequest, JsonRpcResultResponse,
    JsonRpcVersion, MethodAndParams, MethodCall, MethodName, MethodTag, NotificationMethod, Params,
    RequestMethod,
};
