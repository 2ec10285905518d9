//! The Streamable HTTP request-header rules of 2026-07-28, as pure functions over strings
//! and JSON (no HTTP crate).
//!
//! A client mirrors body fields into headers: `Mcp-Method` always, `Mcp-Name` for the
//! methods that name a target ([`name_header_for`]), and one `Mcp-Param-{Name}` for each
//! argument the tool's `inputSchema` annotates with `x-mcp-header`
//! ([`validate_x_mcp_headers`], [`param_headers_for_call`]). Values that are not plain
//! header text travel as `=?base64?…?=` ([`encode_header_value`]). A server that reads the
//! body checks that every header agrees with it ([`check_standard_headers`],
//! [`check_param_headers`]) and otherwise answers `400` with a `-32020` error.
//!
//! ```
//! use modelctx_protocol::headers::{self, find_header};
//! use serde_json::json;
//!
//! let schema = json!({ "type": "object", "properties": {
//!     "region": { "type": "string", "x-mcp-header": "Region" } } });
//! let params = headers::validate_x_mcp_headers(schema.as_object().unwrap()).unwrap();
//! let arguments = json!({ "region": "Zürich" });
//! let arguments = arguments.as_object().unwrap();
//!
//! // Client side: the headers to add.
//! let sent = headers::param_headers_for_call(&params, Some(arguments));
//! assert_eq!(sent, [("Mcp-Param-Region".to_owned(), "=?base64?WsO8cmljaA==?=".to_owned())]);
//!
//! // Server side: header names compare case-insensitively, values after decoding.
//! let received = [("mcp-param-region".to_owned(), sent[0].1.clone())];
//! assert!(headers::check_param_headers(&params, Some(arguments), |name| find_header(&received, name)).is_ok());
//! let error = headers::check_param_headers(&params, Some(arguments), |_| None).unwrap_err();
//! assert_eq!(error.code.0, -32020);
//! ```

use serde_json::json;

use crate::jsonrpc::ErrorObject;

mod params;
mod schema;
mod standard;
mod value;

pub use params::{check_param_headers, param_headers_for_call};
pub use schema::{McpParamHeader, XMcpHeaderError, validate_x_mcp_headers};
pub use standard::{check_headers_against, check_standard_headers, name_header_for, name_source};
pub use value::{
    HeaderError, decode_header_value, encode_header_value, header_value_for_argument,
    matches_sentinel_pattern,
};

/// `MCP-Protocol-Version`: on every POST; equals the body's `_meta` protocol version.
pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the request's `method`, on every request.
pub const MCP_METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: the request's target (`params.name`, `params.uri` or `params.taskId`).
pub const MCP_NAME: &str = "Mcp-Name";
/// The prefix of the headers that mirror `x-mcp-header` arguments: `Mcp-Param-{Name}`.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// `Mcp-Session-Id`: the 2025-11-25 session header (ignored by 2026-07-28 servers).
pub const MCP_SESSION_ID: &str = "Mcp-Session-Id";
/// `Last-Event-ID`: resumes a 2025-11-25 SSE stream (ignored by 2026-07-28 servers).
pub const LAST_EVENT_ID: &str = "Last-Event-ID";
/// The JSON Schema annotation that mirrors a tool argument into a header.
pub const X_MCP_HEADER: &str = "x-mcp-header";
/// The start of a Base64-encoded header value (exact, lowercase).
pub const SENTINEL_PREFIX: &str = "=?base64?";
/// The end of a Base64-encoded header value.
pub const SENTINEL_SUFFIX: &str = "?=";
/// The largest integer an `x-mcp-header` argument may hold, 2^53 − 1 (the smallest is its
/// negation).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// Finds a header by name, case-insensitively, in a list of name/value pairs: a ready
/// `lookup` for [`check_standard_headers`] and [`check_param_headers`].
pub fn find_header<'h, K: AsRef<str>, V: AsRef<str>>(headers: &'h [(K, V)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(key, _)| key.as_ref().eq_ignore_ascii_case(name)).map(|(_, value)| value.as_ref())
}

/// The `-32020` error for `header`, with the header name as `data.header` so that a client
/// can tell which header failed without reading the message (HTTP-31).
fn mismatch(header: &str, detail: std::fmt::Arguments<'_>) -> ErrorObject {
    ErrorObject::header_mismatch(format_args!("{header} header {detail}"))
        .with_data(json!({ "header": header }))
}

/// Whether an `If-None-Match` header value matches the entity tag `etag` (weak comparison,
/// RFC 9110 §13.1.2: `W/` prefixes ignored, `*` matches anything).
pub fn if_none_match_matches(header: &str, etag: &str) -> bool {
    let bare = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
    let etag = bare(etag);
    header.split(',').any(|tag| tag.trim() == "*" || bare(tag) == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_compares_weakly() {
        assert!(if_none_match_matches("\"abc\"", "\"abc\""));
        assert!(if_none_match_matches("W/\"abc\", \"def\"", "\"abc\""));
        assert!(if_none_match_matches("*", "\"abc\""));
        assert!(!if_none_match_matches("\"abd\"", "\"abc\""));
    }
}
