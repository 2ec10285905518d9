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

impl CacheDefaults {
    /// Fresh for `ttl` (to the millisecond), reusable by `scope`.
    pub fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self { ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX), scope }
    }
}

impl Default for CacheDefaults {
    fn default() -> Self {
        Self { ttl_ms: 0, scope: CacheScope::Private }
    }
}

/// Every limit of the request lifecycle, in one place, the same on every transport (the
/// HTTP-only bounds — body bytes, header time, sessions — are in `HttpOptions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Message size and JSON nesting limits.
    pub parse: ParseLimits,
    /// Requests that run at once on one endpoint — a stdio connection, or a Streamable HTTP
    /// or HTTP+SSE endpoint with all its clients; more wait their turn. Default 64.
    pub max_in_flight: usize,
    /// Turns one client of an endpoint with several — a legacy session over Streamable HTTP,
    /// an HTTP+SSE session — may hold at once; its further requests wait in its own line, so
    /// that one client (or one gone, whose 2025-11-25 work goes on: a disconnection is not a
    /// cancellation) never holds every turn. A connection's only client (stdio) takes every
    /// turn, and so do stateless 2026-07-28 requests, which each stand alone. Default 16.
    pub max_in_flight_per_client: usize,
    /// Requests that may wait for a turn. Beyond that, a connection whose peer writes into it
    /// (stdio, an HTTP+SSE session) holds further requests (up to [`Limits::max_read_ahead`])
    /// and then stops reading, so the peer's writes wait; a Streamable HTTP request is refused
    /// at once with `-32603` saying the server is busy (HTTP 503). Default 1024.
    pub max_queued: usize,
    /// The bytes of the requests let in at once on one endpoint (running or waiting for a
    /// turn, subscriptions aside), counted as they arrived: past it a request is treated as
    /// one past a full queue (held by a connection, refused `503` over Streamable HTTP). One
    /// request is always let in when none is. A message parses to up to some 17 times its
    /// bytes (a body of small numbers), which this bounds. Default 64 MiB.
    pub max_admitted_bytes: usize,
    /// Requests a connection (stdio, an HTTP+SSE session) reads past a full queue and holds, in
    /// order, until the queue has room; it reads them to let through what needs no room (a
    /// cancellation — of a held request too — or the client's answer to a question of the
    /// server). With this many held it stops reading until one is let in. The memory held is at
    /// most this many messages of [`ParseLimits::max_message_bytes`]. At least 1. Default 64.
    pub max_read_ahead: usize,
    /// Bytes of answers a newline-delimited connection (stdio) holds for a client that has not
    /// read them yet: with this many waiting, its reader reads no more until the client reads
    /// (the pipe pushes back on it). What requests running in tasks of their own send waits
    /// in the connection's outbox of 256 messages besides. Default 1 MiB.
    pub max_unwritten_bytes: usize,
    /// How long a request may take, counted from its arrival (time spent waiting for a turn
    /// included), before it is cancelled and answered with `-32603`. `subscriptions/listen`
    /// (and an `events/stream`) is exempt. Default 5 minutes; `None` for no limit.
    pub request_timeout: Option<Duration>,
    /// `subscriptions/listen` requests (and, experimental, `events/stream` ones) one client may
    /// hold open: per connection or legacy
    /// session, and per endpoint for the stateless HTTP requests. They take no turn of
    /// `max_in_flight` and do not count toward `max_queued`. The same bound holds the URIs
    /// one legacy session may `resources/subscribe` to, and the resource URIs and the task
    /// ids one `subscriptions/listen` names. Default 1024.
    pub max_subscriptions: usize,
    /// The URIs one legacy session subscribes to, or the resource URIs and task ids one
    /// `subscriptions/listen` names, in bytes in all: more is refused (`-32603` for a
    /// `resources/subscribe`, `-32602` for a listen). Default 64 KiB.
    pub max_subscription_bytes: usize,
    /// Changes one `subscriptions/listen` may have yet to deliver, coalesced (each kind of
    /// list change once, each updated URI once): a listener further behind is ended with
    /// `-32603` telling it to listen again. Default 1024.
    pub max_listener_backlog: usize,
    /// How long in-flight requests may finish after the input ends, SIGTERM arrives or the
    /// HTTP server shuts down, before they are cancelled. Default 5 s.
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
            max_in_flight_per_client: 16,
            max_queued: 1024,
            max_admitted_bytes: 64 * 1024 * 1024,
            max_read_ahead: 64,
            max_unwritten_bytes: 1024 * 1024,
            request_timeout: Some(Duration::from_secs(300)),
            max_subscriptions: 1024,
            max_subscription_bytes: 64 * 1024,
            max_listener_backlog: 1024,
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
    /// The bounds of tasks (the tasks extension).
    pub tasks: super::tasks::TaskOptions,
    /// Whether every tool's input and output schema is compiled (and checked against its
    /// meta-schema) when the tool is registered, so a broken schema fails the build. Otherwise
    /// a schema is compiled on the tool's first call, and a broken one fails that call with
    /// `-32603`. Default: on in debug builds, off in release builds, where a server's start-up
    /// (paid by every host that spawns it) matters more. Without the `validation` feature no
    /// schema is compiled, and this changes nothing.
    pub check_schemas: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            page_size: 100,
            cache: CacheDefaults::default(),
            limits: Limits::default(),
            tasks: super::tasks::TaskOptions::default(),
            check_schemas: cfg!(debug_assertions),
        }
    }
}
