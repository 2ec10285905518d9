//! The client: connects to a server, settles the protocol era as CHECKLIST §10.1 prescribes,
//! and makes typed calls.
//!
//! Over stdio the client probes with `server/discover`; any answer but a modern one — an
//! error that is not one of the codes only 2026-07-28 has, or silence until the probe
//! timeout — falls back to the `initialize` handshake. [`EraMode`] pins either era instead.
//!
//! ```no_run
//! use modelctx::client::{Client, ClientOptions, StdioCommand};
//! use modelctx::protocol::types::Implementation;
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), modelctx::client::ClientError> {
//! let server = StdioCommand::new("modelctx").args(["serve", "everything"]);
//! let client = Client::spawn(&server, ClientOptions::new(Implementation::new("demo", "1"))).await?;
//! for tool in client.list_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let result = client.call_tool("echo", json!({"message": "hi"})).await?;
//! println!("{:?}", result.content);
//! client.close().await;
//! # Ok(()) }
//! ```

#[cfg(feature = "http-client")]
mod auth;
mod behalf;
#[cfg(feature = "http-client")]
pub mod browser;
mod cache;
#[cfg(all(feature = "experimental", feature = "http-client"))]
pub mod cards;
#[cfg(all(feature = "experimental", feature = "http-client"))]
pub use http::lists::ListPage;
mod dialect;
#[cfg(feature = "http-client")]
pub mod egress;
mod error;
#[cfg(feature = "experimental")]
mod events;
mod handlers;
#[cfg(feature = "http-client")]
mod http;
#[cfg(feature = "http-client")]
mod http_sse;
#[cfg(feature = "experimental")]
mod known_tags;
mod known_tools;
mod lifecycle;
mod link;
mod listen;
mod negotiate;
mod options;
#[cfg(all(feature = "stdio-v2", feature = "http-client"))]
mod pipe;
mod progress;
mod request_logs;
mod rpc;
#[cfg(feature = "skills")]
pub mod skills;
#[cfg(feature = "http-client")]
pub(crate) mod sse;
mod stdio;
mod tasks;
mod telemetry;
mod wire;
mod wire_tap;

use std::collections::HashMap;
#[cfg(any(feature = "validation", feature = "http-client"))]
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::model::{CallToolResult, Tool};
use modelctx_protocol::types::{
    Completion, LoggingLevel, Prompt, PromptMessage, Resource, ResourceTemplate, TextOrBlob,
};
use modelctx_protocol::v2026::ResultType;
use modelctx_protocol::{Era, JsonObject};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
#[cfg(feature = "http-client")]
use tokio_util::sync::DropGuard;

#[cfg(feature = "http-client")]
pub use auth::{HttpAuth, Refusal, StaticBearer, authorization_value};
pub use behalf::{OnBehalf, on_behalf};
#[cfg(feature = "host")]
pub(crate) use error::Kind as ClientErrorKind;
pub use error::{Cause, ClientError};
#[cfg(feature = "experimental")]
pub use events::EventStreamItem;
pub use handlers::{ClientHandlers, input_key, related_task};
pub use options::{ClientOptions, EraMode, ServerDescription};
pub use progress::Progress;
pub use request_logs::logs_of_requests;
pub use stdio::StdioCommand;
pub use tasks::{Started, TaskStarted, when_tasks_start};
pub use wire_tap::{WireDirection, WireTap};

use cache::Cache;
use dialect::Dialect;
#[cfg(feature = "http-client")]
use http::HttpLink;
use link::Link;
use negotiate::negotiate;
use rpc::Rpc;
use stdio::Process;
use tracing::Instrument as _;
use wire::{json_bytes, member, result_type, with_meta};

#[cfg(feature = "validation")]
use crate::schema::Validator;

/// A request's time limit when a caller keeps its own (a day: effectively none).
const UNBOUNDED: Duration = Duration::from_secs(24 * 60 * 60);

/// Pages a listing may take before the client gives up on a server whose cursors never end.
const MAX_PAGES: usize = 1000;

/// A connection to one MCP server.
pub struct Client {
    link: Link,
    /// What the last listing said of the tools, while it is current.
    tools: known_tools::KnownTools,
    /// The next progress token.
    progress_tokens: AtomicU64,
    /// Results kept for their `ttlMs`.
    cache: Cache,
    /// The definition tags last fetched (experimental, `ClientOptions::known_tags`).
    #[cfg(feature = "experimental")]
    known_tags: known_tags::KnownTags,
    /// The log level asked for: sent with every 2026-07-28 request.
    log_level: Mutex<Option<LoggingLevel>>,
    /// Ends an HTTP+SSE session's tasks when the client goes.
    #[cfg(feature = "http-client")]
    session: Option<DropGuard>,
    options: ClientOptions,
    server: ServerDescription,
    /// How to speak to this server, decided when the connection was made.
    dialect: Dialect,
    process: Option<Process>,
    /// Held from a `subscriptions/listen` until its acknowledgement: the next
    /// acknowledgement is then this one's, and gives its `subscriptionId`.
    listen_setup: tokio::sync::Mutex<()>,
    /// `mcp.client.session.duration`, recorded when the client goes.
    _session: crate::telemetry::SessionMeasure,
}

impl Client {
    /// Starts `command` as a stdio server and connects to it.
    pub async fn spawn(command: &StdioCommand, options: ClientOptions) -> Result<Self, ClientError> {
        let spawned = Process::spawn(command, options.shutdown_grace, options.limits)?;
        let process = spawned.process;
        // The output ends when the server exits, so its exit status follows shortly.
        let exit = process.exited(Duration::from_secs(2));
        let ended = async move { exit.await.unwrap_or_else(|| "the server closed its output".into()) };
        let link = Link::Stdio(Rpc::start(
            (spawned.stdout, spawned.stdin),
            options.limits,
            options.handlers.clone(),
            options.wire_tap.clone(),
            process.stop.clone(),
            ended,
        ));
        Self::open(link, options, Some(process)).await
    }

    /// Connects over a stream pair already open to a server (a socket, an in-memory pipe).
    pub async fn connect<R, W>(reader: R, writer: W, options: ClientOptions) -> Result<Self, ClientError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let ended = async { "the server closed the connection".to_owned() };
        let link = Link::Stdio(Rpc::start(
            (reader, writer),
            options.limits,
            options.handlers.clone(),
            options.wire_tap.clone(),
            CancellationToken::new(),
            ended,
        ));
        Self::open(link, options, None).await
    }

    /// Connects to a Streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`), sending `headers`
    /// with every request (tracing, API keys) and the credentials of [`ClientOptions::auth`].
    #[cfg(feature = "http-client")]
    pub async fn connect_http(
        url: &str,
        headers: reqwest::header::HeaderMap,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let url = reqwest::Url::parse(url)
            .map_err(|e| ClientError::invalid_params(format!("the URL {url:?}: {e}")))?;
        let link = Link::Http(Arc::new(HttpLink::new(url.clone(), headers.clone(), &options)?));
        match Self::open(link, options.clone(), None).await {
            // Neither era answers a POST here: an old server of the deprecated HTTP+SSE
            // transport, the last fallback.
            Err(error)
                if matches!(error.http_status(), Some(400 | 404 | 405))
                    && options.mode != EraMode::Modern =>
            {
                Self::connect_http_sse(url, headers, options).await
            }
            other => other,
        }
    }

    /// Connects over the deprecated HTTP+SSE transport (2024-11-05): `url` is its event
    /// stream; the session speaks the `initialize` era.
    #[cfg(feature = "http-client")]
    async fn connect_http_sse(
        url: reqwest::Url,
        headers: reqwest::header::HeaderMap,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let http = http::http_client(&options)?;
        let closing = CancellationToken::new();
        // This old transport gets the credentials of the moment it connects.
        let mut headers = headers;
        if let Some(auth) = &options.auth {
            let mut probe = reqwest::Request::new(reqwest::Method::GET, url.clone());
            auth.authorize(&mut probe).await?;
            headers.extend(probe.headers().clone());
        }
        let lines = http_sse::open(http, url, headers, &options.limits, closing.clone()).await?;
        let options = ClientOptions { mode: EraMode::Legacy, ..options };
        let ended = async { "the HTTP+SSE event stream closed".to_owned() };
        let tap = options.wire_tap.clone();
        let link = Link::Stdio(Rpc::start(
            lines,
            options.limits,
            options.handlers.clone(),
            tap,
            closing.clone(),
            ended,
        ));
        let mut client = Self::open(link, options, None).await?;
        client.session = Some(closing.drop_guard());
        Ok(client)
    }

    /// Settles the era over `link` and holds the connection.
    async fn open(link: Link, options: ClientOptions, process: Option<Process>) -> Result<Self, ClientError> {
        let server = negotiate(&link, &options).await?;
        let cache = Cache::new(link.notifications());
        let session = crate::telemetry::SessionMeasure::start(
            crate::telemetry::Side::Client,
            Some(&server.version),
            link.network_transport(),
        );
        let tools = known_tools::KnownTools::new(link.notifications());
        Ok(Self {
            link,
            options,
            dialect: server.version.era().into(),
            server,
            process,
            tools,
            progress_tokens: AtomicU64::new(1),
            cache,
            #[cfg(feature = "experimental")]
            known_tags: known_tags::KnownTags::default(),
            log_level: Mutex::default(),
            #[cfg(feature = "http-client")]
            session: None,
            listen_setup: tokio::sync::Mutex::default(),
            _session: session,
        })
    }

    /// What the connection settled on.
    pub fn server(&self) -> &ServerDescription {
        &self.server
    }

    /// The page of list `kind` at `cursor` over HTTP GET (experimental,
    /// `modelctx_protocol::http_lists`), from a server that declared
    /// `io.github.modelctx/http-lists`: a page fetched before is revalidated with its `ETag`
    /// (`If-None-Match`), and a `304` answers with it, nothing sent again. Over stdio, or from a
    /// server that did not declare the extension, an error says so.
    #[cfg(all(feature = "experimental", feature = "http-client"))]
    pub async fn list_over_get(
        &self,
        kind: modelctx_protocol::http_lists::ListKind,
        cursor: Option<&str>,
    ) -> Result<ListPage, ClientError> {
        use modelctx_protocol::http_lists::EXTENSION_ID;
        let declared =
            self.server.capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID));
        match &self.link {
            Link::Http(link) if declared => link.get_list(kind, cursor).await,
            Link::Http(_) => Err(ClientError::undeclared(EXTENSION_ID, kind.method())),
            Link::Stdio(_) => Err(ClientError::invalid_params("lists over GET need Streamable HTTP")),
        }
    }

    /// The era in use.
    pub fn era(&self) -> Era {
        self.server.version.era()
    }

    /// The process id of a spawned server.
    pub fn server_pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(Process::pid)
    }

    /// Notifications the server sends from now on (progress, logs, list changes).
    pub fn notifications(&self) -> broadcast::Receiver<Notification> {
        self.link.notifications()
    }

    /// Sends any request (a [`Method`], or the name of an extension's: `acme/search`), with
    /// the per-request `_meta` the era needs; returns the raw result.
    pub async fn request(&self, method: impl Into<Method>, params: Value) -> Result<JsonObject, ClientError> {
        let method = method.into();
        let params = match params {
            Value::Object(params) => params,
            Value::Null => JsonObject::new(),
            other => {
                return Err(ClientError::invalid_params(format!("params must be an object, not {other}")));
            }
        };
        self.request_within(&method, params, self.options.request_timeout).await
    }

    /// A listing page or a read, from the cache while its `ttlMs` lasts and no change
    /// notification has made it stale; fetched (and kept, when the server allows) otherwise.
    /// A result reached through rounds of input is never kept (CACHE-05).
    async fn cached_request(&self, method: &Method, params: Value) -> Result<JsonObject, ClientError> {
        let key = format!("{method} {params}");
        let context = self.authorization_context().await?;
        if let Some(hit) = self.cache.get(&key, context) {
            return Ok(hit);
        }
        let params = params.as_object().cloned().unwrap_or_default();
        let answered = self.request_counting_rounds(method, params, self.options.request_timeout).await?;
        if answered.rounds == 0 {
            self.cache.keep(key, context, &answered.result);
        }
        Ok(answered.result)
    }

    /// The SHA-256 of the `Authorization` the next request will carry (zeros without `auth`):
    /// cached `private` results answer only the context they were fetched in (CACHE-07). The
    /// credentials alone are the context, not what changes with every request (a DPoP proof).
    async fn authorization_context(&self) -> Result<cache::Context, ClientError> {
        #[cfg(feature = "http-client")]
        if let (Some(auth), Link::Http(http)) = (&self.options.auth, &self.link) {
            use sha2::Digest as _;
            let mut probe = reqwest::Request::new(reqwest::Method::POST, http.url().clone());
            auth.authorize(&mut probe).await?;
            let credentials = probe.headers().get(reqwest::header::AUTHORIZATION).map(|v| v.as_bytes());
            return Ok(sha2::Sha256::digest(credentials.unwrap_or_default()).into());
        }
        Ok(cache::Context::default())
    }

    async fn request_within(
        &self,
        method: &Method,
        params: JsonObject,
        timeout: Duration,
    ) -> Result<JsonObject, ClientError> {
        self.request_counting_rounds(method, params, timeout).await.map(|answered| answered.result)
    }

    /// The capability `method` needs that the server did not declare, if any: a client uses
    /// only what was negotiated (LIFE-08). Methods outside the spec's capabilities pass.
    fn undeclared(&self, method: &Method) -> Option<&'static str> {
        let offers = &self.server.capabilities;
        let (needed, declared) = match method {
            Method::ListTools | Method::CallTool => ("tools", offers.tools.is_some()),
            Method::ListResources | Method::ListResourceTemplates | Method::ReadResource => {
                ("resources", offers.resources.is_some())
            }
            Method::Subscribe | Method::Unsubscribe => {
                ("resources.subscribe", offers.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)))
            }
            Method::ListPrompts | Method::GetPrompt => ("prompts", offers.prompts.is_some()),
            Method::Complete => ("completions", offers.completions.is_some()),
            Method::SetLevel => ("logging", offers.logging.is_some()),
            Method::ListTasks => {
                ("tasks.list", offers.legacy_tasks.as_ref().is_some_and(|t| t.list.is_some()))
            }
            _ => return None,
        };
        (!declared).then_some(needed)
    }

    /// One request in the connection's era, with the rounds of input it took, in its
    /// telemetry span.
    async fn request_counting_rounds(
        &self,
        method: &Method,
        mut params: JsonObject,
        timeout: Duration,
    ) -> Result<Answered, ClientError> {
        if let Some(capability) = self.undeclared(method) {
            return Err(ClientError::undeclared(capability, method.clone()));
        }
        let telemetry = telemetry::start(method, &params, self.server.version, self.link.network_transport());
        telemetry::inject(&telemetry, &mut params);
        let answered = async {
            match self.dialect {
                Dialect::Modern => self.request_modern(method, params, timeout).await,
                Dialect::Legacy => {
                    let result = self.link.request(method, Some(params), timeout).await?;
                    Ok(Answered { result, rounds: 0 })
                }
            }
        }
        .instrument(telemetry.span().clone())
        .await;
        telemetry.end(|| telemetry::failure(&answered));
        answered
    }

    /// A 2026-07-28 request, driven through its rounds of input: each `input_required`
    /// result's requests are answered by the handlers and the request is sent again with
    /// their `inputResponses` and the `requestState` echoed untouched. A `resultType` this
    /// client does not know makes the result invalid (BASE-08); an absent one means complete.
    async fn request_modern(
        &self,
        method: &Method,
        mut params: JsonObject,
        timeout: Duration,
    ) -> Result<Answered, ClientError> {
        for rounds in 0..=self.options.max_input_rounds {
            let log_level = *self.log_level.lock().unwrap_or_else(PoisonError::into_inner);
            let request = with_meta(params.clone(), self.server.version, &self.options, log_level);
            #[cfg(feature = "experimental")]
            let request = self.with_known_tags(method, request);
            let result = self.link.request(method, Some(request), timeout).await;
            #[cfg(feature = "experimental")]
            let result = self.heed_tags(method, result);
            let result = result?;
            match result_type(&result) {
                ResultType::Complete => return Ok(Answered { result, rounds }),
                ResultType::InputRequired => {}
                // TX-02: a task answers only a tools/call, and only a client that declared
                // the extension.
                ResultType::Task if *method == Method::CallTool && behalf::wants_tasks(&self.options) => {
                    return Ok(Answered { result, rounds });
                }
                other => {
                    return Err(ClientError::invalid_result(
                        method.clone(),
                        format!(
                            "resultType {:?} is not one this client knows (complete, input_required)",
                            other.as_str()
                        ),
                    ));
                }
            }
            // All of a round's questions are put at once, as the server asked them at once
            // (a gateway relaying them asks its own client all of them in one round).
            let asked = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
            let answers = asked.into_iter().map(|(key, asked)| async move {
                let method = Method::from(asked.get("method").and_then(Value::as_str).unwrap_or_default());
                let asked_params = asked.get("params").and_then(Value::as_object).cloned();
                let answer = self.options.handlers.answer_input(key.clone(), &method, asked_params).await;
                Ok::<_, ClientError>((key, Value::Object(answer.map_err(ClientError::rpc)?)))
            });
            let responses: JsonObject =
                futures::future::join_all(answers).await.into_iter().collect::<Result<_, _>>()?;
            params.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".into(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(ClientError::invalid_result(
            method.clone(),
            format!("the server still asks for input after {} rounds", self.options.max_input_rounds),
        ))
    }

    /// `params` with the known definition tags, when the client sends them (experimental).
    #[cfg(feature = "experimental")]
    fn with_known_tags(&self, method: &Method, mut params: JsonObject) -> JsonObject {
        if self.options.known_tags {
            self.known_tags.attach(method, &mut params);
        }
        params
    }

    /// Keeps the tag of a list or discover result, and forgets the tags a result or a refusal
    /// says are stale (definition tags, experimental, with `ClientOptions::known_tags`).
    #[cfg(feature = "experimental")]
    fn heed_tags(
        &self,
        method: &Method,
        result: Result<JsonObject, ClientError>,
    ) -> Result<JsonObject, ClientError> {
        if !self.options.known_tags {
            return result;
        }
        let stale = match &result {
            Ok(result) => {
                self.known_tags.record(method, result);
                known_tags::KnownTags::stale_in(result)
            }
            Err(error) => error.stale_definitions().unwrap_or_default(),
        };
        self.known_tags.forget(&stale, &self.cache);
        result
    }

    /// Checks that the server answers: `ping`, or in 2026-07-28 (which has no `ping`)
    /// `server/discover`.
    pub async fn ping(&self) -> Result<(), ClientError> {
        self.request(self.dialect.ping_method(), Value::Null).await.map(drop)
    }

    /// Every tool of the server, following `nextCursor` to the last page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let (mut tools, mut task_support) = (Vec::new(), HashMap::new());
        self.paginate(&Method::ListTools, |page| {
            let page = self.dialect.tools_page(&self.link, page)?;
            tools.extend(page.tools);
            task_support.extend(page.task_support);
            Ok(page.next_cursor)
        })
        .await?;
        self.tools.learn(&tools, &task_support);
        Ok(tools)
    }

    /// What the current listing says of tool `name`, read by `fact`; the tools are listed
    /// first when no listing is current.
    async fn tool_fact<T>(
        &self,
        name: &str,
        fact: impl Fn(&known_tools::ToolFacts) -> T,
    ) -> Result<known_tools::Lookup<T>, ClientError> {
        if let known_tools::Lookup::Unknown = self.tools.look(name, &fact) {
            self.list_tools().await?;
        }
        Ok(self.tools.look(name, &fact))
    }

    /// With [`ClientOptions::validate_arguments`]: checks `arguments` against the tool's
    /// `inputSchema`, listing the tools first when no current listing is known (which also
    /// gives the `outputSchema` its results are checked against). Nothing is sent for
    /// arguments that do not fit.
    #[cfg(feature = "validation")]
    async fn check_arguments(&self, name: &str, arguments: &Value) -> Result<(), ClientError> {
        if !self.options.validate_arguments {
            return Ok(());
        }
        let validator = match self.tool_fact(name, |tool| tool.input.clone()).await? {
            known_tools::Lookup::Listed(validator) => validator,
            _ => return Err(ClientError::invalid_params(format!("the server lists no tool {name:?}"))),
        };
        match validator.and_then(|validator| validator.explain(arguments)) {
            None => Ok(()),
            Some(why) => Err(ClientError::invalid_params(format!(
                "the arguments of {name} break its inputSchema: {why}"
            ))),
        }
    }

    /// The output schema of tool `name`, listing the tools first when no current listing is
    /// known (a tool called by name, never listed, is checked all the same). A listing that
    /// fails leaves the result unchecked, not the call failed.
    #[cfg(feature = "validation")]
    async fn output_schema(&self, name: &str) -> Option<Arc<Validator>> {
        match self.tool_fact(name, |tool| tool.output.clone()).await {
            Ok(known_tools::Lookup::Listed(validator)) => validator,
            Ok(_) => None,
            Err(error) => {
                tracing::debug!(tool = name, %error, "the tools could not be listed to check a result");
                None
            }
        }
    }

    /// Checks a tool's result against the `outputSchema` it is listed with (TOOL-10): a
    /// successful result must carry conforming `structuredContent`.
    #[cfg(feature = "validation")]
    async fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), ClientError> {
        if result.is_error == Some(true) {
            return Ok(());
        }
        let Some(validator) = self.output_schema(name).await else { return Ok(()) };
        let problem = match &result.structured_content {
            None => Some("it has an outputSchema but the result carries no structuredContent".to_owned()),
            Some(content) => validator
                .explain(content)
                .map(|why| format!("structuredContent breaks its outputSchema: {why}")),
        };
        match problem {
            None => Ok(()),
            Some(problem) => {
                Err(ClientError::invalid_result(Method::CallTool, format!("tool {name}: {problem}")))
            }
        }
    }

    /// Every resource of the server, following `nextCursor` to the last page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all(&Method::ListResources, "resources").await
    }

    /// Every resource template of the server, following `nextCursor` to the last page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all(&Method::ListResourceTemplates, "resourceTemplates").await
    }

    /// Every prompt of the server, following `nextCursor` to the last page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all(&Method::ListPrompts, "prompts").await
    }

    /// Reads resource `uri`; its contents.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<TextOrBlob>, ClientError> {
        let mut result = self.cached_request(&Method::ReadResource, json!({"uri": uri})).await?;
        member(&Method::ReadResource, &mut result, "contents")
    }

    /// Gets prompt `name` filled with `arguments`; its messages.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Vec<PromptMessage>, ClientError> {
        let mut result =
            self.request(Method::GetPrompt, json!({"name": name, "arguments": arguments})).await?;
        member(&Method::GetPrompt, &mut result, "messages")
    }

    /// The items under `key` of every page of `method`.
    async fn list_all<T: DeserializeOwned>(&self, method: &Method, key: &str) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        self.paginate(method, |mut page| {
            let next = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            items.extend(member::<Vec<T>>(method, &mut page, key)?);
            Ok(next)
        })
        .await?;
        Ok(items)
    }

    /// Requests every page of `method`, handing each to `each` (which returns its
    /// `nextCursor`); stops on a repeated cursor, after [`MAX_PAGES`], or once the pages hold
    /// more than [`ClientOptions::max_listing_bytes`].
    async fn paginate(
        &self,
        method: &Method,
        mut each: impl FnMut(JsonObject) -> Result<Option<String>, ClientError>,
    ) -> Result<(), ClientError> {
        let mut cursor: Option<String> = None;
        let (bound, mut held) = (self.options.max_listing_bytes, 0usize);
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
            let page = self.cached_request(method, params).await?;
            held = held.saturating_add(json_bytes(&page));
            if held > bound {
                return Err(ClientError::invalid_result(
                    method.clone(),
                    format!(
                        "the listing holds more than the {bound} bytes allowed (ClientOptions::max_listing_bytes)"
                    ),
                ));
            }
            let next = each(page)?;
            match next {
                Some(next) if cursor.as_ref() == Some(&next) => {
                    return Err(ClientError::invalid_result(
                        method.clone(),
                        format!("the server returned the cursor {next:?} it was given"),
                    ));
                }
                Some(next) => cursor = Some(next),
                None => return Ok(()),
            }
        }
        Err(ClientError::invalid_result(method.clone(), format!("still more pages after {MAX_PAGES}")))
    }

    /// Calls tool `name` with `arguments` (a JSON object). With the `validation` feature, when
    /// the tool has an `outputSchema` — known from the last `list_tools`, which is made first
    /// when there is none current — a successful result must carry `structuredContent` that
    /// conforms to it; otherwise the call fails with an invalid result
    /// ([`ClientError::is_invalid_result`]).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, ClientError> {
        #[cfg(feature = "validation")]
        self.check_arguments(name, &arguments).await?;
        let params = self.call_params(name, arguments).await;
        let result = self.request(Method::CallTool, params).await?;
        self.tool_result(name, result).await
    }

    /// Like [`Client::call_tool`], but a call the server runs as a task is not followed:
    /// its id is returned, for [`Client::get_task`], [`Client::task_result`] and
    /// [`Client::cancel_task`].
    pub async fn start_tool(&self, name: &str, arguments: Value) -> Result<Started, ClientError> {
        let params = self.call_params(name, arguments).await;
        let result = self.request(Method::CallTool, params).await?;
        match self.call_answer(result)? {
            tasks::CallAnswer::Task(id, _) => Ok(Started::Task(id)),
            tasks::CallAnswer::Result(result) => self.tool_result(name, result).await.map(Started::Done),
        }
    }

    /// A `tools/call` answer — followed to its end when it is a task — in the neutral model,
    /// checked against the tool's output schema.
    #[cfg_attr(not(feature = "validation"), allow(unused_variables))]
    async fn tool_result(&self, name: &str, result: JsonObject) -> Result<CallToolResult, ClientError> {
        let result = match self.call_answer(result)? {
            tasks::CallAnswer::Task(id, state) => {
                tasks::task_started(&id).await;
                self.follow_own_task(&id, state).await?
            }
            tasks::CallAnswer::Result(result) => result,
        };
        let result = self.dialect.call_result(result)?;
        #[cfg(feature = "validation")]
        self.check_output(name, &result).await?;
        Ok(result)
    }

    /// Tells the server the host's roots changed (`notifications/roots/list_changed`), when
    /// the handlers declared `roots.listChanged` and the session is 2025-11-25 (ROOTS-03);
    /// `false` when there is nothing to send — a 2026-07-28 server asks for the roots with
    /// each request that needs them.
    pub async fn roots_changed(&self) -> Result<bool, ClientError> {
        if self.era() != Era::Legacy || !self.options.handlers.tells_root_changes() {
            return Ok(false);
        }
        self.link.notify(&Method::RootsListChanged, None).await?;
        Ok(true)
    }

    /// Asks for the server's log messages at `level` and above (`notifications/message`): in
    /// 2026-07-28 the level travels in every request's `_meta`, in 2025-11-25 it is set once
    /// with `logging/setLevel`.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if let Some((method, params)) = self.dialect.log_level_request(level) {
            self.request(method, params).await?;
        }
        *self.log_level.lock().unwrap_or_else(PoisonError::into_inner) = Some(level);
        Ok(())
    }

    /// Completion values for `argument` (`{"name", "value"}`) of `reference` (a prompt
    /// `{"type": "ref/prompt", "name"}` or a template `{"type": "ref/resource", "uri"}`), with
    /// the values of other arguments already chosen in `context`.
    pub async fn complete(
        &self,
        reference: Value,
        argument: Value,
        context: Option<Value>,
    ) -> Result<Completion, ClientError> {
        let mut params = json!({"ref": reference, "argument": argument});
        if let Some(arguments) = context {
            params["context"] = json!({"arguments": arguments});
        }
        let mut result = self.request(Method::Complete, params).await?;
        member(&Method::Complete, &mut result, "completion")
    }

    /// Shuts the connection down: a legacy HTTP session is ended (`DELETE`, within the grace
    /// period); a spawned server gets its stdin closed, then SIGTERM, then SIGKILL, each after
    /// the grace period; returns how it exited.
    pub async fn close(self) -> Option<String> {
        #[cfg(feature = "http-client")]
        if let Link::Http(http) = &self.link {
            http.end_session(self.options.shutdown_grace).await;
        }
        self.shut_down().await
    }
}

/// A result, and how many rounds of input it took.
struct Answered {
    result: JsonObject,
    rounds: usize,
}
