//! The URIs a host gives the resources it aggregates: `mcp-host://{server}/{uri}`, the server's
//! name and the resource's own URI each percent-encoded whole, so that any two servers'
//! resources stay apart and every URI maps back, byte for byte, to its server and its own URI.

/// The scheme of a host resource URI.
pub const SCHEME: &str = "mcp-host://";

/// The host URI of `uri` on `server`.
pub fn host_uri(server: &str, uri: &str) -> String {
    format!("{SCHEME}{}/{}", encode(server), encode(uri))
}

/// The server and the server's own URI a host URI names; `None` for any other string.
pub fn parse_host_uri(host_uri: &str) -> Option<(String, String)> {
    let rest = host_uri.strip_prefix(SCHEME)?;
    let (server, uri) = rest.split_once('/')?;
    Some((decode(server)?, decode(uri)?))
}

/// Percent-encodes every byte of `text` but RFC 3986's unreserved characters.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Reverses [`encode`]: `None` unless every `%` starts a triplet, nothing else is encoded
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

    #[test]
    fn host_uris_round_trip_and_keep_servers_apart() {
        for (server, uri) in [
            ("files", "file:///home/ada/notes.md"),
            ("my server", "everything://items/{id}?q=a b&x=%2F"),
            ("ü", "ui://clock/app.html#top"),
        ] {
            let host = host_uri(server, uri);
            assert!(host.starts_with(SCHEME) && !host[SCHEME.len()..].contains(' '), "{host}");
            assert_eq!(parse_host_uri(&host), Some((server.to_owned(), uri.to_owned())), "{host}");
        }
        assert_ne!(host_uri("a", "b/c"), host_uri("a/b", "c"));
        for foreign in ["file:///x", "mcp-host://only-server", "mcp-host://s/%zz", "mcp-host://s/a b"] {
            assert_eq!(parse_host_uri(foreign), None, "{foreign}");
        }
    }
}
