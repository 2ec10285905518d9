//! The MCP of the limit server: each message is parsed from its bytes, in one pass, into small
//! borrowed structs, and each answer is written straight into the caller's output buffer.
//!
//! Both eras are served. A request whose `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` is a 2026-07-28 (modern) request and is served
//! statelessly; `initialize` opens a 2025-11-25 (or earlier) session, after which requests
//! without that `_meta` are served under the legacy rules. The transports (stdio, HTTP) decide
//! what a session is; this module only answers.

use std::borrow::Cow;

use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// The one modern protocol version served.
pub const MODERN: &str = "2026-07-28";

/// The handshake versions `initialize` accepts, newest first; any other request gets the first.
pub const LEGACY: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The server's `Implementation`, as JSON.
const SERVER_INFO: &str =
    concat!(r#"{"name":"limit-server","version":""#, env!("CARGO_PKG_VERSION"), r#""}"#);

/// The tail of every 2026-07-28 result: its `resultType` and `_meta` `serverInfo`, and the two
/// closing braces of result and response.
const MODERN_TAIL: &str = concat!(
    r#","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"limit-server","version":""#,
    env!("CARGO_PKG_VERSION"),
    r#""}}}}"#
);

/// JSON-RPC: the message is not JSON.
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC: the message is JSON but not a request.
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC: no such method.
const METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC: the params are wrong (also: a modern request without its required `_meta`).
const INVALID_PARAMS: i32 = -32602;
/// MCP: an HTTP header does not match the body, or a required one is missing.
pub const HEADER_MISMATCH: i32 = -32020;
/// MCP: the request's protocol version is not served.
const UNSUPPORTED_VERSION: i32 = -32022;

/// The HTTP status an answer goes out with (stdio ignores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 200: a result, or an error that is not about the request's framing.
    Ok,
    /// 400: a modern request without its `_meta`, with an unsupported version, or with headers
    /// that do not match its body.
    BadRequest,
    /// 404: an unknown method.
    NotFound,
}

/// Deserializes a field that, when present, is `Some` even if it is `null` (`Option<T>` alone
/// would read `"id": null` as an absent id).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A `T` that must come as a JSON object: serde's derived structs also accept arrays (by
/// position), which MCP's params, arguments and `_meta` never are.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Accepts a map only, and hands it to `T`'s own visitor.
        struct Map<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Map<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(Map(std::marker::PhantomData))
    }
}

/// A JSON-RPC message as it arrives: the union of the fields of requests, notifications and
/// responses.
#[derive(Deserialize)]
struct Wire<'a> {
    /// Must be `"2.0"`.
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    /// The request id, kept as its JSON text; `null` is present (and invalid).
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    /// The method of a request or notification.
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    /// The params, read in the same pass as the rest.
    #[serde(borrow, default)]
    params: Option<Object<Params<'a>>>,
    /// Present in a response from the client.
    #[serde(default, deserialize_with = "present")]
    result: Option<IgnoredAny>,
    /// Present in an error response from the client.
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
}

/// The params of every method served, as one struct: each method reads the fields it knows.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Params<'a> {
    /// `tools/call`: the tool.
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    /// `tools/call`: the tool's arguments.
    #[serde(borrow)]
    arguments: Option<Object<Arguments<'a>>>,
    /// The request's `_meta`: the modern protocol fields.
    #[serde(borrow, rename = "_meta")]
    meta: Option<Object<Meta<'a>>>,
    /// `initialize`: the version the client asks for.
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
    /// `tools/list`: a page cursor (the one page has none after it).
    #[serde(borrow)]
    cursor: Option<&'a RawValue>,
}

/// The arguments of every tool, as one struct; each is kept as its JSON text and checked by the
/// tool that reads it, so an argument meant for another tool never fails a call.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Arguments<'a> {
    /// `echo`: the message.
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    /// `add`: the first addend.
    #[serde(borrow)]
    a: Option<&'a RawValue>,
    /// `add`: the second addend.
    #[serde(borrow)]
    b: Option<&'a RawValue>,
    /// `tool_NNNN`: the value.
    #[serde(borrow)]
    value: Option<&'a RawValue>,
}

