//! Strict, bounded parsing of one JSON-RPC message from bytes.
//!
//! Rules, each with its own precise error:
//! - larger than [`ParseLimits::max_message_bytes`] → `-32600`;
//! - not UTF-8 → `-32700` naming the byte offset; not JSON → `-32700`;
//! - nested deeper than [`ParseLimits::max_depth`] → `-32600` (checked before parsing, so deep
//!   input costs one linear scan and no recursion);
//! - a batch array → `-32600` (MCP forbids batching);
//! - `jsonrpc` missing or not exactly `"2.0"` → `-32600`;
//! - a duplicate envelope key, or a case variant of one (`"ID"`, `"Method"`) → `-32600`;
//! - `params` not an object → `-32602` for an array (MCP params are objects), `-32600` otherwise;
//! - `id` `null`, fractional, or not a string/integer → `-32600`.
//!
//! Whenever the id could be read, the failure carries it so the reply can name the request.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::error::ErrorObject;
use super::id::RequestId;
use super::message::{ErrorResponse, JSONRPC_VERSION, Message, Notification, Request, Response};
use crate::Method;

/// Bounds applied to every incoming message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseLimits {
    /// Largest accepted message, in bytes. Default 4 MiB.
    pub max_message_bytes: usize,
    /// Deepest accepted nesting of arrays and objects; the top-level object is depth 1.
    /// Default 64; values above [`ParseLimits::MAX_DEPTH_CEILING`] act as that ceiling.
    pub max_depth: usize,
}

impl ParseLimits {
    /// The deepest nesting the JSON parser itself can handle without recursing too far.
    pub const MAX_DEPTH_CEILING: usize = 127;

    /// The nesting a message may have: `max_depth`, at most the ceiling.
    pub(crate) fn depth_bound(&self) -> usize {
        self.max_depth.min(Self::MAX_DEPTH_CEILING)
    }
}

impl Default for ParseLimits {
    fn default() -> Self {
        Self { max_message_bytes: 4 * 1024 * 1024, max_depth: 64 }
    }
}

/// Why a message was refused, ready to be sent back as an error response.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseFailure {
    /// The id of the offending request, when it could be read.
    pub id: Option<RequestId>,
    /// The error to reply with.
    pub error: ErrorObject,
}

impl ParseFailure {
    fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self { id, error }
    }

    /// The error response to send back. Failures of notifications and responses must not be
    /// answered; the caller decides that from the message kind, which may be unknown here.
    pub fn into_response(self) -> ErrorResponse {
        ErrorResponse { id: self.id, error: self.error }
    }
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for ParseFailure {}

/// Parses one message with the default [`ParseLimits`].
pub fn parse_message(bytes: &[u8]) -> Result<Message, ParseFailure> {
    parse_message_with(bytes, &ParseLimits::default())
}

/// Parses one message under `limits`.
pub fn parse_message_with(bytes: &[u8], limits: &ParseLimits) -> Result<Message, ParseFailure> {
    let text = checked_text(bytes, limits)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let raw = RawEnvelope::deserialize(&mut deserializer)
        .and_then(|raw| deserializer.end().map(|()| raw))
        .map_err(|e| ParseFailure::new(None, ErrorObject::parse_error(e)))?;
    raw.classify()
}

/// `bytes` as text, once within `limits`: their size, UTF-8, and the depth of their nesting.
pub(super) fn checked_text<'a>(bytes: &'a [u8], limits: &ParseLimits) -> Result<&'a str, ParseFailure> {
    if bytes.len() > limits.max_message_bytes {
        return Err(ParseFailure::new(
            None,
            ErrorObject::invalid_request(format!(
                "message is {} bytes; the limit is {} bytes",
                bytes.len(),
                limits.max_message_bytes
            )),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        ParseFailure::new(
            None,
            ErrorObject::parse_error(format!("invalid UTF-8 at byte {}", e.valid_up_to())),
        )
    })?;
    let max_depth = limits.depth_bound();
    if let Some(offset) = exceeds_depth(text.as_bytes(), max_depth) {
        return Err(ParseFailure::new(
            None,
            ErrorObject::invalid_request(format!(
                "nesting deeper than {max_depth} levels (at byte {offset})"
            )),
        ));
    }
    Ok(text)
}

