//! Entity tags of the documents served for HTTP caches (server cards, list pages): a digest of
//! the body, and whether a request's `If-None-Match` still names it.

use http::{HeaderMap, header};
use modelctx_protocol::headers::if_none_match_matches;
use sha2::{Digest, Sha256};

/// The strong entity tag of `body`: 96 bits of its SHA-256, quoted.
pub(super) fn entity_tag(body: &[u8]) -> String {
    let digest = Sha256::digest(body);
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// Whether `headers` carry an `If-None-Match` that names `etag` (the client's copy is current).
pub(super) fn still_current(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|tags| tags.to_str().ok())
        .is_some_and(|tags| if_none_match_matches(tags, etag))
}
