//! The host: many servers at once, from the configuration files AI applications keep, behind
//! one registry of tools and prompts (feature `host`).
//!
//! ```no_run
//! use modelctx::host::{Approval, ApprovalHook, Host, HostConfig, HostOptions};
//! use modelctx::protocol::types::Implementation;
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = HostConfig::load(".mcp.json")?;
//! let hook = ApprovalHook::new(|request| async move {
//!     println!("{} wants to run {} with {}", request.server, request.tool, request.arguments);
//!     Approval::Deny("not now".into())
//! });
//! let host = Host::start(config, HostOptions::new(Implementation::new("demo", "1")).approval(hook)).await;
//! for status in host.status() {
//!     println!("{}: {} {}", status.name, status.state, status.last_error.unwrap_or_default());
//! }
//! for tool in host.tools() {
//!     println!("{} (tool {} of {})", tool.name, tool.tool.name, tool.server);
//! }
//! let result = host.call_tool("files__read", json!({"path": "notes.md"})).await?;
//! println!("{:?}", result.content);
//! host.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! Guarantees:
//!
//! - **Concurrent start.** [`Host::start`] connects to every server at once, each in its own
//!   task, and returns when each has connected or failed (at most
//!   [`HostOptions::connect_timeout`] each). A server that fails is reported in
//!   [`Host::status`]; the others are unaffected. A server that fails its first connection is
//!   not retried.
//! - **One registry.** Tools are named `{server}__{tool}` (the server part is the entry's
//!   `prefix` when it has one; `""` keeps the tool's own name); collisions and over-long
//!   names follow a deterministic rule (below). [`Host::call_tool`] routes a name back to its
//!   server and the server's own tool name. Tools an entry's `allowTools`/`denyTools` leave
//!   out are not in the registry. Prompts are named by the same rule, apart from tools
//!   ([`Host::prompts`], [`Host::get_prompt`]). Resources and templates keep their server's
//!   URI inside a host URI, `mcp-host://{prefix}/{uri}` ([`resource_uri`]), which
//!   [`Host::read_resource`] maps back byte for byte; [`Host::complete`] asks the server that
//!   has the prompt or template. [`Host::changes`] tells when the registry changes.
//! - **Refresh.** When a server announces `tools.listChanged` or `prompts.listChanged`, the
//!   host follows its list-change notifications (through `subscriptions/listen` in 2026-07-28,
//!   on the connection in 2025-11-25) and lists that server's tools and prompts again — once
//!   right after subscribing too, so a change made meanwhile is not missed.
//! - **Restart.** A stdio server that exits on its own is started again with exponential
//!   backoff ([`RestartPolicy`]). Meanwhile its tools stay listed and calls to them fail at
//!   once with [`HostError::Unavailable`] (state `restarting`, the exit as the reason): a
//!   call never waits on a restart. After `max_attempts` failures in a row the server is
//!   `failed` and its tools leave the registry. An HTTP server is connected to again the same
//!   way, with the same backoff and limit, when a request could not reach it (the connection
//!   failed or closed); that request fails with its error.
//! - **Time limits.** Each request to a server is limited by its entry's `timeoutMs`, or
//!   [`HostOptions::default_timeout`]. A call that runs out of time is cancelled on the
//!   server and fails with an error whose [`HostError::is_timeout`] is true.
//! - **Approval.** Before calling a tool whose annotations make it destructive or open-world
//!   (with the spec's defaults for absent hints, see [`Risk`]), the host asks the
//!   [`ApprovalHook`]; a denial — or no hook at all — is [`HostError::Denied`] and the call
//!   is not sent.
//! - **Shutdown.** [`Host::shutdown`] fails calls in flight with [`HostError::ShutDown`],
//!   closes every connection, and waits for every child process to exit and be reaped (stdin
//!   closed, then SIGTERM, then SIGKILL). Dropping the host starts the same shutdown without
//!   waiting.
//!
//! # Tool names
//!
//! The rule, applied to all servers' tools at once:
//!
//! 1. The base name is `{server}__{tool}`, with every character outside `A-Z a-z 0-9 _ -`
//!    in either part replaced by `_` (model APIs commonly accept only
//!    `^[a-zA-Z0-9_-]{1,64}$`; the MCP spec also allows `.`). With an empty prefix the base
//!    is the tool's own name, unchanged.
//! 2. A base name that is unique and no longer than [`HostOptions::max_tool_name_len`]
//!    (64 by default) is the name.
//! 3. Otherwise *every* tool with that base — the base is shared (`a` + `b__c` and
//!    `a__b` + `c`; `my server` and `my_server`) or too long — is named
//!    `{base cut to fit}_{h}`, `h` being the first 8 hex digits of SHA-256 of the server
//!    name, a zero byte and the tool name. So a name never depends on which server was
//!    listed first.
//! 4. A name still taken after that goes, among the tools that share it ordered by
//!    (server, tool), to the first; the others get `_2`, `_3`, … (cut to fit).

