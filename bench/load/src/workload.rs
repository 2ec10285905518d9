//! What each request is, written straight into a reused buffer, and how each answer is checked:
//! parsed in one pass into borrowed structs, never into a `serde_json::Value`.

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::BufMut;
use clap::ValueEnum;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// The 2026-07-28 protocol version.
pub const MODERN: &str = "2026-07-28";
/// The handshake version asked for in the legacy era.
pub const LEGACY: &str = "2025-11-25";

/// The `_meta` of every 2026-07-28 request (after a comma, inside `params`).
const META: &str = concat!(
    r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":""#,
    env!("CARGO_PKG_VERSION"),
    r#""},"io.modelcontextprotocol/clientCapabilities":{}}"#
);

/// Which protocol revision the load speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Era {
    /// 2026-07-28: stateless, `_meta` in every request, `server/discover` first.
    Modern,
    /// 2025-11-25: `initialize`, `notifications/initialized`, then requests (a session on HTTP).
    Legacy,
}

/// The kinds of request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// `tools/call echo` with a message of --payload bytes; the answer must echo it.
    Echo,
    /// `tools/call add` with a = the request's id, b = 1; the sum must be right.
    Add,
    /// `tools/list` (one page); every answer must list as many tools as the first, and some.
    List,
}

/// A workload: the kind, the era, the echo message, and the request text around the id.
pub struct Workload {
    /// The kind of request.
    kind: Kind,
    /// The era, for the `_meta` and the handshake.
    pub era: Era,
    /// The echo message.
    message: String,
    /// Everything after the id, up to the number `a` of `add`, or to the end.
    after_id: Vec<u8>,
    /// `add` only: everything after `a`.
    after_a: Vec<u8>,
    /// How many tools the first `tools/list` answer listed (`usize::MAX` before it).
    tools: AtomicUsize,
}

/// `{"jsonrpc":"2.0","id":` — the start of every request.
const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

impl Workload {
    /// A workload of `kind` in `era`; `payload` is the echo message's length.
    pub fn new(kind: Kind, era: Era, payload: usize) -> Self {
        let message = "x".repeat(payload);
        let meta = if era == Era::Modern { META } else { "" };
        let (after_id, after_a) = match kind {
            Kind::Echo => (
                format!(
                    r#","method":"tools/call","params":{{"name":"echo","arguments":{{"message":{}}}{meta}}}}}"#,
                    serde_json::to_string(&message).expect("a string serialises")
                ),
                String::new(),
            ),
            Kind::Add => (
                r#","method":"tools/call","params":{"name":"add","arguments":{"a":"#.to_owned(),
                format!(r#","b":1}}{meta}}}}}"#),
            ),
            Kind::List => {
                let params = if era == Era::Modern {
                    format!(r#","params":{{{}}}"#, &META[1..])
                } else {
                    String::new()
                };
                (format!(r#","method":"tools/list"{params}}}"#), String::new())
            }
        };
        Self {
            kind,
            era,
            message,
            after_id: after_id.into_bytes(),
            after_a: after_a.into_bytes(),
            tools: AtomicUsize::new(usize::MAX),
        }
    }

    /// How reports name it (as `modelctx bench` does).
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Echo => format!("tools/call echo ({} bytes)", self.message.len()),
            Kind::Add => "tools/call add".into(),
            Kind::List => "tools/list".into(),
        }
    }

    /// The method, for the `Mcp-Method` header.
    pub fn method(&self) -> &'static str {
        match self.kind {
            Kind::Echo | Kind::Add => "tools/call",
            Kind::List => "tools/list",
        }
    }

    /// The tool called, for the `Mcp-Name` header.
    pub fn tool(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Echo => Some("echo"),
            Kind::Add => Some("add"),
            Kind::List => None,
        }
    }

    /// The largest request, in bytes (an id of 20 digits included).
    pub fn max_request_len(&self) -> usize {
        HEAD.len() + 40 + self.after_id.len() + self.after_a.len()
    }

    /// Appends request `id` to `out` (no newline).
    pub fn write_request(&self, out: &mut impl BufMut, id: u64) {
        let mut digits = [0u8; 20];
        out.put_slice(HEAD);
        out.put_slice(decimal(id, &mut digits));
        out.put_slice(&self.after_id);
        if self.kind == Kind::Add {
            out.put_slice(decimal(id, &mut digits));
            out.put_slice(&self.after_a);
        }
    }

