//! The server lists hosts keep in JSON files, read into [`HostConfig`].
//!
//! Two forms are read. Claude Desktop, Cursor and `.mcp.json` files keep servers under
//! `mcpServers`; VS Code's `mcp.json` keeps them under `servers`, and its entries may say
//! `"type": "stdio" | "http" | "sse"`:
//!
//! ```json
//! {"mcpServers": {
//!   "files": {"command": "npx", "args": ["-y", "server-files", "${HOME}/notes"]},
//!   "search": {"url": "https://search.example/mcp",
//!              "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}, "timeoutMs": 10000}
//! }}
//! ```
//!
//! An entry has either `command` (with optional `args`, `env`, `envFile` — a dotenv file of
//! variables, relative to the configuration's directory, which `env` overrides — and `cwd`: a
//! child process over stdio) or `url` (with optional `headers`: Streamable HTTP, falling back to the deprecated
//! HTTP+SSE transport), an optional `type`, an optional `timeoutMs` (the time limit of each
//! request to that server; ours), `"maxConcurrentCalls"` (how many tool calls may be in flight to
//! it at once, the others waiting their turn within the time limit; ours), `"circuitBreaker":
//! {"failures": 5, "openMs": 30000}` (after that many calls in a row fail for want of the
//! server, calls are refused at once for that long, then one is tried — `failures: 0` for none;
//! ours, [`crate::host::CircuitPolicy`]), `"trustAnnotations": true` to believe the server's tool
//! annotations (ours; TOOL-08), `"prefix"` (the server part of its tools' and prompts' names
//! and of its resources' host URIs, by default the server's name; `""` for none — ours),
//! `"allowTools"` and `"denyTools"` (lists of tool names, `*` matching any run of characters:
//! [`ToolFilter`]; ours), `"protocol"` (`"2025-11-25"` or `"2026-07-28"`: the one revision to
//! speak with it; ours), and `"disabled": true` to leave it out. Any other field is
//! rejected with a message naming the server and the field. Other top-level keys (a whole
//! application's settings file) are ignored.
//!
//! Every string value is expanded: `${NAME}`, `${NAME:-default}` and `${env:NAME}` (see
//! `expand.rs`), and VS Code's `${input:ID}` with the answer to that entry of the top-level
//! `inputs` when the configuration is read with [`HostConfig::load_asking`] (asked once each); an unset variable without a default is an error naming the server, the field
//! and the variable. Object keys (`env` names, header names) are not expanded. Variables come
//! from the process environment ([`HostConfig::parse`]) or from any lookup
//! ([`HostConfig::parse_with`]), so tests are deterministic.

mod env_file;
mod error;
pub(crate) mod expand;
mod filter;
mod inputs;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::{Map, Value};

pub use error::ConfigError;
use expand::{ExpandError, Inputs, expand};
use inputs::{Ask, Asker};

/// What reading an entry needs besides the entry: where variables and inputs come from, and
/// where relative `envFile` paths start.
struct Context<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    inputs: Option<Inputs<'a>>,
    base: Option<&'a Path>,
}
pub use filter::ToolFilter;
#[cfg(feature = "gateway")]
pub(crate) use filter::matches;
pub use inputs::ConfigInput;

use crate::client::{Client, ClientError, ClientOptions, EraMode, StdioCommand};

/// The fields an entry may have, in the order messages list them.
const FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "envFile",
    "cwd",
    "url",
    "headers",
    "type",
    "timeoutMs",
    "maxConcurrentCalls",
    "circuitBreaker",
    "trustAnnotations",
    "prefix",
    "protocol",
    "allowTools",
    "denyTools",
    "disabled",
];

/// The servers a host connects to, by the names the configuration gives them (in name order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostConfig {
    /// The enabled servers.
    pub servers: BTreeMap<String, ServerConfig>,
    /// The names of entries left out with `"disabled": true`.
    pub disabled: Vec<String>,
}