mod approval;
mod apps;
mod circuit;
pub mod config;
mod error;
mod naming;
mod options;
mod registry;
pub mod resource_uri;
mod status;
mod supervisor;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use modelctx_protocol::model::CallToolResult;
use modelctx_protocol::types::{Completion, PromptMessage, TextOrBlob};
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use approval::{Approval, ApprovalHook, ApprovalRequest, Risk};
pub use apps::HostApp;
pub use circuit::{CircuitPolicy, Refusal};
pub use config::{ConfigError, HostConfig, ServerConfig};
pub use error::HostError;
pub use options::{AuthFor, HandlersFor, HostOptions, RestartPolicy};
pub use registry::{HostChange, HostPrompt, HostResource, HostTemplate, HostTool};
pub use status::{ServerState, ServerStatus, TransportKind};

use circuit::{Admitted, Circuit};
use config::Transport;
use registry::{Listing, Placement, Registry};

use crate::client::{Client, ClientError, ClientErrorKind, Progress};

/// Registry changes kept for a slow listener of [`Host::changes`] (past that it lags, and is
/// told so).
const CHANGES: usize = 64;

/// What [`Host::complete`] completes an argument of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionTarget<'a> {
    /// A prompt, by its name in the registry.
    Prompt(&'a str),
    /// A resource template of `server`, by its URI template there.
    Template {
        /// The server's name in the configuration.
        server: &'a str,
        /// The template's `uriTemplate`.
        uri_template: &'a str,
    },
}

/// What [`Host::reconfigure`] did, by server name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconfigured {
    /// Servers new to the configuration, started.
    pub added: Vec<String>,
    /// Servers whose entries changed: stopped, and started again as the entry now says.
    pub changed: Vec<String>,
    /// Servers the configuration no longer has, stopped.
    pub removed: Vec<String>,
    /// Servers whose entries did not change, left as they were.
    pub kept: Vec<String>,
}

