//! A `tools/call` read by its layout: its members and its params' in any order, with no
//! whitespace between them, and either the `_meta` text the memo keeps (2026-07-28) or no
//! `_meta` at all (2025-11-25). This is how clients write a call (a serialiser writes no
//! whitespace), and a call a client repeats differs from the last in its values only.
//!
//! The fixed text is compared, not parsed, and only the values are parsed, by serde_json, as
//! the typed read parses them: the id, the name and the arguments. What the full read would
//! refuse is not accepted here: every member is one the common shape has, each at most once,
//! with no whitespace or escape in its name; anything else (whitespace, another member) is
//! left to the full read. The arguments' nesting is checked
//! against the limit where they sit (two levels in); the kept `_meta` text passed it when it
//! was read; a string's UTF-8 is checked as serde_json reads it, and the rest is the ASCII
//! compared here.

use std::ops::Range;

use serde::Deserialize;

use super::parse::exceeds_depth;
use super::{JSONRPC_VERSION, ParseLimits, RequestId};
use crate::JsonObject;
use crate::Method;

/// The values of a call read by its layout.
#[derive(Debug, PartialEq)]
pub(super) struct LaidOut {
    pub(super) id: RequestId,
    pub(super) name: String,
    pub(super) arguments: Option<JsonObject>,
}

