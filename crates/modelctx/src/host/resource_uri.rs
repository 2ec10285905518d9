//! The URIs a host gives the resources it aggregates: `mcp-host://{prefix}/{uri}`, the
//! server's prefix (its name unless its entry sets `prefix`) percent-encoded, then the
//! resource's own URI as it is. So any two servers' resources stay apart, every host URI maps
//! back byte for byte to its prefix and its own URI, and a template keeps its expressions:
//! `mcp-host://{prefix}/{template}` expands exactly as the server's template does, behind the
//! same fixed start. A server whose prefix is empty keeps its own URIs.
//!
//! An app's `ui://` URI keeps its scheme, which MCP Apps require: `ui://{rest}` becomes
//! `ui://{prefix}/{rest}`. Such a URI cannot tell itself from a server's own `ui://` URI, so
//! it maps back through the registry's listing first; only a URI listed nowhere is read as
//! `ui://{prefix}/…` of the server with that prefix.

use modelctx_protocol::percent::encode_unreserved as encode;

/// The scheme of a host resource URI.
pub const SCHEME: &str = "mcp-host://";

/// The scheme of MCP Apps' resources, which host URIs keep.
const UI: &str = "ui://";

/// The host URI (or URI template) of `uri` on the server with `prefix`.
pub fn host_uri(prefix: &str, uri: &str) -> String {
    if prefix.is_empty() {
        return uri.to_owned();
    }
    match uri.strip_prefix(UI) {
        Some(rest) => format!("{UI}{}/{rest}", encode(prefix)),
        None => format!("{SCHEME}{}/{uri}", encode(prefix)),
    }
}

/// The prefix and the server's own URI a host URI names; `None` for any URI not of this
/// form (which may still be the URI of a server whose prefix is empty).
pub fn parse_host_uri(host_uri: &str) -> Option<(String, String)> {
    let (prefix, uri) = match host_uri.strip_prefix(SCHEME) {
        Some(rest) => rest.split_once('/').map(|(prefix, uri)| (prefix, uri.to_owned()))?,
        None => {
            let (prefix, rest) = host_uri.strip_prefix(UI)?.split_once('/')?;
            (prefix, format!("{UI}{rest}"))
        }
    };
    Some((decode(prefix)?, uri)).filter(|(prefix, uri)| !prefix.is_empty() && !uri.is_empty())
}

/// Reverses [`encode`] strictly: `None` unless every `%` starts a triplet, nothing else is encoded
/// that `encode` would have encoded, and the bytes are UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(at + 1..at + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                at += 3;
            }
            byte if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') => {
                out.push(byte);
                at += 1;
            }
            _ => return None,
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelctx_protocol::uri_template::UriTemplate;
    use std::collections::BTreeMap;

    #[test]
    fn host_uris_round_trip_and_keep_servers_apart() {
        for (prefix, uri) in [
            ("files", "file:///home/ada/notes.md"),
            ("my server", "everything://items/7?q=a%20b&x=%2F"),
            ("ü", "file:///clock/app.html#top"),
        ] {
            let host = host_uri(prefix, uri);
            assert!(host.starts_with(SCHEME) && !host[SCHEME.len()..].contains(' '), "{host}");
            assert_eq!(parse_host_uri(&host), Some((prefix.to_owned(), uri.to_owned())), "{host}");
        }
        assert_ne!(host_uri("a", "b/c"), host_uri("a/b", "c"));
        assert_eq!(host_uri("", "test://static-text"), "test://static-text", "no prefix, no change");
        let app = host_uri("remote", "ui://everything/clock.html");
        assert_eq!(app, "ui://remote/everything/clock.html", "an app keeps its scheme");
        assert_eq!(parse_host_uri(&app), Some(("remote".into(), "ui://everything/clock.html".into())));
        for foreign in
            ["file:///x", "mcp-host://only-prefix", "mcp-host://s%zz/a", "mcp-host:///a", "mcp-host://s/"]
        {
            assert_eq!(parse_host_uri(foreign), None, "{foreign}");
        }
    }

    #[test]
    fn a_host_template_expands_to_the_host_uri_of_the_servers_expansion() {
        let values = BTreeMap::from([("id".to_owned(), "a/b c".to_owned())]);
        let own = UriTemplate::parse("test://template/{id}/data").unwrap();
        let host = UriTemplate::parse(&host_uri("ev", own.as_str())).unwrap();
        assert_eq!(host.expand(&values), host_uri("ev", &own.expand(&values)));
        assert_eq!(host.match_uri(&host.expand(&values)), Some(values));
    }
}