/// Many MCP servers behind one registry of tools. See the [module docs](self).
pub struct Host {
    shared: Arc<Shared>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// What the host and its servers' tasks share.
struct Shared {
    options: HostOptions,
    /// The servers of the current configuration, by name ([`Host::reconfigure`] changes them).
    slots: RwLock<BTreeMap<String, Arc<Slot>>>,
    /// The current registry; the lock also keeps rebuilds in order.
    registry: Mutex<Arc<Registry>>,
    /// Tripped by shutdown.
    closing: CancellationToken,
    /// Tells what changed in the registry.
    changes: broadcast::Sender<HostChange>,
}

/// One server's configuration and state.
struct Slot {
    config: ServerConfig,
    state: Mutex<SlotState>,
    /// Told when a request to an HTTP server could not reach it: the supervisor connects
    /// again, with backoff, as it restarts an exited stdio server.
    lost: tokio::sync::Notify,
    /// The turns of its tool calls, with `maxConcurrentCalls`.
    turns: Option<Arc<Semaphore>>,
    /// Refuses calls at once while the server keeps failing them (`circuitBreaker`).
    circuit: Option<Arc<Circuit>>,
    /// Tripped when the host shuts down, or when a new configuration drops or changes the
    /// server: its supervisor then lets the calls in flight end and closes the connection.
    stop: CancellationToken,
    /// Its tool calls in flight.
    calls: TaskTracker,
}

struct SlotState {
    state: ServerState,
    /// The connection, while connected.
    client: Option<Arc<Client>>,
    /// The tools and prompts it contributes: kept while it restarts, dropped when it fails or
    /// stops.
    listing: Option<Listing>,
    last_error: Option<String>,
    restarts: u32,
}

impl Host {
    /// Connects to every server of `config` at once and returns when each has connected or
    /// failed. Failures are per server, in [`Host::status`]; they never fail the host.
    ///
    /// Must be called within a Tokio runtime; each server gets a task of its own.
    pub async fn start(config: HostConfig, options: HostOptions) -> Self {
        let shared = Arc::new(Shared {
            options,
            slots: RwLock::default(),
            registry: Mutex::default(),
            closing: CancellationToken::new(),
            changes: broadcast::channel(CHANGES).0,
        });
        let host = Self { shared, tasks: Mutex::default() };
        host.reconfigure(config).await;
        host
    }

    /// Applies a new configuration to the running host: servers it no longer has, or has
    /// with other settings, are stopped once their calls in flight end (within their time
    /// limits) — their tools leave the registry at once; servers it adds, or changes, are
    /// started as [`Host::start`] starts them, and this returns when each has connected or
    /// failed. Servers whose entries are unchanged keep their connections.
    pub async fn reconfigure(&self, config: HostConfig) -> Reconfigured {
        let mut report = Reconfigured::default();
        let mut started = Vec::new();
        {
            let mut slots = self.shared.slots.write().unwrap_or_else(PoisonError::into_inner);
            slots.retain(|name, slot| {
                let kept = config.servers.get(name) == Some(&slot.config);
                if !kept {
                    slot.stop.cancel();
                    if config.servers.contains_key(name) {
                        report.changed.push(name.clone());
                    } else {
                        report.removed.push(name.clone());
                    }
                }
                kept
            });
            for (name, server) in config.servers {
                if slots.contains_key(&name) {
                    report.kept.push(name);
                    continue;
                }
                if !report.changed.contains(&name) {
                    report.added.push(name.clone());
                }
                let slot = Arc::new(Slot::new(server, &self.shared));
                slots.insert(name.clone(), Arc::clone(&slot));
                started.push((name, slot));
            }
        }
        // The servers dropped leave the registry now; their calls in flight go on.
        self.shared.rebuild();
        let settled = self.supervise(started);
        // A task that panicked drops its sender: that server is settled too.
        futures::future::join_all(settled).await;
        report
    }

    /// Starts a supervisor for each of `started`; the receivers tell when each has settled.
    fn supervise(&self, started: Vec<(String, Arc<Slot>)>) -> Vec<oneshot::Receiver<()>> {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        tasks.retain(|task| !task.is_finished());
        let mut settled = Vec::new();
        for (name, slot) in started {
            let (tell, told) = oneshot::channel();
            tasks.push(tokio::spawn(supervisor::supervise(Arc::clone(&self.shared), name, slot, tell)));
            settled.push(told);
        }
        settled
    }

    /// The registry's changes from now on: each time a server's tools, prompts, resources or
    /// templates change in it (a list change, a restart, a server lost), which kinds did; and
    /// each update of a resource a server listed, by its host URI. A listener that falls
    /// behind gets `Lagged` and should read the registry afresh.
    pub fn changes(&self) -> broadcast::Receiver<HostChange> {
        self.shared.changes.subscribe()
    }

    /// The host URI of `uri` on `server` ([`resource_uri::host_uri`] with the server's
    /// prefix).
    pub fn host_uri(&self, server: &str, uri: &str) -> String {
        self.shared.registry().host_uri(server, uri)
    }

