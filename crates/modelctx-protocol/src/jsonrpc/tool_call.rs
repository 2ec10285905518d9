//! The common `tools/call`, read from its bytes in one typed pass: no JSON tree for its
//! envelope, params or `_meta`, only for the tool's arguments.
//!
//! A 2025-11-25 call with no `_meta`, laid out as clients write it, is read by its layout
//! (`super::laid_out`) into the [`Request`] the strict reader would make of it.
//!
//! Only a request of the common shape is read so — the envelope's four members, params with
//! `name`, `arguments` (an object, when present) and a `_meta` of the keys
//! [`RequestMeta`] reads, each once and spelled exactly. Anything else (another method or
//! member, a duplicate, a value of another type, input [`parse_message_with`] refuses) is
//! not read here, and [`parse_message_with`] reads and judges it as it does every message.
//! `_meta` is read through a [`MetaMemo`]: a client's calls repeat it, and it is read once;
//! where the message's only `"_meta"` key holds the text the memo keeps, a call laid out as
//! clients write it (no whitespace between members) is read by its layout, only its values
//! parsed (`super::laid_out`), and any other the full way with the text spliced out for a `0`,
//! not even skipped over.

use std::ops::Range;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::value::RawValue;

use super::laid_out::{LaidOut, read_laid_out};
use super::parse::checked_text;
use super::{JSONRPC_VERSION, ParseLimits, Request, RequestId};
use crate::era::{MetaMemo, RequestMeta, version_key};
use crate::{JsonObject, Method};

#[cfg(doc)]
use super::parse_message_with;

/// A 2026-07-28 `tools/call` of the common shape, read typed.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The request's id.
    pub id: RequestId,
    /// The tool to call.
    pub name: String,
    /// Its arguments, when the request has them.
    pub arguments: Option<JsonObject>,
    /// The facts of its `_meta`, which holds no other key.
    pub meta: RequestMeta,
}

/// What [`read_typed`] read.
#[derive(Clone, Debug, PartialEq)]
pub enum TypedRead {
    /// A 2026-07-28 `tools/call` of the common shape.
    Call(ToolCall),
    /// A `tools/call` with no `_meta` (2025-11-25's), laid out as clients write it: the
    /// request [`parse_message_with`] would read.
    Plain(Request),
}

/// Reads `bytes` as a `tools/call` of the common shape (the module's doc), within `limits`:
/// its `_meta` through `memo`, or, with no `memo`, only a call with no `_meta`; `None` for any
/// other message, which [`parse_message_with`] reads instead.
pub fn read_typed(bytes: &[u8], limits: &ParseLimits, memo: Option<&MetaMemo>) -> Option<TypedRead> {
    // Cheap looks first: most other messages go to the strict reader after a scan or two.
    static CALL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""tools/call""#));
    const META_KEY: &[u8] = br#""_meta""#;
    static META: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(META_KEY));
    let mut keys = META.find_iter(bytes);
    let Some(first) = keys.next() else {
        // No `_meta` at all: a legacy call, read by its layout if laid out as clients write it.
        let LaidOut { id, name, arguments } = read_laid_out(bytes, limits, None)?;
        let mut params = JsonObject::new();
        params.insert("name".to_owned(), name.into());
        if let Some(arguments) = arguments {
            params.insert("arguments".to_owned(), arguments.into());
        }
        return Some(TypedRead::Plain(Request { id, method: Method::CallTool, params: Some(params) }));
    };
    let memo = memo?;
    // Where there is only one `"_meta"` key, and it holds the text the memo keeps, it is the
    // params' own if the message is of the common shape.
    let kept = keys.next().is_none().then(|| memo.find_at(bytes, first + META_KEY.len())).flatten();
    // As clients lay a call out, only its values are parsed.
    if let Some((kept, meta)) = &kept
        && let Some(LaidOut { id, name, arguments }) = read_laid_out(bytes, limits, Some(kept.clone()))
    {
        return Some(TypedRead::Call(ToolCall { id, name, arguments, meta: meta.clone() }));
    }
    CALL.find(bytes)?;
    // A legacy message has no version key, and is sent on after one more scan.
    if kept.is_none() {
        version_key(bytes)?;
    }
    let text = checked_text(bytes, limits).ok()?;
    if let Some((kept, meta)) = kept
        && let Some(call) = read_without(text, kept, meta)
    {
        return Some(TypedRead::Call(call));
    }
    let (id, Params { name, arguments, meta }) = read_envelope::<&RawValue>(text)?;
    Some(TypedRead::Call(ToolCall { id, name, arguments, meta: memo.read(meta.get())? }))
}

