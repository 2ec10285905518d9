//! The gateway: every server of a [`Host`] served as one MCP server (feature `host`).
//!
//! ```no_run
//! use modelctx::gateway::{Gateway, GatewayOptions};
//! use modelctx::host::HostConfig;
//! use modelctx::protocol::types::Implementation;
//! use modelctx::transport::http::{HttpOptions, serve_http};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let config = HostConfig::load("gateway.json")?;
//! let gateway = Gateway::start(config, GatewayOptions::new(Implementation::new("gateway", "1"))).await?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! serve_http(gateway.server().clone(), listener, HttpOptions::default(), modelctx::transport::terminated()).await?;
//! gateway.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! The gateway is the library's [`Host`] in front of its [`Server`]; it has no protocol code
//! of its own. So each side speaks its own era: a client of the gateway may speak 2026-07-28
//! or 2025-11-25 (sessions) whatever each backend speaks.
//!
//! - **Names.** The server lists the host's registry: tools and prompts under their registry
//!   names (`{prefix}__{name}`, the prefix being the backend's `prefix` field, by default its
//!   name; `""` keeps the backend's own names), resources under their host URIs, templates
//!   under host templates (see [`crate::host::resource_uri`]). Tools a backend's `allowTools`
//!   or `denyTools` leave out are not listed and cannot be called.
//! - **Changes.** When the registry changes (a backend's list change, a restart, a backend
//!   lost), the server's definitions follow, and the gateway's clients hear the list
//!   changes they asked for.
//! - **Credentials.** A backend gets the headers its entry names (its own credentials), never
//!   anything of the inbound request: the gateway's client's token is not passed on (the
//!   spec's token-passthrough rule), and each backend authorizes the gateway, not the user.
//!   So who may use which backend is the gateway's to decide: with
//!   [`GatewayOptions::scopes_per_backend`], a caller's token must hold `BACKEND:read` or
//!   `BACKEND:write` ([`backend_scopes`]).
//! - **Questions.** Elicitation, sampling and roots asked by a backend during a call are asked
//!   of the gateway's client through that call (`relay.rs`): as rounds of input for a
//!   2026-07-28 client, as live requests for a 2025-11-25 one.
//! - **Progress, logs, cancellation.** The inbound request's log level and progress token go
//!   with the backend call; progress and log messages come back; cancelling the inbound
//!   request cancels the backend call (`calls.rs`).
//! - **Skills** (feature `skills`): each backend's skills, read and verified as the gateway
//!   starts, are served as the gateway's own under the backend's prefix (`skills.rs`).
//! - **Policy.** [`GatewayOptions::policy`] maps verified principals to the definitions they
//!   may list and use ([`policy`]).
//! - **Rate limits.** [`GatewayOptions::rate_limits`] give principals and tools budgets of
//!   calls, kept in [`GatewayOptions::rate_store`] — shared by every gateway that shares it
//!   ([`limits`]).
//! - **Circuits.** The host's circuit breaker ([`crate::host::CircuitPolicy`]) refuses calls to
//!   a backend that keeps failing them at once, with the time to wait, until it is back.
//! - **Virtual servers.** [`GatewayOptions::virtual_servers`] name servers beside the whole
//!   one, each exposing a chosen set of the definitions of any backends
//!   ([`virtual_servers`], [`Gateway::virtual_servers`]).
//! - **Reload.** [`Gateway::reload`] applies a new configuration, policy and rate limits to the
//!   running gateway: sessions and calls in flight go on; backends dropped or changed are
//!   stopped once their calls end.
//! - **Observers.** Each tool call, as it ends, is told to [`GatewayOptions::observers`]: who,
//!   which backend and tool, how it ended, how long it took ([`observe`]).
//! - **Approval.** The gateway is not where a person approves a tool call — its clients' hosts
//!   are — so unless [`GatewayOptions::host`] has an approval hook, every call is let through.