    /// Every tool the model may call, by name: the registry without the tools only an app
    /// may call (`_meta.ui.visibility`, APPS-03).
    pub fn tools(&self) -> Vec<HostTool> {
        self.shared.registry().model_tools()
    }

    /// The tool called `name` in the registry, whoever may call it.
    pub fn tool(&self, name: &str) -> Option<HostTool> {
        self.shared.registry().get(name).map(|tool| HostTool::clone(&tool))
    }

    /// Every prompt of every server, by its name in the registry (`{server}__{prompt}`, by
    /// the same rule as tools).
    pub fn prompts(&self) -> Vec<HostPrompt> {
        self.shared.registry().prompts()
    }

    /// Completion values for `argument` (`{"name", "value"}`) of a prompt or a template of
    /// one of the host's servers, asked of that server (`completion/complete`) with the
    /// prompt's own name there; `context` holds the values of other arguments already chosen.
    pub async fn complete(
        &self,
        target: CompletionTarget<'_>,
        argument: Value,
        context: Option<Value>,
    ) -> Result<Completion, HostError> {
        if self.shared.closing.is_cancelled() {
            return Err(HostError::ShutDown);
        }
        let (server, reference) = match target {
            CompletionTarget::Prompt(name) => {
                let prompt = self
                    .shared
                    .registry()
                    .prompt(name)
                    .ok_or_else(|| HostError::UnknownPrompt(name.into()))?;
                (prompt.server.clone(), serde_json::json!({"type": "ref/prompt", "name": prompt.prompt.name}))
            }
            CompletionTarget::Template { server, uri_template } => {
                (server.to_owned(), serde_json::json!({"type": "ref/resource", "uri": uri_template}))
            }
        };
        let client = self.shared.client(&server)?;
        let asked = async {
            let asked = client.complete(reference, argument, context).await;
            asked.map_err(|error| HostError::Completion {
                error: self.shared.noted(&server, error),
                server: server.clone(),
            })
        };
        self.shared.unless_closing(asked).await
    }

    /// Every resource of every server, by its host URI (`mcp-host://{server}/{uri}`).
    pub fn resources(&self) -> Vec<HostResource> {
        self.shared.registry().resources()
    }

    /// Every resource template of every server, with its server.
    pub fn resource_templates(&self) -> Vec<HostTemplate> {
        self.shared.registry().templates()
    }

    /// Reads the resource a host URI names ([`resource_uri::host_uri`]: a listed resource's
    /// `uri`, a URI a listed template expands to, or any URI under a server's prefix) from its
    /// server, within that server's time limit. The contents are the server's, with the
    /// server's own URIs.
    pub async fn read_resource(&self, host_uri: &str) -> Result<Vec<TextOrBlob>, HostError> {
        if self.shared.closing.is_cancelled() {
            return Err(HostError::ShutDown);
        }
        let located = self.shared.registry().locate(host_uri);
        let (server, uri) = located.ok_or_else(|| HostError::UnknownResource(host_uri.into()))?;
        let client = self.shared.client(&server)?;
        let read = async {
            client.read_resource(&uri).await.map_err(|error| HostError::Resource {
                error: self.shared.noted(&server, error),
                server: server.clone(),
                uri: uri.clone(),
            })
        };
        self.shared.unless_closing(read).await
    }

    /// Gets the prompt called `name` in the registry from its server, filled with `arguments`
    /// (a JSON object of strings), within that server's time limit; its messages.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Vec<PromptMessage>, HostError> {
        if self.shared.closing.is_cancelled() {
            return Err(HostError::ShutDown);
        }
        let prompt =
            self.shared.registry().prompt(name).ok_or_else(|| HostError::UnknownPrompt(name.into()))?;
        let client = self.shared.client(&prompt.server)?;
        let got = async {
            client.get_prompt(&prompt.prompt.name, arguments).await.map_err(|error| HostError::Prompt {
                error: self.shared.noted(&prompt.server, error),
                server: prompt.server.clone(),
                prompt: prompt.prompt.name.clone(),
            })
        };
        self.shared.unless_closing(got).await
    }