/// One server: how to reach it, and its time limit.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    /// A child process or a URL.
    pub transport: Transport,
    /// The time limit of each request (`timeoutMs`); the host's default when `None`.
    pub timeout: Option<Duration>,
    /// How many tool calls may be in flight to it at once (`maxConcurrentCalls`, at least 1);
    /// a call past them waits for one to end, within the time limit. `None`: no bound of the
    /// host's (the server's own limits apply).
    pub max_concurrent_calls: Option<usize>,
    /// When its circuit opens (`circuitBreaker`); the host's
    /// [`HostOptions::circuit_breaker`](crate::host::HostOptions::circuit_breaker) when `None`.
    pub circuit_breaker: Option<crate::host::CircuitPolicy>,
    /// Whether the host believes this server's tool annotations (`trustAnnotations`): they
    /// are the server's own claims, so without it every tool counts as destructive and
    /// open-world, and each call goes to the approval hook (TOOL-08).
    pub trust_annotations: bool,
    /// The server part of the names of its tools and prompts and of its resources' host URIs
    /// (`prefix`): the server's name when `None`, nothing when empty (the server's own names
    /// and URIs, unchanged).
    pub prefix: Option<String>,
    /// Which of its tools the host takes (`allowTools`, `denyTools`).
    pub tools: ToolFilter,
    /// The one protocol revision to speak with it (`"protocol": "2025-11-25"` or
    /// `"2026-07-28"`), in place of the client's mode; `None` lets the client settle it.
    pub era: Option<EraMode>,
}

/// How a server is reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Transport {
    /// A child process speaking over its stdin and stdout.
    Stdio(StdioServer),
    /// An HTTP endpoint.
    Http(HttpServer),
}

/// A server run as a child process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdioServer {
    /// The program (looked up in `PATH` unless it is a path).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it, on top of the host's environment.
    pub env: BTreeMap<String, String>,
    /// Its working directory (the host's when `None`).
    pub cwd: Option<PathBuf>,
    /// What its stdin and stdout carry.
    pub framing: StdioFraming,
}

/// What a child's stdin and stdout carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StdioFraming {
    /// JSON-RPC messages, one per line (`"type": "stdio"`, or no type).
    #[default]
    Lines,
    /// Streamable HTTP as HTTP/2 (`"type": "stdio-v2"`; experimental, the draft transport).
    #[cfg(feature = "stdio-v2")]
    Http,
}

/// A server at a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpServer {
    /// The endpoint.
    pub url: reqwest::Url,
    /// Headers sent with every request (authorization).
    pub headers: HeaderMap,
    /// The transport the entry named.
    pub kind: HttpKind,
}

/// Which HTTP transport an entry names. Both connect the same way — Streamable HTTP first,
/// the deprecated HTTP+SSE transport when the URL answers no POST — so the difference is
/// only what the configuration said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HttpKind {
    /// Streamable HTTP (`"type": "http"`, or no type).
    #[default]
    StreamableHttp,
    /// The deprecated HTTP+SSE transport (`"type": "sse"`).
    Sse,
}

impl StdioServer {
    /// A server run as `command` with no arguments.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
            framing: StdioFraming::Lines,
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The command the client spawns.
    pub fn command(&self) -> StdioCommand {
        let mut command = StdioCommand::new(&self.command).args(&self.args);
        for (key, value) in &self.env {
            command = command.env(key, value);
        }
        match &self.cwd {
            Some(dir) => command.current_dir(dir),
            None => command,
        }
    }
}

impl ServerConfig {
    /// A child process server with the host's default time limit.
    pub fn stdio(server: StdioServer) -> Self {
        Self::on(Transport::Stdio(server))
    }

    fn on(transport: Transport) -> Self {
        Self {
            transport,
            timeout: None,
            max_concurrent_calls: None,
            circuit_breaker: None,
            trust_annotations: false,
            prefix: None,
            tools: ToolFilter::default(),
            era: None,
        }
    }