/// Reads `text` with the `_meta` text at `kept` spliced out for a `0`, as a call whose `_meta`
/// says `meta`; `None` when the call is not of the common shape.
fn read_without(text: &str, kept: Range<usize>, meta: RequestMeta) -> Option<ToolCall> {
    let (before, after) = (text.get(..kept.start)?, text.get(kept.end..)?);
    let mut spliced = String::with_capacity(before.len() + 1 + after.len());
    spliced.extend([before, "0", after]);
    let (id, Params { name, arguments, meta: Spliced }) = read_envelope::<Spliced>(&spliced)?;
    Some(ToolCall { id, name, arguments, meta })
}

/// The id and params of `text`, a `tools/call` of the common shape whose `_meta` reads as `M`.
fn read_envelope<'a, M: Deserialize<'a>>(text: &'a str) -> Option<(RequestId, Params<M>)> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let envelope = Envelope::<M>::deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some((envelope.id, envelope.params))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<M> {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: Exactly<JsonRpc>,
    id: RequestId,
    #[serde(rename = "method")]
    _method: Exactly<CallTool>,
    params: Params<M>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<M> {
    name: String,
    #[serde(default, deserialize_with = "object")]
    arguments: Option<JsonObject>,
    /// Its text, for the memo to read; or the `0` spliced in for the text it keeps.
    #[serde(rename = "_meta")]
    meta: M,
}

/// The `0` [`read_without`] splices in for a `_meta` the memo keeps.
struct Spliced;

impl<'de> Deserialize<'de> for Spliced {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u8::deserialize(deserializer)? {
            0 => Ok(Self),
            other => Err(de::Error::invalid_value(de::Unexpected::Unsigned(other.into()), &"the spliced 0")),
        }
    }
}

/// `arguments`, present: an object (`null` is not of the common shape).
fn object<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<JsonObject>, D::Error> {
    JsonObject::deserialize(deserializer).map(Some)
}

/// A string member that must be exactly `T::TEXT`, unescaped.
struct Exactly<T>(std::marker::PhantomData<T>);

/// The text an [`Exactly`] member must be.
trait Text {
    const TEXT: &'static str;
}

struct JsonRpc;
impl Text for JsonRpc {
    const TEXT: &'static str = JSONRPC_VERSION;
}

struct CallTool;
impl Text for CallTool {
    const TEXT: &'static str = "tools/call";
}

