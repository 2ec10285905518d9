//! Percent-encoding (RFC 3986 §2.1), the one implementation of the crate and of `modelctx`:
//! URI template values, list GET queries, host resource URIs.

/// `text` with every character that is not unreserved (`A–Z a–z 0–9 - . _ ~`) percent-encoded
/// as UTF-8.
pub fn encode_unreserved(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    crate::uri_template::encode_into(&mut out, text, false);
    out
}

/// `text` percent-decoded; `None` for a `%` that does not start a triplet of hex digits, or
/// bytes that are not UTF-8. Anything else passes through as it is.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let hex =
        |i: usize| bytes.get(i).and_then(|&b| char::from(b).to_digit(16)).and_then(|d| u8::try_from(d).ok());
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            out.push(hex(i + 1)? << 4 | hex(i + 2)?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::{decode, encode_unreserved};

    #[test]
    fn what_is_encoded_decodes_back() {
        for text in ["a+b/c=", "Zürich ü", "-._~", "%"] {
            assert_eq!(decode(&encode_unreserved(text)).as_deref(), Some(text));
        }
        assert_eq!(encode_unreserved("a b/ü"), "a%20b%2F%C3%BC");
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%C3"), None, "not UTF-8");
    }
}
