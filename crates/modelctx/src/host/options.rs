//! How a host connects, restarts, limits and approves.

use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::types::{Implementation, LoggingLevel};

use super::ApprovalHook;
use crate::client::{ClientHandlers, ClientOptions, HttpAuth};

/// How a host runs its servers.
#[derive(Clone, Debug)]
pub struct HostOptions {
    /// The options each client starts from (identity, era, handlers, shutdown grace). Its
    /// `request_timeout` is replaced by each server's own time limit.
    pub client: ClientOptions,
    /// The time limit of each request to a server whose entry has no `timeoutMs`. Default
    /// 60 s.
    pub default_timeout: Duration,
    /// How long connecting to one server (spawning it, settling the era, listing its tools)
    /// may take before that attempt fails. Default 30 s.
    pub connect_timeout: Duration,
    /// How crashed stdio servers are restarted.
    pub restart: RestartPolicy,
    /// Asked before calls to destructive or open-world tools. Without a hook such calls are
    /// denied ([`ApprovalHook::approve_all`] lets them all through).
    pub approval: Option<ApprovalHook>,
    /// The longest tool name the registry gives out (at least 16). Default 64, what model
    /// APIs commonly accept.
    pub max_tool_name_len: usize,
    /// The handlers each server's client gets, made from the server's name (so that a
    /// question a server asks can say which server asks it, ELIC-02); `client.handlers`
    /// when unset.
    pub handlers_for: Option<HandlersFor>,
    /// The credentials of each HTTP server, from its name (OAuth tokens kept by a login, say),
    /// in place of `client.auth`; a server it gives none keeps `client.auth`. A server's
    /// `headers` are sent besides.
    pub auth_for: Option<AuthFor>,
    /// The log level asked of each 2025-11-25 server that offers logging, as it connects
    /// (`logging/setLevel`; a 2026-07-28 request carries its own). Default none: such servers
    /// send no log messages unless they choose to.
    pub log_level: Option<LoggingLevel>,
    /// The circuit breaker of each server whose entry has no `circuitBreaker`. Default none:
    /// calls are sent whatever came of the last ones (a server that is not connected still
    /// fails them at once).
    pub circuit_breaker: Option<super::CircuitPolicy>,
}

/// Gives a server's credentials from its name ([`HostOptions::auth_for`]).
#[derive(Clone)]
pub struct AuthFor(pub(crate) Arc<FindAuth>);

/// What an [`AuthFor`] calls.
type FindAuth = dyn Fn(&str) -> Option<Arc<dyn HttpAuth>> + Send + Sync;

impl AuthFor {
    /// Credentials looked up by `find` from each server's name.
    pub fn new(find: impl Fn(&str) -> Option<Arc<dyn HttpAuth>> + Send + Sync + 'static) -> Self {
        Self(Arc::new(find))
    }
}

impl std::fmt::Debug for AuthFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuthFor(..)")
    }
}

/// Makes a server's client handlers from its name ([`HostOptions::handlers_for`]).
#[derive(Clone)]
pub struct HandlersFor(pub(crate) Arc<dyn Fn(&str) -> ClientHandlers + Send + Sync>);

impl HandlersFor {
    /// Handlers made by `make` from each server's name.
    pub fn new(make: impl Fn(&str) -> ClientHandlers + Send + Sync + 'static) -> Self {
        Self(Arc::new(make))
    }
}

impl std::fmt::Debug for HandlersFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HandlersFor(..)")
    }
}

impl HostOptions {
    /// Defaults for a host whose clients identify as `info`.
    pub fn new(info: Implementation) -> Self {
        Self {
            client: ClientOptions::new(info),
            default_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            restart: RestartPolicy::default(),
            approval: None,
            max_tool_name_len: 64,
            handlers_for: None,
            auth_for: None,
            log_level: None,
            circuit_breaker: None,
        }
    }

    /// Declares to every server that this host shows apps (MCP Apps,
    /// `io.modelcontextprotocol/ui` with its MIME type): servers then list the tools only an
    /// app may call, for [`super::Host::call_from_app`].
    pub fn show_apps(mut self) -> Self {
        let apps = modelctx_protocol::apps::client_settings();
        self.client.handlers = self.client.handlers.extension(modelctx_protocol::apps::EXTENSION_ID, apps);
        self
    }

    /// Sets the approval hook.
    pub fn approval(mut self, hook: ApprovalHook) -> Self {
        self.approval = Some(hook);
        self
    }
}

/// Restarts of a stdio server that exited on its own, with exponential backoff.
///
/// After the `n`th consecutive failure (an exit, or an attempt to start again that failed)
/// the host waits `min(initial_delay × 2^(n-1), max_delay)` and starts the server again;
/// after `max_attempts` consecutive failures it gives up and the server is `failed`. A server
/// that stayed connected for `reset_after` has its count start again from zero when it next
/// exits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Restart attempts in a row before giving up (0: never restart). Default 5.
    pub max_attempts: u32,
    /// The wait before the first attempt. Default 250 ms.
    pub initial_delay: Duration,
    /// The longest wait. Default 30 s.
    pub max_delay: Duration,
    /// How long a server must stay up for its failures to be forgotten. Default 60 s.
    pub reset_after: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(30),
            reset_after: Duration::from_secs(60),
        }
    }
}

impl RestartPolicy {
    /// Never restart.
    pub fn never() -> Self {
        Self { max_attempts: 0, ..Self::default() }
    }

    /// The wait before attempt `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(31);
        self.initial_delay.saturating_mul(1 << doublings).min(self.max_delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_up_to_the_cap() {
        let policy = RestartPolicy {
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
            ..RestartPolicy::default()
        };
        let delays: Vec<u128> = (1..=6).map(|n| policy.delay(n).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(policy.delay(u32::MAX), Duration::from_secs(1));
    }
}
