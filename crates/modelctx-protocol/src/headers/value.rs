//! Header value encoding: plain text when it is safe, the Base64 sentinel
//! `=?base64?…?=` otherwise.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::{MAX_SAFE_INTEGER, SENTINEL_PREFIX, SENTINEL_SUFFIX};

/// Why a received header value cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderError {
    /// A plain value holds a character outside visible ASCII, space and tab.
    InvalidCharacter {
        /// Byte offset of the character.
        index: usize,
        /// The character.
        character: char,
    },
    /// The value has the sentinel's prefix and suffix, but they overlap.
    TruncatedSentinel,
    /// The sentinel's payload is not standard (padded) Base64.
    InvalidBase64 {
        /// What the decoder reported, for people.
        reason: String,
    },
    /// The sentinel's payload does not decode to UTF-8.
    InvalidUtf8,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidCharacter { index, character } => write!(
                f,
                "invalid character {character:?} at byte {index}; non-ASCII or control characters must be sent as {SENTINEL_PREFIX}…{SENTINEL_SUFFIX}"
            ),
            Self::TruncatedSentinel => {
                write!(f, "truncated {SENTINEL_PREFIX}…{SENTINEL_SUFFIX} value")
            }
            Self::InvalidBase64 { reason } => {
                write!(f, "the {SENTINEL_PREFIX}…{SENTINEL_SUFFIX} payload is not standard Base64: {reason}")
            }
            Self::InvalidUtf8 => {
                write!(f, "the {SENTINEL_PREFIX}…{SENTINEL_SUFFIX} payload does not decode to UTF-8")
            }
        }
    }
}

impl std::error::Error for HeaderError {}

/// Whether `value` has the sentinel's shape: starts with `=?base64?` and ends with `?=`
/// (markers are case-sensitive).
pub fn matches_sentinel_pattern(value: &str) -> bool {
    value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX)
}

/// Whether `value` can travel as a plain header value: printable ASCII and space only, no
/// leading or trailing space, and not sentinel-shaped. Tab is allowed by RFC 9110 but is a
/// control character, so it is encoded too.
fn is_plain_safe(value: &str) -> bool {
    value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !matches_sentinel_pattern(value)
}

/// Encodes a value for `Mcp-Name` or `Mcp-Param-{Name}`: as-is when safe, otherwise
/// `=?base64?{standard Base64 of the UTF-8 bytes}?=` (non-ASCII, control characters,
/// leading or trailing whitespace, or a plain value that looks like a sentinel).
pub fn encode_header_value(value: &str) -> String {
    if is_plain_safe(value) {
        value.to_owned()
    } else {
        format!("{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}", STANDARD.encode(value.as_bytes()))
    }
}

/// Decodes a received `Mcp-Name` or `Mcp-Param-{Name}` value: a sentinel is Base64-decoded;
/// a plain value must hold only visible ASCII, space and tab, and is returned as it is.
pub fn decode_header_value(value: &str) -> Result<Cow<'_, str>, HeaderError> {
    if matches_sentinel_pattern(value) {
        // `=?base64?=` has both markers, overlapping: the range is empty-backwards.
        let payload = value
            .get(SENTINEL_PREFIX.len()..value.len() - SENTINEL_SUFFIX.len())
            .ok_or(HeaderError::TruncatedSentinel)?;
        let bytes =
            STANDARD.decode(payload).map_err(|e| HeaderError::InvalidBase64 { reason: e.to_string() })?;
        return String::from_utf8(bytes).map(Cow::Owned).map_err(|_| HeaderError::InvalidUtf8);
    }
    match value.char_indices().find(|&(_, c)| c != '\t' && !(' '..='~').contains(&c)) {
        Some((index, character)) => Err(HeaderError::InvalidCharacter { index, character }),
        None => Ok(Cow::Borrowed(value)),
    }
}