/// The modern per-request fields of `_meta`; its other keys are skipped.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`.
    #[serde(borrow, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<Cow<'a, str>>,
    /// `io.modelcontextprotocol/clientCapabilities` (must be an object).
    #[serde(borrow, rename = "io.modelcontextprotocol/clientCapabilities")]
    client_capabilities: Option<&'a RawValue>,
}

/// A message as the transports see it.
pub enum Message<'a> {
    /// A request, to be answered.
    Request(Request<'a>),
    /// A notification, or a response from the client: nothing to answer.
    Notification,
    /// A message that gets an error answer before anything else.
    Invalid(Failure<'a>),
}

/// A request: its id (as JSON text), method and params.
pub struct Request<'a> {
    /// The id, copied back into the answer as it came.
    pub id: &'a RawValue,
    /// The method.
    pub method: Cow<'a, str>,
    /// The params (all fields absent when the request has none).
    pub params: Params<'a>,
}

/// An error answer: the id (or `null`), the code, the message and the status.
pub struct Failure<'a> {
    /// The request's id, when it could be read.
    pub id: Option<&'a RawValue>,
    /// The JSON-RPC error code.
    pub code: i32,
    /// The error message.
    pub message: Cow<'static, str>,
    /// The HTTP status it goes with.
    pub status: Status,
}

impl<'a> Failure<'a> {
    /// A failure of `code` for the request `id`.
    pub fn new(
        id: Option<&'a RawValue>,
        code: i32,
        message: impl Into<Cow<'static, str>>,
        status: Status,
    ) -> Self {
        Self { id, code, message: message.into(), status }
    }

    /// Writes the error response; its status.
    pub fn write(&self, out: &mut Vec<u8>) -> Status {
        write_error(out, self.id, self.code, &self.message, None);
        self.status
    }
}

/// Parses one message. The common case is one pass of serde_json over the bytes; only a message
/// that does not fit the request shape is read a second time, to answer it precisely.
pub fn parse(bytes: &[u8]) -> Message<'_> {
    match serde_json::from_slice::<Wire>(bytes) {
        Ok(wire) => classify(wire),
        Err(_) => reparse(bytes),
    }
}

/// Sorts a well-formed message into request, notification or invalid message.
fn classify(wire: Wire<'_>) -> Message<'_> {
    let id = wire.id.filter(|id| is_valid_id(id));
    if wire.jsonrpc.as_deref() != Some("2.0") {
        return Message::Invalid(Failure::new(
            id,
            INVALID_REQUEST,
            "jsonrpc must be \"2.0\"",
            Status::BadRequest,
        ));
    }
    let Some(method) = wire.method else {
        if wire.id.is_some() && (wire.result.is_some() || wire.error.is_some()) {
            return Message::Notification; // a response to a request of ours: we send none
        }
        return Message::Invalid(Failure::new(id, INVALID_REQUEST, "not a request", Status::BadRequest));
    };
    match wire.id {
        None => Message::Notification,
        Some(raw) if id.is_none() => {
            let message = format!("the id must be a string or a number, not {}", raw.get());
            Message::Invalid(Failure::new(None, INVALID_REQUEST, message, Status::BadRequest))
        }
        Some(id) => {
            Message::Request(Request { id, method, params: wire.params.map(|p| p.0).unwrap_or_default() })
        }
    }
}

/// An MCP request id is a string or a number.
fn is_valid_id(id: &RawValue) -> bool {
    matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9'))
}

/// The second look at a message the fast parse refused: not JSON, not an object, or params of
/// an unexpected shape.
fn reparse(bytes: &[u8]) -> Message<'_> {
    /// Only the envelope, with the params left unread.
    #[derive(Deserialize)]
    struct Loose<'a> {
        /// The id.
        #[serde(borrow, default, deserialize_with = "present")]
        id: Option<&'a RawValue>,
        /// The method.
        #[serde(borrow, default)]
        method: Option<Cow<'a, str>>,
        /// The params, skipped.
        #[serde(default)]
        #[allow(dead_code)]
        params: Option<IgnoredAny>,
    }
    match serde_json::from_slice::<Loose>(bytes) {
        Ok(Loose { id: None, method: Some(_), .. }) => Message::Notification,
        Ok(Loose { id, method: Some(method), .. }) => {
            let id = id.filter(|id| is_valid_id(id));
            let known =
                matches!(&*method, "initialize" | "ping" | "server/discover" | "tools/list" | "tools/call");
            Message::Invalid(if known {
                Failure::new(id, INVALID_PARAMS, format!("Invalid params for {method}"), Status::BadRequest)
            } else {
                Failure::new(id, METHOD_NOT_FOUND, format!("Method not found: {method}"), Status::NotFound)
            })
        }
        Ok(Loose { id, .. }) => Message::Invalid(Failure::new(
            id.filter(|id| is_valid_id(id)),
            INVALID_REQUEST,
            "not a JSON-RPC request",
            Status::BadRequest,
        )),
        Err(_) if serde_json::from_slice::<IgnoredAny>(bytes).is_ok() => Message::Invalid(Failure::new(
            None,
            INVALID_REQUEST,
            "not a JSON-RPC request object",
            Status::BadRequest,
        )),
        Err(error) => Message::Invalid(Failure::new(
            None,
            PARSE_ERROR,
            format!("Parse error: {error}"),
            Status::BadRequest,
        )),
    }
}

