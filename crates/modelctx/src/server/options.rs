//! Server options: page size, default cache hints, limits.

use std::time::Duration;

use modelctx_protocol::jsonrpc::ParseLimits;
use modelctx_protocol::v2026::CacheScope;

/// The cache hints put on cacheable 2026-07-28 results (`ttlMs`, `cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheDefaults {
    /// How long results stay fresh. Default 0: always re-fetch.
    pub ttl_ms: u64,
    /// Who may reuse them. Default private: only the same authorization context.
    pub scope: CacheScope,
}

impl Default for CacheDefaults {
    fn default() -> Self {
        Self { ttl_ms: 0, scope: CacheScope::Private }
    }
}

/// Every limit of a connection, in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Message size and JSON nesting limits.
    pub parse: ParseLimits,
    /// Requests that run at once on one connection; more wait their turn. Default 64.
    pub max_in_flight: usize,
    /// Requests that may wait for a turn; beyond that a request is refused at once with an
    /// error (and the connection reads on). Default 1024.
    pub max_queued: usize,
    /// How long in-flight requests may finish after the input ends or SIGTERM arrives before
    /// they are cancelled. Default 5 s.
    pub shutdown_grace: Duration,
    /// How long a legacy server-to-client request (elicitation, sampling, roots) waits for
    /// the client's answer. Default 5 minutes (a person may be answering).
    pub client_request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            parse: ParseLimits::default(),
            max_in_flight: 64,
            max_queued: 1024,
            shutdown_grace: Duration::from_secs(5),
            client_request_timeout: Duration::from_secs(300),
        }
    }
}

/// Options of a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerOptions {
    /// Items per page of every list method. Default 100.
    pub page_size: usize,
    /// Cache hints for 2026-07-28 results.
    pub cache: CacheDefaults,
    /// Connection limits.
    pub limits: Limits,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self { page_size: 100, cache: CacheDefaults::default(), limits: Limits::default() }
    }
}