impl<'de, T: Text> Deserialize<'de> for Exactly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <&str>::deserialize(deserializer)?;
        if text == T::TEXT {
            Ok(Self(std::marker::PhantomData))
        } else {
            Err(de::Error::invalid_value(de::Unexpected::Str(text), &T::TEXT))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::sync::Arc;

    use super::*;
    use crate::jsonrpc::{Message, parse_message};
    use crate::version::ProtocolVersion;

    fn call(params: serde_json::Value) -> serde_json::Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    }

    fn meta() -> serde_json::Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}
        })
    }

    fn read(message: &serde_json::Value) -> Option<ToolCall> {
        read_at(message.to_string().as_bytes(), &ParseLimits::default())
    }

    fn read_at(bytes: &[u8], limits: &ParseLimits) -> Option<ToolCall> {
        call_of(read_typed(bytes, limits, Some(&MetaMemo::default())))
    }

    fn call_of(read: Option<TypedRead>) -> Option<ToolCall> {
        read.map(|read| match read {
            TypedRead::Call(call) => call,
            TypedRead::Plain(request) => panic!("read as a call with no _meta: {request:?}"),
        })
    }

    #[test]
    fn a_call_with_no_meta_is_the_request_the_strict_reader_reads() {
        let legacy = [
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
            r#"{"method":"tools/call","params":{"arguments":{},"name":"echo"},"jsonrpc":"2.0","id":"a"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}"#,
        ];
        for message in legacy {
            let Ok(Message::Request(strict)) = parse_message(message.as_bytes()) else { panic!("{message}") };
            for memo in [None, Some(&MetaMemo::default())] {
                let read = read_typed(message.as_bytes(), &ParseLimits::default(), memo);
                assert_eq!(read, Some(TypedRead::Plain(strict.clone())), "{message}");
            }
        }
        // Without a memo, no call with a `_meta` is read: a 2026-07-28 call, or one with a
        // progress token.
        let modern = call(json!({"name": "echo", "_meta": meta()})).to_string();
        let with_token = call(json!({"name": "echo", "_meta": {"progressToken": 1}})).to_string();
        for message in [modern, with_token] {
            assert_eq!(read_typed(message.as_bytes(), &ParseLimits::default(), None), None, "{message}");
        }
    }

    #[test]
    fn reads_the_common_shape_as_the_strict_reader_does() {
        let message = call(json!({"name": "echo", "arguments": {"message": "hi"}, "_meta": meta()}));
        let typed = read(&message).expect("the common shape");
        let Ok(Message::Request(strict)) = parse_message(message.to_string().as_bytes()) else { panic!() };
        let params = strict.params.unwrap();
        assert_eq!(typed.id, strict.id);
        assert_eq!(typed.name, params["name"]);
        assert_eq!(typed.arguments.as_ref(), params["arguments"].as_object());
        assert_eq!(typed.meta, RequestMeta::from_json(&params["_meta"]).unwrap());
        assert_eq!(typed.meta.protocol_version, ProtocolVersion::V2026_07_28);
        let bare = read(&call(json!({"name": "echo", "_meta": meta()}))).unwrap();
        assert_eq!(bare.arguments, None);
    }

    #[test]
    fn a_kept_meta_is_spliced_out_only_where_it_is_the_params_own() {
        let memo = MetaMemo::default();
        let read =
            |message: &str| call_of(read_typed(message.as_bytes(), &ParseLimits::default(), Some(&memo)));
        let meta = meta().to_string();
        let plain = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e","arguments":{{"a":1}},"_meta":{meta}}}}}"#
        );
        let first = read(&plain).expect("read, and its _meta kept");
        let again = read(&plain.replace(r#""id":1"#, r#""id":2"#)).expect("read with the kept _meta");
        assert!(Arc::ptr_eq(&first.meta.client, &again.meta.client), "the kept _meta spliced out");
        assert_eq!((again.id, &again.arguments), (RequestId::Number(2), &first.arguments));
        let spaced = read(&plain.replace(r#""_meta":"#, r#""_meta" : "#)).expect("spaced");
        assert!(Arc::ptr_eq(&spaced.meta.client, &first.meta.client));
        // The same text as an argument's `_meta`: left in the arguments, whatever the params'.
        let nested = |params_meta: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"e","arguments":{{"_meta":{meta}}},"_meta":{params_meta}}}}}"#
            )
        };
        let both = read(&nested(&meta)).expect("read");
        assert_eq!(
            both.arguments.unwrap()["_meta"],
            serde_json::from_str::<serde_json::Value>(&meta).unwrap()
        );
        assert_eq!(read(&nested("0")), None, "a _meta of 0 is not a _meta");
    }

    #[test]
    fn leaves_anything_else_to_the_strict_reader() {
        let mut with_trace = meta();
        with_trace["traceparent"] = json!("00-x");
        let others = [
            // another member of params, of `_meta`, of the envelope
            call(json!({"name": "echo", "_meta": meta(), "requestState": "s"})),
            call(json!({"name": "echo", "_meta": with_trace})),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "e", "_meta": meta()}, "x": 1}),
            // no `_meta`, arguments not an object, an id the strict reader refuses
            call(json!({"name": "echo", "io.modelcontextprotocol/protocolVersion": 1})),
            call(json!({"name": "echo", "arguments": null, "_meta": meta()})),
            json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": "e", "_meta": meta()}}),
            json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "e", "_meta": meta()}}),
            // another method
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(), "x": "tools/call"}}),
        ];
        for message in others {
            assert_eq!(read(&message), None, "{message}");
        }
        let duplicate = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"a","name":"b","_meta":{}}}}}"#,
            meta()
        );
        assert_eq!(read_at(duplicate.as_bytes(), &ParseLimits::default()), None);
        let deep = call(json!({"name": "echo", "arguments": {"a": [[[[[]]]]]}, "_meta": meta()}));
        let shallow = ParseLimits { max_depth: 4, ..ParseLimits::default() };
        assert_eq!(read_at(deep.to_string().as_bytes(), &shallow), None);
    }
}