    /// Whether `answer` answers request `id` correctly; why not.
    pub fn check(&self, id: u64, answer: &Answer<'_>, text: &[u8]) -> Result<(), String> {
        let wrong = |why: &str| {
            let shown = String::from_utf8_lossy(&text[..text.len().min(400)]);
            let more = if text.len() > 400 { " …" } else { "" };
            Err(format!("request {id} ({}) was answered wrongly ({why}): {shown}{more}", self.describe()))
        };
        let Some(result) = &answer.result else {
            return wrong(if answer.error.is_some() { "an error" } else { "no result" });
        };
        if result.is_error == Some(true) {
            return wrong("isError is true");
        }
        match self.kind {
            Kind::Echo => match result.content.as_ref().and_then(|c| c.0.as_deref()) {
                Some(echoed) if echoed == self.message => Ok(()),
                _ => wrong("the text is not the message"),
            },
            Kind::Add => {
                let sum = result.structured.as_ref().and_then(|s| s.sum).or_else(|| {
                    // No structured content: the sum is the JSON of the text block.
                    let text = result.content.as_ref()?.0.as_deref()?;
                    let Ok(parsed) = serde_json::from_str::<Sum>(text) else {
                        return serde_json::from_str::<f64>(text).ok();
                    };
                    parsed.sum
                });
                if sum == Some((id + 1) as f64) { Ok(()) } else { wrong("the sum is not a + b") }
            }
            Kind::List => {
                let Some(Count(count)) = result.tools else { return wrong("no tools") };
                if count == 0 {
                    return wrong("the list is empty");
                }
                match self.tools.compare_exchange(usize::MAX, count, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => Ok(()),
                    Err(first) if first == count => Ok(()),
                    Err(first) => wrong(&format!("{count} tools, but the first answer listed {first}")),
                }
            }
        }
    }
}

/// `n` in decimal, written into `digits`.
pub fn decimal(mut n: u64, digits: &mut [u8; 20]) -> &[u8] {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &digits[at..];
        }
    }
}

/// A JSON-RPC message from the server, as far as the checks read it.
#[derive(Deserialize)]
pub struct Answer<'a> {
    /// The id (absent in a notification).
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// A server request or notification has a method.
    #[serde(default)]
    pub method: Option<IgnoredAny>,
    /// The result.
    #[serde(borrow, default)]
    pub result: Option<ResultFields<'a>>,
    /// The error.
    #[serde(default)]
    pub error: Option<IgnoredAny>,
}

impl<'a> Answer<'a> {
    /// Parses one message.
    pub fn parse(text: &'a [u8]) -> Result<Self, String> {
        serde_json::from_slice(text).map_err(|e| {
            let shown = String::from_utf8_lossy(&text[..text.len().min(400)]);
            format!("the server sent something that is not a JSON-RPC message ({e}): {shown}")
        })
    }

    /// The id as a number, if it is one.
    pub fn number(&self) -> Option<u64> {
        self.id?.get().parse().ok()
    }
}

/// The fields of a result that some check reads.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ResultFields<'a> {
    /// The first content block's text.
    #[serde(borrow)]
    content: Option<FirstText<'a>>,
    /// `structuredContent` of `add`.
    #[serde(rename = "structuredContent")]
    structured: Option<Sum>,
    /// Whether the tool failed.
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    /// How many tools are listed.
    tools: Option<Count>,
    /// `initialize`: the version agreed.
    #[serde(borrow, rename = "protocolVersion")]
    pub protocol_version: Option<Cow<'a, str>>,
    /// `server/discover`: the versions served.
    #[serde(borrow, rename = "supportedVersions")]
    pub supported_versions: Option<Vec<Cow<'a, str>>>,
}

/// `{"sum": number}`.
#[derive(Deserialize, Default)]
struct Sum {
    /// The sum.
    #[serde(default)]
    sum: Option<f64>,
}

/// The text of the first block of a content array (the rest is skipped).
struct FirstText<'a>(Option<Cow<'a, str>>);

/// A content block, as far as its text.
#[derive(Deserialize)]
struct Block<'a> {
    /// The text of a text block.
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for FirstText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Reads the first element, skips the others.
        struct First<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for First<'a> {
            type Value = FirstText<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of content blocks")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let first = seq.next_element::<Block<'a>>()?.and_then(|b| b.text);
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(FirstText(first))
            }
        }
        deserializer.deserialize_seq(First(std::marker::PhantomData))
    }
}