    /// A Streamable HTTP server at `url` with no extra headers and the host's default time
    /// limit.
    pub fn http(url: reqwest::Url) -> Self {
        Self::on(Transport::Http(HttpServer { url, headers: HeaderMap::new(), kind: HttpKind::default() }))
    }

    /// Names its tools and prompts `{prefix}__{name}` (and its resources
    /// `mcp-host://{prefix}/{uri}`) instead of by the server's name; `""` keeps its own names.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Takes only the tools `filter` admits.
    pub fn tools(mut self, filter: ToolFilter) -> Self {
        self.tools = filter;
        self
    }

    /// Sets the time limit of each request.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Believes the server's tool annotations (TOOL-08): a tool it says is read-only and
    /// closed-world is called without asking the approval hook.
    pub fn trust_annotations(mut self) -> Self {
        self.trust_annotations = true;
        self
    }

    /// Connects a client to this server: spawns the command or opens the URL with its headers.
    /// The entry's `timeoutMs`, when it has one, replaces `options.request_timeout`.
    pub async fn connect(&self, mut options: ClientOptions) -> Result<Client, ClientError> {
        if let Some(timeout) = self.timeout {
            options.request_timeout = timeout;
        }
        if let Some(era) = self.era {
            options.mode = era;
        }
        match &self.transport {
            Transport::Stdio(server) => match server.framing {
                StdioFraming::Lines => Client::spawn(&server.command(), options).await,
                #[cfg(feature = "stdio-v2")]
                StdioFraming::Http => Client::spawn_stdio_v2(&server.command(), options).await,
            },
            Transport::Http(server) => {
                Client::connect_http(server.url.as_str(), server.headers.clone(), options).await
            }
        }
    }
}

impl HostConfig {
    /// An empty configuration, to fill with [`HostConfig::server`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the server called `name`.
    pub fn server(mut self, name: impl Into<String>, server: ServerConfig) -> Self {
        self.servers.insert(name.into(), server);
        self
    }

    /// Reads the configuration file at `path`, expanding variables from the process
    /// environment.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Self::load_with(path, |name| std::env::var(name).ok())
    }

    /// Reads the configuration file at `path`, expanding variables through `lookup`.
    pub fn load_with(
        path: impl AsRef<Path>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        Self::read(path.as_ref(), &lookup, None)
    }

    /// Reads the configuration file at `path`, expanding variables from the process
    /// environment and each `${input:ID}` with `ask`'s answer for that input of the file's
    /// `inputs` (VS Code), asked once; `None` from `ask` fails the read naming the field.
    pub fn load_asking(
        path: impl AsRef<Path>,
        mut ask: impl FnMut(&ConfigInput) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        Self::read(path.as_ref(), &|name| std::env::var(name).ok(), Some(&mut ask))
    }

    fn read(
        path: &Path,
        lookup: &dyn Fn(&str) -> Option<String>,
        ask: Option<Ask<'_>>,
    ) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::Read { path: path.to_owned(), detail: e.to_string() })?;
        Self::parse_document(&text, lookup, ask, path.parent())
    }

    /// Parses a configuration, expanding variables from the process environment.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        Self::parse_with(text, |name| std::env::var(name).ok())
    }

    /// Parses a configuration, expanding variables through `lookup` (`None`: unset).
    pub fn parse_with(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        Self::parse_document(text, &lookup, None, None)
    }

    /// Parses a configuration, expanding variables through `lookup` and `${input:ID}` through
    /// `ask` (see [`HostConfig::load_asking`]).
    pub fn parse_asking(
        text: &str,
        lookup: impl Fn(&str) -> Option<String>,
        mut ask: impl FnMut(&ConfigInput) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        Self::parse_document(text, &lookup, Some(&mut ask), None)
    }

    /// The configuration of `text`; relative `envFile` paths are taken from `base` (the
    /// file's directory), else from the current directory.
    fn parse_document(
        text: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
        ask: Option<Ask<'_>>,
        base: Option<&Path>,
    ) -> Result<Self, ConfigError> {
        let document: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json(e.to_string()))?;
        let Value::Object(mut document) = document else {
            return Err(ConfigError::Shape("the configuration must be a JSON object".into()));
        };
        let entries = match (document.remove("mcpServers"), document.remove("servers")) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::Shape(
                    "the configuration has both \"mcpServers\" and \"servers\"; keep one".into(),
                ));
            }
            (Some(entries), None) => ("mcpServers", entries),
            (None, Some(entries)) => ("servers", entries),
            (None, None) => {
                return Err(ConfigError::Shape(
                    "the configuration has no \"mcpServers\" (Claude Desktop, Cursor, .mcp.json) \
                     or \"servers\" (VS Code) object"
                        .into(),
                ));
            }
        };
        let (key, entries) = entries;
        let Value::Object(entries) = entries else {
            return Err(ConfigError::Shape(format!("{key:?} must be an object of servers by name")));
        };
        let inputs: Vec<ConfigInput> = match document.remove("inputs") {
            None => Vec::new(),
            Some(inputs) => serde_json::from_value(inputs).map_err(|e| {
                ConfigError::Shape(format!(
                    "\"inputs\" must be an array of {{\"id\", \"type\", \"description\"}}: {e}"
                ))
            })?,
        };
        let asker = ask.map(|ask| Asker::new(inputs, ask));
        let answer = |id: &str| asker.as_ref().map_or_else(|| Err(String::new()), |asker| asker.answer(id));
        let context = Context { lookup, inputs: asker.is_some().then_some(&answer as Inputs<'_>), base };
        let mut config = Self::new();
        for (name, entry) in entries {
            match parse_entry(&name, entry, &context)? {
                Some(server) => {
                    config.servers.insert(name, server);
                }
                None => config.disabled.push(name),
            }
        }
        Ok(config)
    }
}