mod admission;
mod calls;
mod in_flight;
#[cfg(feature = "experimental")]
pub mod interceptors;
pub mod limits;
mod mirror;
pub mod observe;
pub mod policy;
mod relay;
#[cfg(feature = "skills")]
pub mod skills;
pub mod virtual_servers;

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use modelctx_protocol::types::{Implementation, LoggingLevel};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;

use crate::host::{ApprovalHook, Host, HostChange, HostConfig, HostOptions, Reconfigured};
use crate::server::{BuildError, Server, ServerBuilder, ServerOptions};
use crate::store::{MemoryRateStore, RateStore};
use limits::{Budgets, RateLimits};
use mirror::Mirror;
use observe::CallObserver;
use policy::Policy;
use virtual_servers::Selection;

/// How a gateway runs: the host behind it and the server in front.
#[derive(Clone)]
pub struct GatewayOptions {
    /// The gateway's name and version, as its clients see them.
    pub info: Implementation,
    /// The `instructions` its clients get.
    pub instructions: Option<String>,
    /// The server's options (limits, cache hints, pagination).
    pub server: ServerOptions,
    /// The host's options (time limits, restarts, name lengths). Its handlers are the
    /// gateway's own, which relay to its clients.
    pub host: HostOptions,
    /// Whether each backend's definitions need scopes of the caller's access token (over
    /// HTTP with an authenticator): `BACKEND:read` for its prompts, resources, templates and
    /// the tools that say they only read (`readOnlyHint`), `BACKEND:write` for its other tools
    /// — [`backend_scopes`]. Every backend is called with the gateway's own credentials, so
    /// without them any caller the authenticator lets in acts as the gateway on every backend.
    /// Default `false`.
    pub scopes_per_backend: bool,
    /// Told of every tool call as it ends (metrics, an audit log); none by default.
    pub observers: Vec<Arc<dyn CallObserver>>,
    /// Who may list and use which definitions ([`policy`]); without rules (the default),
    /// everyone may use everything.
    pub policy: Policy,
    /// Named servers beside the whole one, each exposing the definitions its [`Selection`]
    /// names ([`virtual_servers`]); none by default.
    pub virtual_servers: BTreeMap<String, Selection>,
    /// Budgets of tool calls per principal and per tool ([`limits`]); none by default.
    pub rate_limits: RateLimits,
    /// Where the budgets are kept: this process's memory by default; a shared store (Redis)
    /// makes every gateway that shares it keep one budget.
    pub rate_store: Arc<dyn RateStore>,
    /// A last say over the gateway's server as it is built: the stores several instances
    /// share behind a balancer (a task store, a bus, the requestState keys). None by default.
    pub configure: Option<Arc<dyn Fn(ServerBuilder) -> ServerBuilder + Send + Sync>>,
    /// The gateway's server card (server cards, experimental); each virtual server gets one
    /// of its own, named `NAME-VIRTUAL` (its public URL, if set, `URL/VIRTUAL`). None by
    /// default.
    #[cfg(feature = "experimental")]
    pub card: Option<crate::server::CardSettings>,
    /// Whether its servers serve their lists over HTTP GET too (experimental,
    /// `ServerBuilder::lists_over_get`). Off by default.
    #[cfg(feature = "experimental")]
    pub lists_over_get: bool,
    /// Whether its servers tag their definitions (experimental,
    /// `ServerBuilder::definition_tags`), outside the policies: each caller's tags cover what
    /// it may see. Off by default.
    #[cfg(feature = "experimental")]
    pub definition_tags: bool,
    /// The backends' interceptors to run around every call (experimental, SEP-2624; a
    /// config's `"interceptors"`), inside the admission layer: a call the policies refuse is
    /// not shown to them. None by default.
    #[cfg(feature = "experimental")]
    pub interceptors: Vec<interceptors::InterceptorRule>,
}

impl std::fmt::Debug for GatewayOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayOptions")
            .field("info", &self.info)
            .field("instructions", &self.instructions)
            .field("server", &self.server)
            .field("host", &self.host)
            .field("scopes_per_backend", &self.scopes_per_backend)
            .field("observers", &self.observers.len())
            .field("policy", &self.policy)
            .field("virtual_servers", &self.virtual_servers)
            .field("rate_limits", &self.rate_limits)
            .field("rate_store", &self.rate_store)
            .field("configure", &self.configure.is_some())
            .finish()
    }
}

