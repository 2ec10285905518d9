//! The request headers the server reads: those of every request found in one pass
//! ([`RequestHeaders`]), and as `HeaderName`s the ones a list GET rewrites (a lookup by `&str`
//! parses and lower-cases the name each time, a `HeaderName` is ready to hash).

#[cfg(feature = "experimental")]
use http::HeaderName;
use http::{HeaderMap, HeaderValue};
use modelctx_protocol::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

/// `Mcp-Method` (`modelctx_protocol::headers::MCP_METHOD`).
#[cfg(feature = "experimental")]
pub(crate) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Session-Id` (`modelctx_protocol::headers::MCP_SESSION_ID`).
#[cfg(feature = "experimental")]
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// The headers the endpoint reads on every request (the first value of each, as
/// `HeaderMap::get` gives), found in one pass over the request's few: a lookup by name hashes
/// the name each time, about 170 instructions a header.
#[derive(Clone, Copy)]
pub(crate) struct RequestHeaders<'h> {
    /// All of them, for the headers read only sometimes (`Mcp-Param-*`, `Last-Event-ID`).
    pub(crate) map: &'h HeaderMap,
    /// `Origin`.
    pub(crate) origin: Option<&'h HeaderValue>,
    /// `Host`.
    pub(crate) host: Option<&'h HeaderValue>,
    /// `Accept`.
    pub(crate) accept: Option<&'h HeaderValue>,
    /// `Mcp-Session-Id`.
    pub(crate) session_id: Option<&'h HeaderValue>,
    /// `MCP-Protocol-Version`.
    pub(crate) protocol_version: Option<&'h HeaderValue>,
    /// `Mcp-Method`.
    pub(crate) method: Option<&'h HeaderValue>,
    /// `Mcp-Name`.
    pub(crate) name: Option<&'h HeaderValue>,
}

impl<'h> RequestHeaders<'h> {
    /// Reads `map`'s headers of interest in one pass.
    pub(crate) fn of(map: &'h HeaderMap) -> Self {
        let mut found = Self {
            map,
            origin: None,
            host: None,
            accept: None,
            session_id: None,
            protocol_version: None,
            method: None,
            name: None,
        };
        for (name, value) in map {
            let slot = match name.as_str() {
                "origin" => &mut found.origin,
                "host" => &mut found.host,
                "accept" => &mut found.accept,
                "mcp-session-id" => &mut found.session_id,
                "mcp-protocol-version" => &mut found.protocol_version,
                "mcp-method" => &mut found.method,
                "mcp-name" => &mut found.name,
                _ => continue,
            };
            slot.get_or_insert(value);
        }
        found
    }

    /// The text of header `name`, spelled as the protocol spells it; `None` when it is absent
    /// or not visible ASCII.
    pub(crate) fn by_protocol_name(&self, name: &str) -> Option<&'h str> {
        let value = match name {
            MCP_PROTOCOL_VERSION => self.protocol_version,
            MCP_METHOD => self.method,
            MCP_NAME => self.name,
            other => self.map.get(other),
        };
        text(value)
    }
}

/// A header's value as text; `None` when it is absent or not visible ASCII.
pub(crate) fn text(value: Option<&HeaderValue>) -> Option<&str> {
    value.and_then(|value| value.to_str().ok())
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::headers::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};

    #[test]
    #[cfg(feature = "experimental")]
    fn each_name_is_the_protocols_in_lower_case() {
        use modelctx_protocol::headers::MCP_SESSION_ID;
        for (name, spelled) in [(super::METHOD, MCP_METHOD), (super::SESSION_ID, MCP_SESSION_ID)] {
            assert_eq!(name.as_str(), spelled.to_ascii_lowercase());
        }
    }

    #[test]
    fn one_pass_finds_what_lookups_by_name_find() {
        let mut map = http::HeaderMap::new();
        for (name, value) in [
            ("Host", "127.0.0.1:3000"),
            ("Origin", "http://localhost"),
            ("Accept", "application/json, text/event-stream"),
            (modelctx_protocol::headers::MCP_SESSION_ID, "abc"),
            (MCP_PROTOCOL_VERSION, "2026-07-28"),
            (MCP_METHOD, "tools/call"),
            (MCP_NAME, "echo"),
            ("Mcp-Name", "second"),
            ("Mcp-Param-Region", "eu"),
        ] {
            map.append(http::HeaderName::from_bytes(name.as_bytes()).unwrap(), value.parse().unwrap());
        }
        let read = super::RequestHeaders::of(&map);
        assert_eq!(read.origin, map.get(http::header::ORIGIN));
        assert_eq!(read.host, map.get(http::header::HOST));
        assert_eq!(read.accept, map.get(http::header::ACCEPT));
        assert_eq!(read.session_id, map.get("mcp-session-id"));
        assert_eq!(read.by_protocol_name(MCP_PROTOCOL_VERSION), Some("2026-07-28"));
        assert_eq!(read.by_protocol_name(MCP_METHOD), Some("tools/call"));
        assert_eq!(read.by_protocol_name(MCP_NAME), Some("echo"), "the first value, as get gives");
        assert_eq!(read.by_protocol_name("Mcp-Param-Region"), Some("eu"));
        assert_eq!(super::RequestHeaders::of(&http::HeaderMap::new()).host, None);
    }
}