/// An entry as written, once its strings are expanded.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawEntry {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    env_file: Option<PathBuf>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    #[serde(rename = "type")]
    kind: Option<RawKind>,
    timeout_ms: Option<u64>,
    max_concurrent_calls: Option<usize>,
    circuit_breaker: Option<RawCircuit>,
    #[serde(default)]
    trust_annotations: bool,
    prefix: Option<String>,
    protocol: Option<String>,
    allow_tools: Option<Vec<String>>,
    #[serde(default)]
    deny_tools: Vec<String>,
    /// Read before expansion (a disabled entry is skipped); here so that the entry parses.
    #[serde(default, rename = "disabled")]
    _disabled: bool,
}

/// `circuitBreaker` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCircuit {
    failures: u32,
    open_ms: Option<u64>,
}

#[derive(Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum RawKind {
    Stdio,
    /// HTTP over stdio (experimental).
    #[serde(rename = "stdio-v2")]
    StdioV2,
    Http,
    Sse,
}

/// One entry: `None` when it is disabled.
fn parse_entry(
    server: &str,
    entry: Value,
    context: &Context<'_>,
) -> Result<Option<ServerConfig>, ConfigError> {
    let invalid = |field: &str, detail: String| ConfigError::InvalidField {
        server: server.into(),
        field: field.into(),
        detail,
    };
    let Value::Object(mut entry) = entry else {
        return Err(invalid("", format!("an entry must be an object, not {entry}")));
    };
    if let Some(field) = entry.keys().find(|key| !FIELDS.contains(&key.as_str())) {
        return Err(ConfigError::UnknownField {
            server: server.into(),
            field: field.clone(),
            expected: FIELDS,
        });
    }
    match entry.get("disabled") {
        Some(Value::Bool(true)) => return Ok(None),
        Some(Value::Bool(false)) | None => {}
        Some(other) => return Err(invalid("disabled", format!("must be true or false, not {other}"))),
    }
    expand_strings(server, &mut entry, context)?;
    let raw: RawEntry = serde_path_to_error::deserialize(Value::Object(entry)).map_err(|e| {
        let field = e.path().to_string();
        invalid(if field == "." { "" } else { &field }, e.into_inner().to_string())
    })?;
    let timeout = match raw.timeout_ms {
        Some(0) => return Err(invalid("timeoutMs", "must be at least 1".into())),
        Some(ms) => Some(Duration::from_millis(ms)),
        None => None,
    };
    if raw.max_concurrent_calls == Some(0) {
        return Err(invalid("maxConcurrentCalls", "must be at least 1".into()));
    }
    let max_concurrent_calls = raw.max_concurrent_calls;
    let circuit_breaker = match &raw.circuit_breaker {
        Some(RawCircuit { open_ms: Some(0), .. }) => {
            return Err(invalid("circuitBreaker.openMs", "must be at least 1".into()));
        }
        Some(RawCircuit { failures, open_ms }) => Some(crate::host::CircuitPolicy {
            failures: *failures,
            open_for: open_ms.map_or(crate::host::CircuitPolicy::default().open_for, Duration::from_millis),
        }),
        None => None,
    };
    if let Some(c) = raw.prefix.as_deref().and_then(|p| p.chars().find(|c| !prefix_char(*c))) {
        return Err(invalid("prefix", format!("may hold only letters, digits, '_', '-' and '.', not {c:?}")));
    }
    let era = match raw.protocol.as_deref() {
        None => None,
        Some("2025-11-25") => Some(EraMode::Legacy),
        Some("2026-07-28") => Some(EraMode::Modern),
        Some(other) => {
            return Err(invalid("protocol", format!("{other:?} is not \"2025-11-25\" or \"2026-07-28\"")));
        }
    };
    let (trust_annotations, prefix) = (raw.trust_annotations, raw.prefix.clone());
    let tools = ToolFilter { allow: raw.allow_tools.clone(), deny: raw.deny_tools.clone() };
    let transport = transport(server, raw, context.base)?;
    Ok(Some(ServerConfig {
        transport,
        timeout,
        max_concurrent_calls,
        circuit_breaker,
        trust_annotations,
        prefix,
        tools,
        era,
    }))
}

