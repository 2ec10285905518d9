//! What a server takes of a 2026-07-28 request's `_meta` (`RequestMetaObject`), read in one
//! pass: from the params' JSON once the router has checked them, or straight from the bytes
//! by [`crate::jsonrpc::read_typed`] — through a [`MetaMemo`], which reads a `_meta` its
//! client sends again only once.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use memchr::memmem::Finder;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::jsonrpc::ProgressToken;
use crate::meta::{CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, PROGRESS_TOKEN, PROTOCOL_VERSION};
use crate::model::ClientCapabilities;
use crate::types::{Implementation, LoggingLevel};
use crate::v2026;
use crate::version::ProtocolVersion;

/// The facts of a 2026-07-28 request's `_meta`: its version, the client and what it declared
/// for this request, its log level and progress token.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion` (required).
    pub protocol_version: ProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities` and `clientInfo`, shared by the requests
    /// read through one [`MetaMemo`] that declared the same.
    pub client: Arc<DeclaredClient>,
    /// `io.modelcontextprotocol/logLevel` (deprecated).
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`.
    pub progress_token: Option<ProgressToken>,
}

/// What a client declared of itself for a request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclaredClient {
    /// What it supports (`io.modelcontextprotocol/clientCapabilities` in 2026-07-28, the
    /// session's `initialize` before).
    pub capabilities: ClientCapabilities,
    /// Its software (`io.modelcontextprotocol/clientInfo`), when it said.
    pub info: Option<Implementation>,
}

impl RequestMeta {
    /// Reads the facts of `meta`, a request's `_meta` as JSON; its other keys are left for
    /// whoever wants them.
    pub fn from_json(meta: &Value) -> Result<Self, serde_json::Error> {
        MetaSeed { others: Others::Skip }.deserialize(meta)
    }
}

/// Where the first `"io.modelcontextprotocol/protocolVersion"` (quotes included: a key or a
/// string value, never inside a string) starts in `bytes`.
pub(crate) fn version_key(bytes: &[u8]) -> Option<usize> {
    static VERSION: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new(format!("\"{PROTOCOL_VERSION}\"").as_bytes()).into_owned());
    VERSION.find(bytes)
}

/// The `_meta` last read through it, by its JSON text, with what it says: a client sends the
/// same `_meta` with each of its calls, and it is read once. It keeps one, of at most
/// [`MetaMemo::MAX_TEXT`] bytes, and none with a progress token (which differs per request).
#[derive(Debug, Default)]
pub struct MetaMemo {
    last: Mutex<Option<Kept>>,
}

/// A `_meta` a [`MetaMemo`] keeps.
#[derive(Debug)]
struct Kept {
    text: Box<str>,
    meta: RequestMeta,
}

impl MetaMemo {
    /// The longest `_meta` text kept.
    pub const MAX_TEXT: usize = 4096;

    /// Reads `text`, a `_meta` object holding only keys [`RequestMeta`] reads (another key,
    /// a duplicate, a value of the wrong type: `None`), or takes what the same text said last.
    pub fn read(&self, text: &str) -> Option<RequestMeta> {
        if let Some(kept) = &*self.last()
            && *kept.text == *text
        {
            return Some(kept.meta.clone());
        }
        let meta = MetaSeed { others: Others::Refuse }
            .deserialize(&mut serde_json::Deserializer::from_str(text))
            .ok()?;
        if meta.progress_token.is_none() && text.len() <= Self::MAX_TEXT {
            *self.last() = Some(Kept { text: text.into(), meta: meta.clone() });
        }
        Some(meta)
    }

    /// The kept text and what it says, when `message` holds it as the value of the key that
    /// ends at `key_end` (a `:` between, and any whitespace): the range it takes there.
    pub(crate) fn find_at(&self, message: &[u8], key_end: usize) -> Option<(Range<usize>, RequestMeta)> {
        let last = self.last();
        let kept = last.as_ref()?;
        let value = message.get(key_end..)?.trim_ascii_start().strip_prefix(b":")?.trim_ascii_start();
        let start = message.len() - value.len();
        value.starts_with(kept.text.as_bytes()).then(|| (start..start + kept.text.len(), kept.meta.clone()))
    }

    fn last(&self) -> std::sync::MutexGuard<'_, Option<Kept>> {
        self.last.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a `_meta` key other than those [`RequestMeta`] reads does to the reading.
#[derive(Clone, Copy)]
enum Others {
    /// It is skipped (it stays in the JSON for whoever wants it).
    Skip,
    /// It fails the reading: the request is not of the common shape.
    Refuse,
}

/// Reads a [`RequestMeta`] from a `_meta` object.
struct MetaSeed {
    others: Others,
}

impl<'de> DeserializeSeed<'de> for MetaSeed {
    type Value = RequestMeta;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RequestMeta, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// The keys of `_meta` that [`RequestMeta`] reads.
enum Key {
    Version,
    Info,
    Capabilities,
    Level,
    Token,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a _meta key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            PROTOCOL_VERSION => Key::Version,
            CLIENT_INFO => Key::Info,
            CLIENT_CAPABILITIES => Key::Capabilities,
            LOG_LEVEL => Key::Level,
            PROGRESS_TOKEN => Key::Token,
            _ => Key::Other,
        })
    }
}