impl Request<'_> {
    /// The modern protocol version this request declares in `_meta`, if it does.
    pub fn modern_version(&self) -> Option<&str> {
        self.params.meta.as_ref()?.0.protocol_version.as_deref()
    }

    /// `params.name` (the tool, for `tools/call`).
    pub fn name(&self) -> Option<&str> {
        self.params.name.as_deref()
    }
}

/// Which rules a request is served under.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Era {
    /// 2026-07-28: stateless, `resultType` and `_meta` in every result.
    Modern,
    /// 2025-11-25 and before, inside an `initialize` session.
    Legacy,
}

/// The server: its tools, with the `tools/list` array serialised once at start-up.
pub struct Server {
    /// How many `tool_NNNN` tools there are besides `echo` and `add`.
    extra_tools: usize,
    /// The JSON array of every tool's definition.
    tools: Vec<u8>,
}

impl Server {
    /// A server with `echo`, `add` and `extra_tools` filler tools, worded as
    /// `bench/rmcp-server` words them (and in the order it lists them: by name).
    pub fn new(extra_tools: usize) -> Self {
        let mut tools = String::with_capacity(700 + 230 * extra_tools);
        tools.push_str(concat!(
            r#"[{"name":"add","title":"Add","description":"Adds two numbers; the sum comes as text and as structured content","#,
            r#""inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{"description":"The first addend.","format":"double","type":"number"},"b":{"description":"The second addend.","format":"double","type":"number"}},"required":["a","b"],"type":"object"},"#,
            r#""outputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"sum":{"description":"a + b.","format":"double","type":"number"}},"required":["sum"],"type":"object"},"#,
            r#""annotations":{"readOnlyHint":true,"openWorldHint":false}},"#,
            r#"{"name":"echo","title":"Echo","description":"Returns the message it is given","#,
            r#""inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"message":{"description":"The message to send back.","type":"string"}},"required":["message"],"type":"object"},"#,
            r#""annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
        ));
        for index in 0..extra_tools {
            tools.push_str(&format!(
                concat!(
                    r#",{{"name":"tool_{:04}","description":"A filler tool that sends its value back","#,
                    r#""inputSchema":{{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{{"value":{{"description":"Any text; it is sent back.","type":"string"}}}},"required":["value"],"type":"object"}}}}"#
                ),
                index
            ));
        }
        tools.push(']');
        Self { extra_tools, tools: tools.into_bytes() }
    }