/// What a command entry's `type` says its stdio carries.
fn framing(kind: Option<RawKind>) -> Result<StdioFraming, String> {
    match kind {
        #[cfg(feature = "stdio-v2")]
        Some(RawKind::StdioV2) => Ok(StdioFraming::Http),
        #[cfg(not(feature = "stdio-v2"))]
        Some(RawKind::StdioV2) => {
            Err("\"type\" is \"stdio-v2\" (HTTP over stdio, experimental), which this \
                                      build does not speak: it needs modelctx's `stdio-v2` feature"
                .into())
        }
        _ => Ok(StdioFraming::Lines),
    }
}

/// The characters a `prefix` may hold: those of tool names and URI authorities alike.
fn prefix_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The child process or URL an entry describes, checked against its `type`.
fn transport(server: &str, raw: RawEntry, base: Option<&Path>) -> Result<Transport, ConfigError> {
    let wrong = |detail: String| ConfigError::Transport { server: server.into(), detail };
    match (raw.command, raw.url) {
        (Some(_), Some(_)) => Err(wrong(
            "has both \"command\" and \"url\" (a server is either a command to run or a URL)".into(),
        )),
        (None, None) => Err(wrong("has neither \"command\" (a command to run) nor \"url\"".into())),
        (Some(command), None) => {
            if let Some(kind @ (RawKind::Http | RawKind::Sse)) = raw.kind {
                let kind = if kind == RawKind::Http { "http" } else { "sse" };
                return Err(wrong(format!(
                    "\"type\" is {kind:?} but the entry has a \"command\", not a \"url\""
                )));
            }
            if raw.headers.is_some() {
                return Err(wrong(
                    "\"headers\" are for servers at a URL, but the entry has a \"command\"".into(),
                ));
            }
            // The entry's own `env` wins over its `envFile`.
            let mut env = match &raw.env_file {
                Some(path) => env_file::read(server, path, base)?,
                None => BTreeMap::new(),
            };
            env.extend(raw.env.unwrap_or_default());
            Ok(Transport::Stdio(StdioServer {
                command,
                args: raw.args.unwrap_or_default(),
                env,
                cwd: raw.cwd,
                framing: framing(raw.kind).map_err(wrong)?,
            }))
        }
        (None, Some(url)) => {
            if let Some(kind @ (RawKind::Stdio | RawKind::StdioV2)) = raw.kind {
                let kind = if kind == RawKind::Stdio { "stdio" } else { "stdio-v2" };
                return Err(wrong(format!(
                    "\"type\" is {kind:?} but the entry has a \"url\", not a \"command\""
                )));
            }
            if let Some(field) = [
                ("args", raw.args.is_some()),
                ("env", raw.env.is_some()),
                ("envFile", raw.env_file.is_some()),
                ("cwd", raw.cwd.is_some()),
            ]
            .into_iter()
            .find_map(|(field, present)| present.then_some(field))
            {
                return Err(wrong(format!(
                    "{field:?} is for servers run as a command, but the entry has a \"url\""
                )));
            }
            let invalid = |field: String, detail: String| ConfigError::InvalidField {
                server: server.into(),
                field,
                detail,
            };
            let url =
                reqwest::Url::parse(&url).map_err(|e| invalid("url".into(), format!("{url:?}: {e}")))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(invalid("url".into(), format!("{url} is not an http or https URL")));
            }
            let mut headers = HeaderMap::new();
            for (name, value) in raw.headers.unwrap_or_default() {
                let field = format!("headers.{name}");
                let header = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| invalid(field.clone(), "is not a valid header name".into()))?;
                let value = HeaderValue::from_str(&value).map_err(|_| {
                    invalid(field, "is not a valid header value (control characters?)".into())
                })?;
                headers.insert(header, value);
            }
            let kind = if raw.kind == Some(RawKind::Sse) { HttpKind::Sse } else { HttpKind::StreamableHttp };
            Ok(Transport::Http(HttpServer { url, headers, kind }))
        }
    }
}

