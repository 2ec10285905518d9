//! Long text written as JSON, the bytes it escapes found a vector at a time.
//!
//! serde_json looks at each byte of a string it writes for the few that JSON escapes: about
//! nine instructions a byte, half of the work of echoing a 100 KB argument. A text of
//! [`LONG_TEXT`] bytes or more is escaped here instead, the bytes to escape found a vector at
//! a time, and handed to the serializer as the JSON it is (`RawValue`, which serde_json checks
//! as it builds it: a scan it makes a word at a time). The output is byte for byte what
//! serde_json writes.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// The length from which a text is escaped here.
pub(crate) const LONG_TEXT: usize = 1024;

/// `serialize_with` for a text that may be long.
pub(crate) fn serialize<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    if text.len() < LONG_TEXT {
        return serializer.serialize_str(text);
    }
    match RawValue::from_string(quoted(text)) {
        Ok(json) => json.serialize(serializer),
        // Not reached: `quoted` writes a JSON string. Written as serde_json writes it.
        Err(_) => serializer.serialize_str(text),
    }
}

/// `text` as a JSON string, quoted and escaped as serde_json escapes it: `"` and `\` with a
/// backslash, the controls below U+0020 as `\b \t \n \f \r` or `\u00XX`.
pub(crate) fn quoted(text: &str) -> String {
    let mut json = String::with_capacity(text.len() + 2);
    json.push('"');
    escaped(text, |piece| json.push_str(piece));
    json.push('"');
    json
}

/// Appends `text` to `json` as a JSON string, byte for byte as serde_json writes it, the bytes
/// to escape found a vector at a time: for JSON written without a serializer.
pub fn write_json_string(text: &str, json: &mut Vec<u8>) {
    json.reserve(text.len() + 2);
    json.push(b'"');
    escaped(text, |piece| json.extend_from_slice(piece.as_bytes()));
    json.push(b'"');
}

/// Hands `write` the pieces of `text` escaped as JSON, in order, unquoted.
fn escaped(text: &str, mut write: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    // `text[clean..]` is not yet written.
    let mut clean = 0;
    let mut escape_at = |at: usize, escape: &str| {
        // `at` is at an ASCII byte, so both ends are on character boundaries.
        write(&text[clean..at]);
        write(escape);
        clean = at + 1;
    };
    // Text seldom holds a control character: one pass the compiler turns into vector
    // compares says whether it does. Without one, the quotes and backslashes are found with
    // `memchr`, a vector at a time; with one, every byte is looked at.
    if bytes.iter().fold(false, |any, &byte| any | (byte < 0x20)) {
        for (at, &byte) in bytes.iter().enumerate() {
            if let Some(escape) = escape(byte) {
                escape_at(at, &escape);
            }
        }
    } else {
        for at in memchr::memchr2_iter(b'"', b'\\', bytes) {
            escape_at(at, &escape(bytes[at]).expect("a quote or a backslash is escaped"));
        }
    }
    write(&text[clean..]);
}

/// The escape of `byte`, if JSON escapes it.
fn escape(byte: u8) -> Option<std::borrow::Cow<'static, str>> {
    Some(match byte {
        b'"' => "\\\"".into(),
        b'\\' => "\\\\".into(),
        b'\x08' => "\\b".into(),
        b'\t' => "\\t".into(),
        b'\n' => "\\n".into(),
        b'\x0c' => "\\f".into(),
        b'\r' => "\\r".into(),
        0..0x20 => format!("\\u{byte:04x}").into(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn every_byte_escapes_as_serde_json_escapes_it() {
        let all: String = (0u8..0x80).map(char::from).chain(['é', '€', '𝄞']).collect();
        for text in [all.clone(), all.repeat(40), "plain".repeat(300), String::new()] {
            assert_eq!(quoted(&text), serde_json::to_string(&text).unwrap());
        }
    }

    #[test]
    fn a_long_text_is_written_as_json_and_read_back_as_itself() {
        #[derive(Serialize)]
        struct Holder<'a>(#[serde(serialize_with = "serialize")] &'a str);
        let long = "a \"quoted\" line\n\u{1}é".repeat(100);
        assert!(long.len() >= LONG_TEXT);
        let json = serde_json::to_string(&Holder(&long)).unwrap();
        assert_eq!(json, serde_json::to_string(&long).unwrap());
        assert_eq!(serde_json::to_value(Holder(&long)).unwrap(), serde_json::Value::String(long));
    }

    proptest! {
        #[test]
        fn any_text_escapes_as_serde_json_escapes_it(text in "\\PC*|[\\x00-\\x7f]*") {
            prop_assert_eq!(quoted(&text), serde_json::to_string(&text).unwrap());
            let mut written = b"held".to_vec();
            write_json_string(&text, &mut written);
            prop_assert_eq!(&written[..4], b"held");
            prop_assert_eq!(String::from_utf8(written[4..].to_vec()).unwrap(), serde_json::to_string(&text).unwrap());
        }
    }
}