/// The length of an array, counted without keeping its elements.
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Counts elements.
        struct Counter;
        impl<'de> Visitor<'de> for Counter {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        deserializer.deserialize_seq(Counter)
    }
}

/// The first request of a connection, with id 0: `server/discover` (modern) or `initialize`
/// (legacy).
pub fn handshake_request(era: Era) -> Vec<u8> {
    match era {
        Era::Modern => {
            format!(r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{{}}}}}"#, &META[1..])
        }
        Era::Legacy => format!(
            concat!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{}","#,
                r#""capabilities":{{}},"clientInfo":{{"name":"mcp-load","version":"{}"}}}}}}"#
            ),
            LEGACY,
            env!("CARGO_PKG_VERSION")
        ),
    }
    .into_bytes()
}

/// `notifications/initialized`.
pub const INITIALIZED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Checks the handshake answer; the protocol version the connection settled on.
pub fn check_handshake(era: Era, text: &[u8]) -> Result<String, String> {
    let shown = || String::from_utf8_lossy(&text[..text.len().min(400)]).into_owned();
    let answer = Answer::parse(text)?;
    let result = answer.result.ok_or_else(|| format!("the handshake failed: {}", shown()))?;
    match era {
        Era::Modern => match result.supported_versions {
            Some(versions) if versions.iter().any(|v| v == MODERN) => Ok(MODERN.into()),
            _ => Err(format!("server/discover does not list {MODERN}: {}", shown())),
        },
        Era::Legacy => match result.protocol_version {
            Some(version) if version == LEGACY => Ok(version.into_owned()),
            _ => Err(format!("initialize did not agree on {LEGACY}: {}", shown())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(workload: &Workload, id: u64, text: &str) -> Result<(), String> {
        workload.check(id, &Answer::parse(text.as_bytes())?, text.as_bytes())
    }

    #[test]
    fn requests_are_json() {
        for era in [Era::Modern, Era::Legacy] {
            for kind in [Kind::Echo, Kind::Add, Kind::List] {
                let workload = Workload::new(kind, era, 5);
                let mut out = Vec::new();
                workload.write_request(&mut out, 1234);
                assert!(out.len() <= workload.max_request_len());
                let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert_eq!(value["id"], 1234);
                assert_eq!(value["method"], workload.method());
                assert_eq!(value["params"]["_meta"].is_object(), era == Era::Modern, "{value}");
                if kind == Kind::Add {
                    assert_eq!(value["params"]["arguments"]["a"], 1234);
                }
            }
            let value: serde_json::Value = serde_json::from_slice(&handshake_request(era)).unwrap();
            assert_eq!(value["id"], 0);
        }
    }

    #[test]
    fn only_the_right_answer_passes() {
        let echo = Workload::new(Kind::Echo, Era::Modern, 3);
        assert!(
            check(&echo, 1, r#"{"id":1,"result":{"content":[{"type":"text","text":"xxx"},{"x":1}]}}"#)
                .is_ok()
        );
        assert!(check(&echo, 1, r#"{"id":1,"result":{"content":[{"type":"text","text":"xx"}]}}"#).is_err());
        let failed = r#"{"id":1,"result":{"content":[{"type":"text","text":"xxx"}],"isError":true}}"#;
        assert!(check(&echo, 1, failed).is_err());
        assert!(check(&echo, 1, r#"{"id":1,"error":{"code":1,"message":"no"}}"#).is_err());
        let add = Workload::new(Kind::Add, Era::Legacy, 0);
        assert!(check(&add, 41, r#"{"id":41,"result":{"structuredContent":{"sum":42.0}}}"#).is_ok());
        assert!(
            check(&add, 41, r#"{"id":41,"result":{"content":[{"type":"text","text":"{\"sum\":42}"}]}}"#)
                .is_ok()
        );
        assert!(check(&add, 40, r#"{"id":40,"result":{"structuredContent":{"sum":42.0}}}"#).is_err());
        let list = Workload::new(Kind::List, Era::Modern, 0);
        assert!(check(&list, 1, r#"{"id":1,"result":{"tools":[{"name":"a"},{"name":"b"}]}}"#).is_ok());
        assert!(check(&list, 2, r#"{"id":2,"result":{"tools":[{"name":"a"}]}}"#).is_err());
        assert!(check(&list, 3, r#"{"id":3,"result":{"tools":[]}}"#).is_err());
        let mut digits = [0; 20];
        assert_eq!(decimal(0, &mut digits), b"0");
        assert_eq!(decimal(u64::MAX, &mut digits), b"18446744073709551615");
    }
}