/// Fills `slot` with the next value of `map`; a key given twice is an error.
fn fill<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    key: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(key));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

impl<'de> Visitor<'de> for MetaSeed {
    type Value = RequestMeta;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the request's _meta object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RequestMeta, A::Error> {
        let (mut version, mut info, mut capabilities, mut level, mut token) = (None, None, None, None, None);
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Version => fill(&mut map, &mut version, PROTOCOL_VERSION)?,
                Key::Info => fill(&mut map, &mut info, CLIENT_INFO)?,
                Key::Capabilities => fill::<_, Object<v2026::ClientCapabilities>>(
                    &mut map,
                    &mut capabilities,
                    CLIENT_CAPABILITIES,
                )?,
                Key::Level => fill(&mut map, &mut level, LOG_LEVEL)?,
                Key::Token => fill(&mut map, &mut token, PROGRESS_TOKEN)?,
                Key::Other => match self.others {
                    Others::Skip => drop(map.next_value::<IgnoredAny>()?),
                    Others::Refuse => return Err(de::Error::custom("a _meta key not read here")),
                },
            }
        }
        let capabilities = capabilities.ok_or_else(|| de::Error::missing_field(CLIENT_CAPABILITIES))?.0;
        Ok(RequestMeta {
            protocol_version: version.ok_or_else(|| de::Error::missing_field(PROTOCOL_VERSION))?,
            client: Arc::new(DeclaredClient { capabilities: capabilities.into(), info }),
            log_level: level,
            progress_token: token,
        })
    }
}

/// A `T` read only from a JSON object (serde reads a struct from an array too).
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Object)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn meta(extra: Value) -> Value {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "info",
            "progressToken": 7
        });
        meta.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        meta
    }

    #[test]
    fn reads_every_fact_and_leaves_other_keys() {
        let read = RequestMeta::from_json(&meta(json!({"traceparent": "00-x"}))).unwrap();
        assert_eq!(read.protocol_version, ProtocolVersion::V2026_07_28);
        assert_eq!(read.client.info.as_ref().unwrap().name, "c");
        assert!(read.client.capabilities.elicitation.is_some());
        assert_eq!(read.log_level, Some(LoggingLevel::Info));
        assert_eq!(read.progress_token, Some(ProgressToken::Number(7)));
    }

    #[test]
    fn refuses_what_the_router_would() {
        let missing = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        assert!(RequestMeta::from_json(&missing).unwrap_err().to_string().contains("clientCapabilities"));
        let array = meta(json!({"io.modelcontextprotocol/clientCapabilities": []}));
        assert!(RequestMeta::from_json(&array).is_err(), "capabilities must be an object");
        let level = meta(json!({"io.modelcontextprotocol/logLevel": "loud"}));
        assert!(RequestMeta::from_json(&level).is_err());
    }

    #[test]
    fn refusing_other_keys_fails_on_one() {
        let seed = || MetaSeed { others: Others::Refuse };
        assert!(seed().deserialize(&meta(json!({}))).is_ok());
        assert!(seed().deserialize(&meta(json!({"traceparent": "00-x"}))).is_err());
    }

    #[test]
    fn the_memo_reads_a_text_once_and_only_what_it_would_read_anew() {
        let memo = MetaMemo::default();
        let text = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}
        })
        .to_string();
        let first = memo.read(&text).unwrap();
        let again = memo.read(&text).unwrap();
        assert!(Arc::ptr_eq(&first.client, &again.client), "the same text is read once");
        assert_eq!(first, RequestMeta::from_json(&serde_json::from_str(&text).unwrap()).unwrap());
        // A progress token differs per request: read, and not kept.
        let with_token = meta(json!({}));
        let (a, b) =
            (memo.read(&with_token.to_string()).unwrap(), memo.read(&with_token.to_string()).unwrap());
        assert!(!Arc::ptr_eq(&a.client, &b.client));
        assert_eq!(a.progress_token, Some(ProgressToken::Number(7)));
        assert!(Arc::ptr_eq(&memo.read(&text).unwrap().client, &first.client), "the kept one stays");
        assert_eq!(memo.read(&meta(json!({"traceparent": "00-x"})).to_string()), None);
        assert_eq!(memo.read(r#"{"io.modelcontextprotocol/protocolVersion": 1}"#), None);
    }
}