/// Reads `bytes` as a call laid out as the module's doc says, whose params' `_meta` is the
/// kept text at `kept`, or who has none when `kept` is `None`; `None` for any other layout.
pub(super) fn read_laid_out(
    bytes: &[u8],
    limits: &ParseLimits,
    kept: Option<Range<usize>>,
) -> Option<LaidOut> {
    if bytes.len() > limits.max_message_bytes {
        return None;
    }
    let mut at = Cursor { bytes, at: 0 };
    let (mut versioned, mut id, mut method, mut params) = (false, None, false, None);
    at.literal(b"{").then_some(())?;
    loop {
        if at.member_is(br#""jsonrpc":"#, JSONRPC_VERSION) && !versioned {
            versioned = true;
        } else if at.literal(br#""id":"#) {
            if id.replace(at.value::<RequestId>()?).is_some() {
                return None;
            }
        } else if at.member_is(br#""method":"#, Method::CallTool.as_str()) && !method {
            method = true;
        } else if at.literal(br#""params":"#) {
            if params.replace(read_params(&mut at, limits, kept.as_ref())?).is_some() {
                return None;
            }
        } else {
            return None;
        }
        if !at.literal(b",") {
            break;
        }
    }
    at.literal(b"}").then_some(())?;
    let (name, arguments) = params?;
    // After the message, JSON's whitespace only.
    let ends = bytes[at.at..].iter().all(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'));
    (versioned && method && ends).then_some(LaidOut { id: id?, name, arguments })
}

/// The params object that comes next: its name and arguments, when its `_meta` is the kept
/// text at `kept`, or when it has none and `kept` is `None`.
fn read_params(
    at: &mut Cursor<'_>,
    limits: &ParseLimits,
    kept: Option<&Range<usize>>,
) -> Option<(String, Option<JsonObject>)> {
    let (mut name, mut arguments, mut has_meta) = (None, None, false);
    at.literal(b"{").then_some(())?;
    loop {
        if at.literal(br#""name":"#) {
            if name.replace(at.value::<String>()?).is_some() {
                return None;
            }
        } else if at.literal(br#""arguments":"#) {
            let start = at.at;
            let object = at.value::<JsonObject>()?;
            // Two levels in: the envelope's object and the params'.
            let max_depth = limits.depth_bound().checked_sub(2)?;
            if exceeds_depth(&at.bytes[start..at.at], max_depth).is_some()
                || arguments.replace(object).is_some()
            {
                return None;
            }
        } else if let Some(kept) = kept
            && at.literal(br#""_meta":"#)
            && !has_meta
            && at.at == kept.start
        {
            at.at = kept.end;
            has_meta = true;
        } else {
            return None;
        }
        if !at.literal(b",") {
            break;
        }
    }
    at.literal(b"}").then_some(())?;
    Some((name?, arguments)).filter(|_| has_meta == kept.is_some())
}

/// A position in the bytes being read.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// Steps over `text` if it comes next.
    fn literal(&mut self, text: &[u8]) -> bool {
        let found = self.bytes[self.at..].starts_with(text);
        if found {
            self.at += text.len();
        }
        found
    }

    /// Steps over a member named by `key` (its quotes and colon included) whose value is the
    /// string `text`, written without escapes, if it comes next.
    fn member_is(&mut self, key: &[u8], text: &str) -> bool {
        let rest = &self.bytes[self.at..];
        let found = rest
            .strip_prefix(key)
            .and_then(|value| value.strip_prefix(b"\""))
            .and_then(|value| value.strip_prefix(text.as_bytes()))
            .is_some_and(|value| value.starts_with(b"\""));
        if found {
            self.at += key.len() + text.len() + 2;
        }
        found
    }

    /// The JSON value that comes next, read as `T`, and stepped over.
    fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        let mut values = serde_json::Deserializer::from_slice(&self.bytes[self.at..]).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.at += values.byte_offset();
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{Message, parse_message, parse_message_with};

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// [`read_laid_out`] of `message`, whose first `META`, if any, is the kept text.
    fn laid_out(message: &str, limits: &ParseLimits) -> Option<LaidOut> {
        let kept = message.find(META).map(|at| at..at + META.len());
        read_laid_out(message.as_bytes(), limits, kept)
    }

    /// What the strict reader makes of `message`, as a call.
    fn strict(message: &str) -> LaidOut {
        let Ok(Message::Request(request)) = parse_message(message.as_bytes()) else { panic!("{message}") };
        let params = request.params.expect("params");
        LaidOut {
            id: request.id,
            name: params["name"].as_str().expect("a name").to_owned(),
            arguments: params
                .get("arguments")
                .map(|arguments| arguments.as_object().expect("an object").clone()),
        }
    }

    #[test]
    fn reads_a_call_as_clients_lay_it_out_as_the_strict_reader_does() {
        let arguments = r#""arguments":{"message":"hi \"x\" é","n":[1,2.5,{"a":null}],"_meta":{}}"#;
        let params = [
            format!(r#""name":"echo",{arguments},"_meta":{META}"#),
            format!(r#""_meta":{META},"arguments":{{"message":"hi"}},"name":"echo""#),
            format!(r#""arguments":{{}},"_meta":{META},"name":"e\u0063ho""#),
            format!(r#""name":"echo","_meta":{META}"#),
            // 2025-11-25's, with no `_meta`
            format!(r#""name":"echo",{arguments}"#),
            format!(r#"{arguments},"name":"e\u0063ho""#),
            r#""name":"echo""#.to_owned(),
        ];
        for id in ["7", r#""request-1""#] {
            for params in &params {
                let members = [
                    r#""jsonrpc":"2.0""#.to_owned(),
                    format!(r#""id":{id}"#),
                    r#""method":"tools/call""#.to_owned(),
                    format!(r#""params":{{{params}}}"#),
                ];
                // The schema's order, and others a serialiser may keep.
                for order in [[0, 1, 2, 3], [2, 3, 0, 1], [1, 0, 3, 2]] {
                    let envelope = order.map(|member| members[member].as_str()).join(",");
                    for end in ["", "\n", " \r\n"] {
                        let message = format!("{{{envelope}}}{end}");
                        let call = laid_out(&message, &ParseLimits::default())
                            .unwrap_or_else(|| panic!("{message}"));
                        assert_eq!(call, strict(&message), "{message}");
                    }
                }
            }
        }
    }

    #[test]
    fn leaves_any_other_layout_to_the_full_read() {
        let call = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{params}}}}}"#)
        };
        let others = [
            // whitespace between members; a duplicate, another member, no id; a name escaped
            format!(
                r#"{{"jsonrpc":"2.0", "id":1,"method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e","_meta":{META}}},"x":0}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e","_meta":{META}}},"params":{{"name":"e","_meta":{META}}}}}"#
            ),
            call(&format!(r#""n\u0061me":"e","_meta":{META}"#)),
            // in the params: a duplicate, another member, no name
            call(&format!(r#""name":"e","name":"f","_meta":{META}"#)),
            call(&format!(r#""name":"e","_meta":{META},"task":{{}}"#)),
            call(&format!(r#""arguments":{{}},"_meta":{META}"#)),
            // arguments that are not an object, an id the reader refuses, another method
            call(&format!(r#""name":"e","arguments":null,"_meta":{META}"#)),
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"name":"e","_meta":{META}}}}}"#
            ),
            // something after it that is not JSON's whitespace
            call(&format!(r#""name":"e","_meta":{META}"#)) + "{}",
            call(&format!(r#""name":"e","_meta":{META}"#)) + "\x0c",
            // with no kept `_meta`: another `_meta`, a task, a duplicate, no params
            call(r#""name":"e","_meta":{"progressToken":1}"#),
            call(r#""name":"e","task":{}"#),
            call(r#""name":"e","arguments":{},"arguments":{}"#),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#.to_owned(),
        ];
        for message in others {
            assert_eq!(laid_out(&message, &ParseLimits::default()), None, "{message}");
        }
        // Five levels in all: the arguments' three, two levels in.
        for deep in [
            call(&format!(r#""name":"e","arguments":{{"a":[[]]}},"_meta":{META}"#)),
            call(r#""name":"e","arguments":{"a":[[]]}"#),
        ] {
            assert!(laid_out(&deep, &ParseLimits { max_depth: 5, ..ParseLimits::default() }).is_some());
            assert_eq!(laid_out(&deep, &ParseLimits { max_depth: 4, ..ParseLimits::default() }), None);
            let within = |max_depth| {
                parse_message_with(deep.as_bytes(), &ParseLimits { max_depth, ..ParseLimits::default() })
            };
            assert!(within(5).is_ok() && within(4).is_err(), "the strict reader draws the line there too");
        }
    }
}