    /// Answers `request` into `out`; `legacy` says whether an `initialize` handshake has opened
    /// a legacy session that this request belongs to. Returns the answer's HTTP status.
    pub fn respond(&self, request: &Request<'_>, legacy: bool, out: &mut Vec<u8>) -> Status {
        let id = Some(request.id);
        if request.method == "initialize" {
            return self.initialize(request, out);
        }
        let era = match request.params.meta.as_ref().map(|m| &m.0) {
            Some(Meta { protocol_version: Some(version), client_capabilities }) => {
                if &**version != MODERN {
                    write_error(
                        out,
                        id,
                        UNSUPPORTED_VERSION,
                        "Unsupported protocol version",
                        Some(&UnsupportedData { supported: [MODERN], requested: version }),
                    );
                    return Status::BadRequest;
                }
                if !client_capabilities.is_some_and(|c| c.get().starts_with('{')) {
                    let message = "Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities (an object)";
                    return Failure::new(id, INVALID_PARAMS, message, Status::BadRequest).write(out);
                }
                Era::Modern
            }
            _ if legacy => Era::Legacy,
            _ => {
                let message = "Invalid params: missing _meta io.modelcontextprotocol/protocolVersion and \
                               io.modelcontextprotocol/clientCapabilities (or open a session with initialize)";
                return Failure::new(id, INVALID_PARAMS, message, Status::BadRequest).write(out);
            }
        };
        match &*request.method {
            "tools/call" => self.call(request, era, out),
            "tools/list" => {
                if request.params.cursor.is_some() {
                    return Failure::new(id, INVALID_PARAMS, "Invalid cursor", Status::Ok).write(out);
                }
                open_result(out, request.id);
                out.extend_from_slice(b"\"tools\":");
                out.extend_from_slice(&self.tools);
                if era == Era::Modern {
                    out.extend_from_slice(br#","ttlMs":0,"cacheScope":"public""#);
                }
                close_result(out, era)
            }
            "server/discover" if era == Era::Modern => {
                open_result(out, request.id);
                out.extend_from_slice(
                    br#""supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public""#,
                );
                close_result(out, era)
            }
            "ping" if era == Era::Legacy => {
                open_result(out, request.id);
                close_result(out, era)
            }
            method => {
                let message = format!("Method not found: {method}");
                Failure::new(id, METHOD_NOT_FOUND, message, Status::NotFound).write(out)
            }
        }
    }

    /// `initialize`: the version asked for if it is a handshake version served, else the newest.
    fn initialize(&self, request: &Request<'_>, out: &mut Vec<u8>) -> Status {
        let Some(asked) = request.params.protocol_version.as_deref() else {
            let message = "Invalid params: initialize needs a protocolVersion";
            return Failure::new(Some(request.id), INVALID_PARAMS, message, Status::BadRequest).write(out);
        };
        let version = LEGACY.iter().find(|v| **v == asked).unwrap_or(&LEGACY[0]);
        open_result(out, request.id);
        out.extend_from_slice(b"\"protocolVersion\":\"");
        out.extend_from_slice(version.as_bytes());
        out.extend_from_slice(br#"","capabilities":{"tools":{}},"serverInfo":"#);
        out.extend_from_slice(SERVER_INFO.as_bytes());
        close_result(out, Era::Legacy)
    }

    /// `tools/call`.
    fn call(&self, request: &Request<'_>, era: Era, out: &mut Vec<u8>) -> Status {
        let id = Some(request.id);
        let Some(name) = request.name() else {
            return Failure::new(id, INVALID_PARAMS, "Invalid params: tools/call needs a name", Status::Ok)
                .write(out);
        };
        let arguments = request.params.arguments.as_ref().map(|a| &a.0);
        match name {
            "echo" => match arguments.and_then(|a| a.message).filter(|m| is_string(m)) {
                Some(message) => text_result(out, request.id, message, era),
                None => tool_error(out, request.id, "echo needs a string argument `message`", era),
            },
            "add" => {
                let number =
                    |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str::<f64>(r.get()).ok());
                match (number(arguments.and_then(|a| a.a)), number(arguments.and_then(|a| a.b))) {
                    (Some(a), Some(b)) => {
                        // The sum as serde_json writes an f64, once into the text and once as
                        // the structured content.
                        let mut sum = [0u8; 32];
                        let mut cursor = &mut sum[..];
                        serde_json::to_writer(&mut cursor, &(a + b)).expect("an f64 fits in 32 bytes");
                        let left = cursor.len();
                        let sum = &sum[..sum.len() - left];
                        open_result(out, request.id);
                        out.extend_from_slice(br#""content":[{"type":"text","text":"{\"sum\":"#);
                        out.extend_from_slice(sum);
                        out.extend_from_slice(br#"}"}],"structuredContent":{"sum":"#);
                        out.extend_from_slice(sum);
                        out.push(b'}');
                        close_result(out, era)
                    }
                    _ => tool_error(out, request.id, "add needs numbers `a` and `b`", era),
                }
            }
            name if self.is_filler(name) => match arguments.and_then(|a| a.value).filter(|v| is_string(v)) {
                Some(value) => text_result(out, request.id, value, era),
                None => tool_error(out, request.id, "this tool needs a string argument `value`", era),
            },
            name => {
                let message = format!("Unknown tool: {name}");
                Failure::new(id, INVALID_PARAMS, message, Status::Ok).write(out)
            }
        }
    }

    /// Whether `name` is one of the `tool_NNNN` tools (`tool_{index:04}`, index < extra_tools).
    fn is_filler(&self, name: &str) -> bool {
        let Some(digits) = name.strip_prefix("tool_") else { return false };
        let canonical = digits.len() >= 4 && (digits.len() == 4 || !digits.starts_with('0'));
        canonical
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits.parse::<usize>().is_ok_and(|index| index < self.extra_tools)
    }
}

/// Whether a JSON value is a string.
fn is_string(raw: &RawValue) -> bool {
    raw.get().starts_with('"')
}

/// Writes `{"jsonrpc":"2.0","id":ID,"result":{`.
fn open_result(out: &mut Vec<u8>, id: &RawValue) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    out.extend_from_slice(br#","result":{"#);
}

/// Closes a result opened by [`open_result`] whose last field has been written.
fn close_result(out: &mut Vec<u8>, era: Era) -> Status {
    match era {
        Era::Modern => out.extend_from_slice(MODERN_TAIL.as_bytes()),
        Era::Legacy => out.extend_from_slice(b"}}"),
    }
    Status::Ok
}

/// A result of one text block whose text is the JSON string `text`, copied as it came: the
/// same JSON text is the same string.
fn text_result(out: &mut Vec<u8>, id: &RawValue, text: &RawValue, era: Era) -> Status {
    open_result(out, id);
    out.extend_from_slice(br#""content":[{"type":"text","text":"#);
    out.extend_from_slice(text.get().as_bytes());
    out.extend_from_slice(b"}]");
    close_result(out, era)
}

/// A tool execution error (`isError: true`) saying `message`.
fn tool_error(out: &mut Vec<u8>, id: &RawValue, message: &str, era: Era) -> Status {
    open_result(out, id);
    out.extend_from_slice(br#""content":[{"type":"text","text":"#);
    serde_json::to_writer(&mut *out, message).expect("writing to a Vec cannot fail");
    out.extend_from_slice(br#"}],"isError":true"#);
    close_result(out, era)
}

/// The `data` of an unsupported-version error.
#[derive(serde::Serialize)]
struct UnsupportedData<'a> {
    /// The modern versions served.
    supported: [&'static str; 1],
    /// The version asked for.
    requested: &'a str,
}

/// Writes an error response.
fn write_error(
    out: &mut Vec<u8>,
    id: Option<&RawValue>,
    code: i32,
    message: &str,
    data: Option<&UnsupportedData<'_>>,
) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.map_or("null", RawValue::get).as_bytes());
    out.extend_from_slice(br#","error":{"code":"#);
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(br#","message":"#);
    serde_json::to_writer(&mut *out, message).expect("writing to a Vec cannot fail");
    if let Some(data) = data {
        out.extend_from_slice(br#","data":"#);
        serde_json::to_writer(&mut *out, data).expect("writing to a Vec cannot fail");
    }
    out.extend_from_slice(b"}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// The answer to `line`, as JSON, with `legacy` sessions open or not.
    fn answer(server: &Server, line: &str, legacy: bool) -> (serde_json::Value, Status) {
        let mut out = Vec::new();
        let status = match parse(line.as_bytes()) {
            Message::Request(request) => server.respond(&request, legacy, &mut out),
            Message::Invalid(failure) => failure.write(&mut out),
            Message::Notification => return (serde_json::Value::Null, Status::Ok),
        };
        (serde_json::from_slice(&out).expect("the answer is JSON"), status)
    }

    #[test]
    fn modern_calls_are_answered() {
        let server = Server::new(2);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"a\"\u00e9"}},{META}}}}}"#
        );
        let (value, status) = answer(&server, &line, false);
        assert_eq!(status, Status::Ok);
        assert_eq!(value["id"], 7);
        assert_eq!(value["result"]["content"][0]["text"], "a\"é");
        assert_eq!(value["result"]["resultType"], "complete");
        assert_eq!(value["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "limit-server");

        let line = format!(
            r#"{{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{{{META},"name":"add","arguments":{{"a":2,"b":40.5}}}}}}"#
        );
        let (value, _) = answer(&server, &line, false);
        assert_eq!(value["id"], "x");
        assert_eq!(value["result"]["structuredContent"]["sum"], 42.5);
        assert_eq!(value["result"]["content"][0]["text"], r#"{"sum":42.5}"#);

        let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#);
        let (value, _) = answer(&server, &line, false);
        let tools = value["result"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 4);
        assert_eq!(tools[3]["name"], "tool_0001");
        assert_eq!(value["result"]["cacheScope"], "public");

        let line = format!(r#"{{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{{{META}}}}}"#);
        let (value, _) = answer(&server, &line, false);
        assert_eq!(value["result"]["supportedVersions"][0], "2026-07-28");
    }

    #[test]
    fn legacy_needs_a_session() {
        let server = Server::new(0);
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let (value, _) = answer(&server, init, false);
        assert_eq!(value["result"]["protocolVersion"], "2025-11-25");
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#;
        let (value, status) = answer(&server, call, false);
        assert_eq!((value["error"]["code"].as_i64(), status), (Some(-32602), Status::BadRequest));
        let (value, _) = answer(&server, call, true);
        assert_eq!(value["result"]["content"][0]["text"], "hi");
        assert!(value["result"].get("resultType").is_none());
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(parse(note.as_bytes()), Message::Notification));
    }

    #[test]
    fn errors_are_precise() {
        let server = Server::new(0);
        let unknown = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"foo/bar","params":{{{META}}}}}"#);
        let (value, status) = answer(&server, &unknown, false);
        assert_eq!((value["error"]["code"].as_i64(), status), (Some(-32601), Status::NotFound));
        let odd = r#"{"jsonrpc":"2.0","id":4,"method":"foo/bar","params":{"name":{"x":1}}}"#;
        let (value, _) = answer(&server, odd, false);
        assert_eq!(value["error"]["code"], -32601);
        let (value, _) = answer(&server, "{not json", false);
        assert_eq!(value["error"]["code"], -32700);
        let (value, _) = answer(&server, "[1]", false);
        assert_eq!(value["error"]["code"], -32600);
        let (value, _) = answer(&server, r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, true);
        assert_eq!(value["error"]["code"], -32600);
        let old = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let (value, status) = answer(&server, old, false);
        assert_eq!((value["error"]["code"].as_i64(), status), (Some(-32022), Status::BadRequest));
        assert_eq!(value["error"]["data"]["requested"], "1900-01-01");
        let tool =
            format!(r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"nope",{META}}}}}"#);
        assert_eq!(answer(&server, &tool, false).0["error"]["code"], -32602);
        let bad = format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":1}},{META}}}}}"#
        );
        assert_eq!(answer(&server, &bad, false).0["result"]["isError"], true);
        let positional = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"echo","arguments":["hi"],{META}}}}}"#
        );
        assert_eq!(answer(&server, &positional, false).0["error"]["code"], -32602);
        let positional = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":["x"]}"#;
        assert_eq!(answer(&server, positional, true).0["error"]["code"], -32602);
        assert!(!Server::new(10).is_filler("tool_010") && Server::new(10).is_filler("tool_0009"));
    }
}