/// The scopes of backend `server`'s definitions under [`GatewayOptions::scopes_per_backend`]:
/// `[read, write]`.
pub fn backend_scopes(server: &str) -> [String; 2] {
    [format!("{server}:read"), format!("{server}:write")]
}

impl GatewayOptions {
    /// Defaults for a gateway that calls itself `info`, to its clients and to its backends.
    pub fn new(info: Implementation) -> Self {
        Self {
            host: HostOptions::new(info.clone()),
            info,
            instructions: None,
            server: ServerOptions::default(),
            scopes_per_backend: false,
            observers: Vec::new(),
            policy: Policy::default(),
            virtual_servers: BTreeMap::new(),
            rate_limits: RateLimits::default(),
            rate_store: Arc::new(MemoryRateStore::default()),
            configure: None,
            #[cfg(feature = "experimental")]
            card: None,
            #[cfg(feature = "experimental")]
            lists_over_get: false,
            #[cfg(feature = "experimental")]
            definition_tags: false,
            #[cfg(feature = "experimental")]
            interceptors: Vec::new(),
        }
    }
}

/// A value replaced whole by a reload; each request reads the one current as it starts.
pub(crate) struct Current<T>(RwLock<Arc<T>>);

impl<T> Current<T> {
    fn new(value: T) -> Arc<Self> {
        Arc::new(Self(RwLock::new(Arc::new(value))))
    }