/// Expands every string value of `entry` in place; errors name the field's path.
fn expand_strings(
    server: &str,
    entry: &mut Map<String, Value>,
    context: &Context<'_>,
) -> Result<(), ConfigError> {
    fn walk(server: &str, path: &str, value: &mut Value, context: &Context<'_>) -> Result<(), ConfigError> {
        match value {
            Value::String(text) => {
                *text = expand(text, context.lookup, context.inputs).map_err(|e| match e {
                    ExpandError::Input(id, why) => ConfigError::BadVariable {
                        server: server.into(),
                        field: path.into(),
                        detail: format!("${{input:{id}}}: {why}"),
                    },
                    ExpandError::Unset(variable) => {
                        ConfigError::UnsetVariable { server: server.into(), field: path.into(), variable }
                    }
                    ExpandError::Unterminated => ConfigError::BadVariable {
                        server: server.into(),
                        field: path.into(),
                        detail: "a \"${\" has no closing \"}\"".into(),
                    },
                    ExpandError::Unsupported(inner) => ConfigError::BadVariable {
                        server: server.into(),
                        field: path.into(),
                        detail: format!(
                            "\"${{{inner}}}\" is not a variable (write ${{NAME}}, ${{NAME:-default}} or ${{env:NAME}})"
                        ),
                    },
                })?;
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    walk(server, &format!("{path}[{index}]"), item, context)?;
                }
            }
            Value::Object(members) => {
                for (key, member) in members.iter_mut() {
                    walk(server, &format!("{path}.{key}"), member, context)?;
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        Ok(())
    }
    for (field, value) in entry.iter_mut() {
        walk(server, field, value, context)?;
    }
    Ok(())
}