    /// Calls the tool called `name` in the registry with `arguments` (a JSON object) on its
    /// server, within that server's time limit, after the approval hook when the tool is
    /// risky. A tool's own failure (`isError: true`) is an `Ok` result. A tool only an app
    /// may call is unknown here ([`Host::call_from_app`]).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult, HostError> {
        self.call_tool_with_progress(name, arguments, None::<fn(Progress)>).await
    }

    /// Like [`Host::call_tool`], handing the call's progress reports to `on_progress` when
    /// it is set (the call then asks its server for progress).
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        on_progress: Option<impl FnMut(Progress) + Send>,
    ) -> Result<CallToolResult, HostError> {
        if self.shared.closing.is_cancelled() {
            return Err(HostError::ShutDown);
        }
        let tool = self.shared.registry().for_model(name);
        let tool = tool.ok_or_else(|| HostError::UnknownTool(name.into()))?;
        self.call_entry(&tool, arguments, on_progress).await
    }

    /// Calls a registry entry: through its server's circuit, approval when it is risky, then
    /// the call within its server's time limit.
    async fn call_entry(
        &self,
        tool: &HostTool,
        arguments: Value,
        on_progress: Option<impl FnMut(Progress) + Send>,
    ) -> Result<CallToolResult, HostError> {
        if self.shared.closing.is_cancelled() {
            return Err(HostError::ShutDown);
        }
        let slot = self.shared.slot(&tool.server)?;
        let admitted = slot.admit(&tool.server)?;
        let called = self.approved_call(&slot, tool, arguments, on_progress).await;
        if let Some(admitted) = admitted {
            match &called {
                Err(error) if error.is_server_failure() => admitted.ended(Some(error.to_string())),
                // Refused before it was sent: the server was not tried.
                Err(HostError::Busy { .. } | HostError::Denied { .. } | HostError::ShutDown) => {}
                // It answered (a result, or an error of its own): it is there.
                _ => admitted.ended(None),
            }
        }
        called
    }

    /// The call of [`Host::call_entry`] once its circuit let it through.
    async fn approved_call(
        &self,
        slot: &Slot,
        tool: &HostTool,
        arguments: Value,
        on_progress: Option<impl FnMut(Progress) + Send>,
    ) -> Result<CallToolResult, HostError> {
        // Fail fast, before asking anyone to approve a call that cannot be made.
        slot.client(&tool.server)?;
        if tool.risk.needs_approval() {
            let request = ApprovalRequest {
                server: tool.server.clone(),
                tool: tool.tool.name.clone(),
                name: tool.name.clone(),
                arguments: arguments.clone(),
                annotations: tool.tool.annotations.clone(),
                risk: tool.risk,
            };
            let decision = match &self.shared.options.approval {
                None => Approval::Deny(
                    "no approval hook is set, and the tool may change or reach the world".into(),
                ),
                Some(hook) => tokio::select! {
                    decision = hook.decide(request) => decision,
                    () = self.shared.closing.cancelled() => return Err(HostError::ShutDown),
                },
            };
            if let Approval::Deny(reason) = decision {
                return Err(HostError::Denied {
                    server: tool.server.clone(),
                    tool: tool.tool.name.clone(),
                    reason,
                });
            }
        }
        let _turn = self.shared.turn(slot, &tool.server).await?;
        let client = slot.client(&tool.server)?;
        let _in_flight = slot.calls.token();
        let called = async {
            let called = match on_progress {
                Some(report) => client.call_tool_with_progress(&tool.tool.name, arguments, report).await,
                None => client.call_tool(&tool.tool.name, arguments).await,
            };
            called.map_err(|error| HostError::Call {
                error: self.shared.noted(&tool.server, error),
                server: tool.server.clone(),
                tool: tool.tool.name.clone(),
            })
        };
        self.shared.unless_closing(called).await
    }

    /// Every server's state, by name.
    pub fn status(&self) -> Vec<ServerStatus> {
        let registry = self.shared.registry();
        let slots = self.shared.slots.read().unwrap_or_else(PoisonError::into_inner);
        slots
            .iter()
            .map(|(name, slot)| {
                let state = slot.state();
                let client = state.client.as_ref();
                ServerStatus {
                    name: name.clone(),
                    state: state.state,
                    transport: match slot.config.transport {
                        Transport::Stdio(_) => TransportKind::Stdio,
                        Transport::Http(_) => TransportKind::Http,
                    },
                    version: client.map(|client| client.server().version),
                    pid: client.and_then(|client| client.server_pid()),
                    tools: registry.count(name),
                    restarts: state.restarts,
                    last_error: state.last_error.clone(),
                    circuit_open: slot.circuit.as_ref().is_some_and(|circuit| circuit.is_open()),
                }
            })
            .collect()
    }

    /// The state of the server called `name`.
    pub fn server_status(&self, name: &str) -> Option<ServerStatus> {
        self.status().into_iter().find(|status| status.name == name)
    }

    /// The connection to the server called `name`, while it is connected: for what the
    /// registry does not cover (resources, prompts, completion).
    pub fn client(&self, name: &str) -> Option<Arc<Client>> {
        self.shared.client(name).ok()
    }

    /// Shuts every server down and waits until each is closed and, for stdio servers, its
    /// process has exited and been reaped. Calls in flight fail with [`HostError::ShutDown`];
    /// later calls too. Calling it again does nothing.
    pub async fn shutdown(&self) {
        self.shared.closing.cancel();
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        for task in tasks {
            if let Err(e) = task.await {
                tracing::warn!(error = %e, "a server's task ended abnormally");
            }
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.shared.closing.cancel();
    }
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.shared.slots.read().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Host").field("servers", &slots.keys().collect::<Vec<_>>()).finish()
    }
}