/// The text of an argument before encoding: strings as-is, integers in decimal (an
/// integral float such as `42.0` too, within ±(2^53−1)), other numbers as JSON writes
/// them, booleans `true`/`false`; `None` for `null`, arrays and objects.
pub(super) fn argument_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) => Some(match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => {
                (f as i64).to_string()
            }
            _ => number.to_string(),
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// The `Mcp-Param-{Name}` value to send for an argument, encoded: strings as-is, integers
/// in decimal, booleans `true`/`false`. `None` (omit the header) for `null`, and for arrays
/// and objects, which `x-mcp-header` cannot annotate.
pub fn header_value_for_argument(value: &Value) -> Option<String> {
    argument_text(value).map(|text| encode_header_value(&text))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn http_29_plain_ascii_is_sent_as_is() {
        for plain in ["us-west1", "a b", "tools/call", "", "file:///x?y=1#z", "=?base64?x"] {
            assert_eq!(encode_header_value(plain), plain);
            assert_eq!(decode_header_value(plain).unwrap(), plain);
        }
    }

    #[test]
    fn http_29_sentinel_encodes_the_spec_examples() {
        let table = [
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ];
        for (original, encoded) in table {
            assert_eq!(encode_header_value(original), encoded, "{original:?}");
            assert_eq!(decode_header_value(encoded).unwrap(), original);
        }
    }

    #[test]
    fn http_29_sentinel_encodes_non_ascii() {
        assert_eq!(encode_header_value("café"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(decode_header_value("=?base64?Y2Fmw6k=?=").unwrap(), "café");
    }

    #[test]
    fn http_29_sentinel_encodes_controls_and_edge_whitespace() {
        for value in ["tab\there", "\tlead", "trail ", " ", "nul\0", "del\u{7f}", "cr\r"] {
            let encoded = encode_header_value(value);
            assert!(encoded.starts_with("=?base64?") && encoded.ends_with("?="), "{value:?}");
            assert_eq!(decode_header_value(&encoded).unwrap(), value);
        }
    }

    #[test]
    fn http_29_sentinel_shaped_plain_values_are_encoded() {
        for value in ["=?base64??=", "=?base64?=", "=?base64?abc?="] {
            let encoded = encode_header_value(value);
            assert_ne!(encoded, value);
            assert_eq!(decode_header_value(&encoded).unwrap(), value);
        }
        // Markers are exact and lowercase: anything else is a plain value.
        assert_eq!(encode_header_value("=?BASE64?abc?="), "=?BASE64?abc?=");
        assert_eq!(decode_header_value("=?BASE64?abc?=").unwrap(), "=?BASE64?abc?=");
    }

    #[test]
    fn http_30_malformed_sentinels_are_errors() {
        assert!(matches!(
            decode_header_value("=?base64?not base64!?="),
            Err(HeaderError::InvalidBase64 { .. })
        ));
        assert!(matches!(decode_header_value("=?base64?SGk?="), Err(HeaderError::InvalidBase64 { .. })));
        assert_eq!(decode_header_value("=?base64?/w==?="), Err(HeaderError::InvalidUtf8));
        assert_eq!(decode_header_value("=?base64?="), Err(HeaderError::TruncatedSentinel));
        assert_eq!(decode_header_value("=?base64??=").unwrap(), "");
    }

    #[test]
    fn http_33_plain_values_with_invalid_characters_are_errors() {
        assert_eq!(
            decode_header_value("a\nb"),
            Err(HeaderError::InvalidCharacter { index: 1, character: '\n' })
        );
        assert_eq!(decode_header_value("é"), Err(HeaderError::InvalidCharacter { index: 0, character: 'é' }));
        assert_eq!(decode_header_value("a\tb").unwrap(), "a\tb");
        let message = decode_header_value("a\u{1}").unwrap_err().to_string();
        assert!(message.contains("=?base64?"), "{message}");
    }

    #[test]
    fn http_29_arguments_convert_by_type() {
        assert_eq!(header_value_for_argument(&json!("us-west1")).as_deref(), Some("us-west1"));
        assert_eq!(header_value_for_argument(&json!(42)).as_deref(), Some("42"));
        assert_eq!(header_value_for_argument(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(header_value_for_argument(&json!(42.0)).as_deref(), Some("42"));
        assert_eq!(header_value_for_argument(&json!(u64::MAX)).as_deref(), Some("18446744073709551615"));
        assert_eq!(header_value_for_argument(&json!(true)).as_deref(), Some("true"));
        assert_eq!(header_value_for_argument(&json!(false)).as_deref(), Some("false"));
        assert_eq!(
            header_value_for_argument(&json!("Hello, 世界")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
    }

    #[test]
    fn http_28_null_and_structured_arguments_have_no_header() {
        assert_eq!(header_value_for_argument(&Value::Null), None);
        assert_eq!(header_value_for_argument(&json!([1])), None);
        assert_eq!(header_value_for_argument(&json!({ "a": 1 })), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. Default::default() })]

        /// Every value a client encodes decodes back to itself, and what it sends is a valid
        /// header value (visible ASCII, space and tab only).
        #[test]
        fn an_encoded_value_decodes_back(value in "\\PC{0,24}|=\\?base64\\?.{0,8}|\\s.{0,4}\\s") {
            let encoded = encode_header_value(&value);
            proptest::prop_assert!(encoded.chars().all(|c| c == '\t' || (' '..='~').contains(&c)), "{encoded:?}");
            proptest::prop_assert_eq!(decode_header_value(&encoded).map(Cow::into_owned), Ok(value));
        }

        /// Whatever a peer sends as a header value, decoding answers without panicking.
        #[test]
        fn any_received_value_decodes_or_is_refused(value in ".{0,40}|=\\?base64\\?.{0,12}\\?=") {
            let _ = decode_header_value(&value);
        }
    }
}