    /// The value now.
    pub(crate) fn get(&self) -> Arc<T> {
        Arc::clone(&self.0.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn set(&self, value: T) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(value);
    }
}

/// A host's servers behind one MCP server. See the [module docs](self).
pub struct Gateway {
    host: Arc<Host>,
    server: Server,
    virtual_servers: BTreeMap<String, Server>,
    follower: JoinHandle<()>,
    policy: Arc<Current<Policy>>,
    rate_limits: Arc<Current<RateLimits>>,
}

impl Gateway {
    /// Connects to every backend of `config` (as [`Host::start`] does) and builds the server
    /// that serves them all. Fails only when the server cannot be built.
    pub async fn start(config: HostConfig, options: GatewayOptions) -> Result<Self, BuildError> {
        let in_flight = Arc::new(in_flight::InFlight::default());
        let mut host_options = options.host;
        host_options.handlers_for = Some(relay::handlers(Arc::clone(&in_flight)));
        host_options.approval.get_or_insert_with(ApprovalHook::approve_all);
        // Every level a caller may ask for: each caller's own is applied as its lines are relayed.
        host_options.log_level.get_or_insert(LoggingLevel::Debug);
        #[cfg(feature = "skills")]
        let skill_sources = config.clone();
        let host = Arc::new(Host::start(config, host_options).await);
        // Changes from here on are followed: none made while building is missed.
        let mut changes = host.changes();
        let observers: Arc<[Arc<dyn CallObserver>]> = options.observers.into();
        // In place even without rules, so that a reload can add some.
        let (policy, rate_limits) = (Current::new(options.policy), Current::new(options.rate_limits));
        let admission = admission::AdmissionLayer {
            policy: Arc::clone(&policy),
            budgets: Budgets { limits: Arc::clone(&rate_limits), store: options.rate_store },
            host: Arc::clone(&host),
            observers: Arc::clone(&observers),
        };
        #[cfg(feature = "experimental")]
        let intercepting = match options.interceptors.as_slice() {
            [] => None,
            rules => {
                let chain = interceptors::chain(&host, rules).await.map_err(|reason| {
                    let id = modelctx_protocol::interceptors::EXTENSION_ID.to_owned();
                    crate::server::RegistrationError::Extension { id, reason }
                })?;
                Some(crate::server::interceptors::InterceptorLayer::new(chain))
            }
        };
        // Every server of the gateway — the whole one, and each virtual one — starts alike.
        let base = || {
            let builder = Server::with_info(options.info.clone()).options(options.server);
            // Inside the admission layer: the interceptors see only what the policies admit.
            #[cfg(feature = "experimental")]
            let builder = match &intercepting {
                Some(layer) => builder.layer(layer.clone()),
                None => builder,
            };
            let mut builder = builder.layer(admission.clone());
            if let Some(instructions) = &options.instructions {
                builder = builder.instructions(instructions.clone());
            }
            #[cfg(feature = "experimental")]
            if options.lists_over_get {
                builder = builder.lists_over_get();
            }
            // After the admission layer, so outside it: a tag covers what the policies let
            // the caller see.
            #[cfg(feature = "experimental")]
            if options.definition_tags {
                builder = builder.definition_tags();
            }
            match &options.configure {
                Some(configure) => configure(builder),
                None => builder,
            }
        };
        // The backends' skills are the whole gateway's.
        #[cfg(feature = "skills")]
        let (builder, relayed) = {
            let relayed = skills::relay(&host, &skill_sources).await;
            (relayed.skills.into_iter().fold(base(), ServerBuilder::skill), relayed.servers)
        };
        #[cfg(not(feature = "skills"))]
        let (builder, relayed) = (base(), std::collections::BTreeSet::new());
        #[cfg(feature = "experimental")]
        let builder = match &options.card {
            Some(card) => builder.card(card.clone()),
            None => builder,
        };
        let server = builder.build()?;
        let calls = Arc::new(calls::Calls { in_flight, observers });
        let scoped = options.scopes_per_backend;
        let mut mirrors =
            vec![(Mirror::new(Arc::clone(&calls), scoped, relayed.clone(), None), server.clone())];
        let mut virtual_servers = BTreeMap::new();
        for (name, selection) in options.virtual_servers {
            let builder = base();
            #[cfg(feature = "experimental")]
            let builder = match &options.card {
                Some(card) => builder.card(card.beside(&name)),
                None => builder,
            };
            let served = builder.build()?;
            let mirror = Mirror::new(Arc::clone(&calls), scoped, relayed.clone(), Some(selection));
            mirrors.push((mirror, served.clone()));
            virtual_servers.insert(name, served);
        }
        for (mirror, server) in &mut mirrors {
            mirror.sync(&host, server);
        }
        let follower = tokio::spawn({
            let host = Arc::clone(&host);
            async move {
                loop {
                    let change = changes.recv().await;
                    for (mirror, server) in &mut mirrors {
                        match &change {
                            Ok(HostChange::ResourceUpdated(uri)) => server.resource_updated(uri.clone()),
                            Ok(_) | Err(RecvError::Lagged(_)) => mirror.sync(&host, server),
                            Err(RecvError::Closed) => return,
                        }
                    }
                }
            }
        });
        Ok(Self { host, server, virtual_servers, follower, policy, rate_limits })
    }

    /// Applies a new configuration, policy and rate limits: the rules at once (requests
    /// already past them go on), then the backends ([`Host::reconfigure`]: unchanged ones keep
    /// their connections, dropped or changed ones are stopped once their calls end, new ones
    /// are started); returns when each new backend has connected or failed. Sessions are kept.
    /// Skills are read as the gateway starts, not again.
    pub async fn reload(&self, config: HostConfig, policy: Policy, rate_limits: RateLimits) -> Reconfigured {
        self.policy.set(policy);
        self.rate_limits.set(rate_limits);
        self.host.reconfigure(config).await
    }

    /// The server to serve (over HTTP or stdio, as any other).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// The virtual servers of [`GatewayOptions::virtual_servers`], by name: each a server to
    /// serve beside [`Gateway::server`] (`modelctx gateway` serves them at `/mcp/NAME`).
    pub fn virtual_servers(&self) -> &BTreeMap<String, Server> {
        &self.virtual_servers
    }

    /// The host behind it: its backends' states.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// Stops following the host and shuts every backend down.
    pub async fn shutdown(&self) {
        self.follower.abort();
        self.host.shutdown().await;
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.follower.abort();
    }
}