impl Shared {
    /// `work`'s outcome, unless the host shuts down first.
    async fn unless_closing<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, HostError>>,
    ) -> Result<T, HostError> {
        tokio::select! {
            outcome = work => outcome,
            () = self.closing.cancelled() => Err(HostError::ShutDown),
        }
    }

    /// The registry as it is now.
    fn registry(&self) -> Arc<Registry> {
        Arc::clone(&self.registry.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The server called `name` in the current configuration.
    fn slot(&self, name: &str) -> Result<Arc<Slot>, HostError> {
        let slots = self.slots.read().unwrap_or_else(PoisonError::into_inner);
        slots.get(name).cloned().ok_or_else(|| HostError::Unavailable {
            server: name.into(),
            state: ServerState::Stopped,
            last_error: Some("no such server in the host's configuration".into()),
        })
    }

    /// Builds the registry again from every server's listing, and tells what changed.
    fn rebuild(&self) {
        let mut current = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        let slots = self.slots.read().unwrap_or_else(PoisonError::into_inner);
        let lists: BTreeMap<String, Listing> = slots
            .iter()
            .filter_map(|(name, slot)| Some((name.clone(), slot.state().listing.clone()?)))
            .collect();
        let place = |server: &str| {
            let config = &slots[server].config;
            Placement {
                prefix: config.prefix.clone().unwrap_or_else(|| server.to_owned()),
                trusts: config.trust_annotations,
                tools: config.tools.clone(),
            }
        };
        let rebuilt = Registry::build(&lists, place, self.options.max_tool_name_len);
        for change in rebuilt.changes_from(&current) {
            self.tell(change);
        }
        *current = Arc::new(rebuilt);
    }

    /// `error`, from a request to `server`; one that did not reach an HTTP server (the
    /// connection failed or closed) tells its supervisor to connect again.
    fn noted(&self, server: &str, error: ClientError) -> ClientError {
        if let Ok(slot) = self.slot(server)
            && matches!(slot.config.transport, Transport::Http(_))
            && matches!(error.kind(), ClientErrorKind::Transport { .. } | ClientErrorKind::Closed(_))
        {
            slot.lost.notify_one();
        }
        error
    }

    /// Tells the host's users of `change`.
    fn tell(&self, change: HostChange) {
        // No one listening is no one to tell.
        let _ = self.changes.send(change);
    }

    /// A turn to call a tool of `server`, when its `maxConcurrentCalls` bounds them: waited
    /// for within its time limit. `None` when calls are not bounded.
    async fn turn(&self, slot: &Slot, server: &str) -> Result<Option<OwnedSemaphorePermit>, HostError> {
        let Some(turns) = &slot.turns else { return Ok(None) };
        let limit = slot.config.timeout.unwrap_or(self.options.default_timeout);
        let waited = tokio::time::timeout(limit, Arc::clone(turns).acquire_owned());
        match self.unless_closing(async { Ok(waited.await) }).await? {
            Ok(Ok(permit)) => Ok(Some(permit)),
            Ok(Err(_closed)) => Err(HostError::ShutDown),
            Err(_elapsed) => Err(HostError::Busy {
                server: server.to_owned(),
                limit: slot.config.max_concurrent_calls.unwrap_or_default(),
                waited: limit,
            }),
        }
    }

    /// The connection to `server`, or why there is none.
    fn client(&self, server: &str) -> Result<Arc<Client>, HostError> {
        self.slot(server)?.client(server)
    }
}

impl Slot {
    /// Server `config`, not connected yet, stopped with the host.
    fn new(config: ServerConfig, shared: &Shared) -> Self {
        let state = SlotState {
            state: ServerState::Connecting,
            client: None,
            listing: None,
            last_error: None,
            restarts: 0,
        };
        let turns = config.max_concurrent_calls.map(|limit| Arc::new(Semaphore::new(limit)));
        let circuit = config
            .circuit_breaker
            .or(shared.options.circuit_breaker)
            .filter(|policy| policy.failures > 0)
            .map(|policy| Arc::new(Circuit::new(policy)));
        Self {
            config,
            state: Mutex::new(state),
            lost: tokio::sync::Notify::new(),
            turns,
            circuit,
            stop: shared.closing.child_token(),
            calls: TaskTracker::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connection to this server (`name`), or why there is none.
    fn client(&self, name: &str) -> Result<Arc<Client>, HostError> {
        let state = self.state();
        match &state.client {
            Some(client) => Ok(Arc::clone(client)),
            None => Err(HostError::Unavailable {
                server: name.into(),
                state: state.state,
                last_error: state.last_error.clone(),
            }),
        }
    }

    /// A call to this server (`name`) let through its circuit — `None` when it has none — or
    /// refused while the circuit is open.
    fn admit(&self, name: &str) -> Result<Option<Admitted>, HostError> {
        let Some(circuit) = &self.circuit else { return Ok(None) };
        circuit.admit().map(Some).map_err(|refusal| HostError::CircuitOpen { server: name.into(), refusal })
    }

    /// The server connected (again, when `restarted`) offering `listing`.
    fn connected(&self, client: &Arc<Client>, listing: Listing, restarted: bool) {
        // A loss told of the connection before is not this one's.
        let _ = futures::FutureExt::now_or_never(self.lost.notified());
        let mut state = self.state();
        state.state = ServerState::Connected;
        state.client = Some(Arc::clone(client));
        state.listing = Some(listing);
        state.restarts += u32::from(restarted);
        // The server is back: calls go through again.
        if let Some(circuit) = &self.circuit {
            circuit.close();
        }
    }

    /// The server listed its tools and prompts again.
    fn refreshed(&self, listing: Listing) {
        self.state().listing = Some(listing);
    }

    /// The connection is gone; the server is now `state`. A restarting server keeps its
    /// tools listed; any other loses them.
    fn disconnect(&self, state: ServerState) {
        let mut slot = self.state();
        slot.state = state;
        slot.client = None;
        if state != ServerState::Restarting {
            slot.listing = None;
        }
    }

    fn record_error(&self, error: String) {
        self.state().last_error = Some(error);
    }
}