/// Returns the byte offset where nesting first exceeds `max_depth`, scanning once. Most of a
/// message's bytes are inside strings, where only `"` and `\` matter: those stretches are
/// skipped with `memchr` rather than looked at byte by byte.
pub(super) fn exceeds_depth(bytes: &[u8], max_depth: usize) -> Option<usize> {
    // Each level of nesting opens with a bracket: a message with no more brackets than the
    // limit (inside strings or not) is within it. A short message's are counted in a loop the
    // compiler turns into vector compares (`memchr` costs some 60 instructions a bracket); a
    // long one's with `memchr`, which stops at the one past the limit and, on wider vectors,
    // costs a seventh of an instruction a byte where the loop costs two thirds.
    let within = if bytes.len() <= SHORT_MESSAGE {
        bracket_count(bytes) <= max_depth
    } else {
        memchr::memchr2_iter(b'{', b'[', bytes).nth(max_depth).is_none()
    };
    if within {
        return None;
    }
    let mut depth = 0usize;
    let mut offset = 0;
    while let Some(&b) = bytes.get(offset) {
        match b {
            // An unterminated string holds no more nesting: the parser says what is wrong.
            b'"' => offset = string_end(bytes, offset + 1)?,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(offset);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        offset += 1;
    }
    None
}

/// The length up to which a message's brackets are counted in byte lanes.
const SHORT_MESSAGE: usize = 4096;

/// How many `{` and `[` `bytes` holds, strings included: counted in byte lanes, 255 bytes at
/// a time so that no lane overflows.
fn bracket_count(bytes: &[u8]) -> usize {
    // `[` is `{` without bit 5: one compare finds both.
    let in_chunk = |chunk: &[u8]| chunk.iter().fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{'));
    bytes.chunks(255).map(|chunk| usize::from(in_chunk(chunk))).sum()
}

/// The offset of the quote that closes the string whose contents start at `from`; `None` when
/// the input ends first.
fn string_end(bytes: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let found = from + memchr::memchr2(b'"', b'\\', bytes.get(from..)?)?;
        if bytes[found] == b'"' {
            return Some(found);
        }
        // An escape: the next byte is part of it, whatever it is.
        from = found + 2;
    }
}

/// A member that should be a string: borrowed from the input when it has no escapes, or
/// whatever else it was (for the error that names it).
enum Text<'de> {
    Str(Cow<'de, str>),
    Other(Value),
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Text<'de>, E> {
        Ok(Text::Str(Cow::Owned(text)))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::Bool(value)))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Text<'de>, E> {
        Ok(Text::Other(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Text<'de>, E> {
        Ok(Text::Other(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Text<'de>, E> {
        Ok(Text::Other(value.into()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Text<'de>, E> {
        Ok(Text::Other(Value::Null))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text<'de>, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Text::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Text<'de>, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(Text::Other)
    }
}

/// The envelope keys, read without judging them yet.
#[derive(Default)]
pub(crate) struct RawEnvelope<'de> {
    batch: bool,
    not_object: bool,
    jsonrpc: Option<Text<'de>>,
    id: Option<Value>,
    method: Option<Text<'de>>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
    problem: Option<String>,
}

const ENVELOPE_KEYS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// Where an envelope key's value goes.
enum Slot<'a, 'de> {
    Text(&'a mut Option<Text<'de>>),
    Value(&'a mut Option<Value>),
}

impl Slot<'_, '_> {
    fn is_filled(&self) -> bool {
        match self {
            Self::Text(slot) => slot.is_some(),
            Self::Value(slot) => slot.is_some(),
        }
    }
}

impl<'de> RawEnvelope<'de> {
    fn slot(&mut self, key: &str) -> Option<Slot<'_, 'de>> {
        Some(match key {
            "jsonrpc" => Slot::Text(&mut self.jsonrpc),
            "id" => Slot::Value(&mut self.id),
            "method" => Slot::Text(&mut self.method),
            "params" => Slot::Value(&mut self.params),
            "result" => Slot::Value(&mut self.result),
            "error" => Slot::Value(&mut self.error),
            _ => return None,
        })
    }

    fn note(&mut self, problem: String) {
        self.problem.get_or_insert(problem);
    }

    /// Judges the envelope: the kind of message, or why it is not one.
    pub(crate) fn classify(self) -> Result<Message, ParseFailure> {
        if self.batch {
            return Err(ParseFailure::new(
                None,
                ErrorObject::invalid_request("batch arrays are not supported; send one message at a time"),
            ));
        }
        if self.not_object {
            return Err(ParseFailure::new(
                None,
                ErrorObject::invalid_request("a message must be a JSON object"),
            ));
        }
        let id = match self.id {
            None => None,
            Some(Value::Null) => {
                return Err(ParseFailure::new(None, ErrorObject::invalid_request("id must not be null")));
            }
            Some(value) => Some(
                RequestId::deserialize(value)
                    .map_err(|e| ParseFailure::new(None, ErrorObject::invalid_request(format!("id: {e}"))))?,
            ),
        };
        let fail = |error: ErrorObject| Err(ParseFailure::new(id.clone(), error));
        if let Some(problem) = self.problem {
            return fail(ErrorObject::invalid_request(problem));
        }
        match &self.jsonrpc {
            Some(Text::Str(v)) if v == JSONRPC_VERSION => {}
            Some(Text::Str(other)) => {
                return fail(ErrorObject::invalid_request(format!(
                    "\"jsonrpc\" must be \"2.0\", got {}",
                    Value::from(other.as_ref())
                )));
            }
            Some(Text::Other(other)) => {
                return fail(ErrorObject::invalid_request(format!(
                    "\"jsonrpc\" must be \"2.0\", got {other}"
                )));
            }
            None => return fail(ErrorObject::invalid_request("missing \"jsonrpc\": \"2.0\"")),
        }
        if let Some(method) = self.method {
            let Text::Str(method) = method else {
                return fail(ErrorObject::invalid_request("\"method\" must be a string"));
            };
            if self.result.is_some() || self.error.is_some() {
                return fail(ErrorObject::invalid_request(
                    "a message cannot carry both \"method\" and \"result\"/\"error\"",
                ));
            }
            let params = match self.params {
                None => None,
                Some(Value::Object(map)) => Some(map),
                Some(Value::Array(_)) => {
                    return fail(ErrorObject::invalid_params(
                        "params must be an object with named members, not an array",
                    ));
                }
                Some(other) => {
                    return fail(ErrorObject::invalid_request(format!(
                        "params must be an object, got {}",
                        json_kind(&other)
                    )));
                }
            };
            let method = Method::from(method.as_ref());
            return Ok(match id {
                Some(id) => Message::Request(Request { id, method, params }),
                None => Message::Notification(Notification { method, params }),
            });
        }
        if self.params.is_some() {
            return fail(ErrorObject::invalid_request("\"params\" without \"method\""));
        }
        match (self.result, self.error) {
            (Some(_), Some(_)) => {
                fail(ErrorObject::invalid_request("a response cannot carry both \"result\" and \"error\""))
            }
            (Some(Value::Object(result)), None) => match id {
                Some(id) => Ok(Message::Response(Response { id, result })),
                None => fail(ErrorObject::invalid_request("a result response needs an \"id\"")),
            },
            (Some(other), None) => fail(ErrorObject::invalid_request(format!(
                "\"result\" must be an object, got {}",
                json_kind(&other)
            ))),
            (None, Some(error)) => match ErrorObject::deserialize(error) {
                Ok(error) => Ok(Message::Error(ErrorResponse { id, error })),
                Err(e) => fail(ErrorObject::invalid_request(format!(
                    "\"error\" must be {{code: integer, message: string, data?}}: {e}"
                ))),
            },
            (None, None) => fail(ErrorObject::invalid_request(
                "not a request, notification or response: no \"method\", \"result\" or \"error\"",
            )),
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = RawEnvelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEnvelope<'de>, A::Error> {
        let mut raw = RawEnvelope::default();
        // Borrowed from the input (serde's own `Cow` always copies).
        while let Some(key) = map.next_key::<Text<'de>>()? {
            let key = match key {
                Text::Str(key) => key,
                Text::Other(other) => Cow::Owned(other.to_string()),
            };
            match raw.slot(&key) {
                Some(slot) if slot.is_filled() => {
                    map.next_value::<IgnoredAny>()?;
                    raw.note(format!("duplicate key {key:?}"));
                }
                Some(Slot::Text(slot)) => *slot = Some(map.next_value()?),
                Some(Slot::Value(slot)) => *slot = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                    if let Some(canonical) = ENVELOPE_KEYS.iter().find(|k| k.eq_ignore_ascii_case(&key)) {
                        raw.note(format!("key {key:?} must be spelled {canonical:?}"));
                    }
                }
            }
        }
        Ok(raw)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawEnvelope<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(RawEnvelope { batch: true, ..RawEnvelope::default() })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }

    fn visit_unit<E: de::Error>(self) -> Result<RawEnvelope<'de>, E> {
        Ok(RawEnvelope { not_object: true, ..RawEnvelope::default() })
    }
}

impl<'de> Deserialize<'de> for RawEnvelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(EnvelopeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::exceeds_depth;

    /// The same scan, one byte at a time: what the skipping must agree with.
    fn byte_by_byte(bytes: &[u8], max_depth: usize) -> Option<usize> {
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (offset, &b) in bytes.iter().enumerate() {
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max_depth {
                        return Some(offset);
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, .. ProptestConfig::default() })]

        /// Skipping strings finds the same offset as looking at every byte, for any bytes:
        /// quotes, escapes and brackets in every order, unterminated strings included.
        #[test]
        fn the_depth_scan_skips_strings_without_changing_its_answer(
            bytes in prop::collection::vec(prop_oneof![
                Just(b'"'), Just(b'\\'), Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), any::<u8>()
            ], 0..200),
            max_depth in 0usize..6,
        ) {
            prop_assert_eq!(exceeds_depth(&bytes, max_depth), byte_by_byte(&bytes, max_depth));
        }
    }
}
