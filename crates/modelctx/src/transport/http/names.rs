//! The request headers the server reads, as `HeaderName`s: a lookup by `&str` parses and
//! lower-cases the name each time, a `HeaderName` is ready to hash.

use http::{HeaderMap, HeaderName};
use modelctx_protocol::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

/// `MCP-Protocol-Version` (`modelctx_protocol::headers::MCP_PROTOCOL_VERSION`).
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method` (`modelctx_protocol::headers::MCP_METHOD`).
pub(crate) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name` (`modelctx_protocol::headers::MCP_NAME`).
pub(crate) const NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `Mcp-Session-Id` (`modelctx_protocol::headers::MCP_SESSION_ID`).
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// The text of header `name`, spelled as the protocol spells it: a standard one looked up by
/// its ready name.
pub(crate) fn by_protocol_name<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let value = match name {
        MCP_PROTOCOL_VERSION => headers.get(PROTOCOL_VERSION),
        MCP_METHOD => headers.get(METHOD),
        MCP_NAME => headers.get(NAME),
        other => headers.get(other),
    };
    value.and_then(|value| value.to_str().ok())
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};

    #[test]
    fn each_name_is_the_protocols_in_lower_case() {
        for (name, spelled) in [
            (super::PROTOCOL_VERSION, MCP_PROTOCOL_VERSION),
            (super::METHOD, MCP_METHOD),
            (super::NAME, MCP_NAME),
            (super::SESSION_ID, MCP_SESSION_ID),
        ] {
            assert_eq!(name.as_str(), spelled.to_ascii_lowercase());
        }
    }
}
