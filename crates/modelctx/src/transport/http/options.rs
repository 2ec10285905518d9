//! Options of the HTTP transport.

use std::sync::Arc;
use std::time::Duration;

use super::authn::Authenticator;
use super::store::HttpStores;

/// What is HTTP's own: how the MCP endpoint guards itself, its body and header bounds, and
/// how long legacy sessions live. The request limits (turns, queue, time limit, shutdown
/// grace) are the server's [`crate::server::Limits`], the same on every transport.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// Extra allowed `Origin`s (`https://app.example.com`); loopback origins are always
    /// allowed. A request with any other `Origin` is refused with 403 (DNS-rebinding
    /// protection, HTTP-02/03).
    pub allowed_origins: Vec<String>,
    /// Extra allowed `Host` names; loopback names are always allowed.
    pub allowed_hosts: Vec<String>,
    /// Largest accepted request body; larger bodies get 413. Default 4 MiB.
    pub max_body_bytes: usize,
    /// Time a client has to send an HTTP/1 request's headers, and a new connection to begin
    /// its first request (silent sockets would otherwise hold the places of
    /// `max_connections`): a connection that has not is closed, within a quarter more.
    /// Default 10 s.
    pub header_read_timeout: Duration,
    /// Time a client has to send a request's body once its headers are in; a slower one
    /// gets 408. Default 30 s.
    pub body_read_timeout: Duration,
    /// The bytes of every request body being read at once on the endpoint: a body holds its
    /// share as its bytes arrive, until it is read; one that finds no room is answered 503.
    /// Never less than `max_body_bytes`. Default 64 MiB.
    pub max_reading_bytes: usize,
    /// A connection with no request open for this long (HTTP/1.1 keep-alive between
    /// requests, HTTP/2 with no stream) is closed gracefully, within a quarter more. An open
    /// SSE stream is a request: it keeps its connection. Default 60 s.
    pub idle_timeout: Duration,
    /// Most connections open at once; past it the listener stops accepting until one
    /// closes (the kernel's backlog holds the rest). Default 1024.
    pub max_connections: usize,
    /// Most requests one HTTP/2 connection may have open at once (its
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`); a client opening more is refused the extra streams.
    /// Default 256.
    pub max_streams_per_connection: u32,
    /// `subscriptions/listen` (and, experimental, `events/stream`) streams of stateless
    /// 2026-07-28 requests one connection may hold open (when served by `serve_http`), within the endpoint's
    /// `Limits::max_subscriptions` for all of them: more are refused `503`, so that a few
    /// connections cannot hold every place. Default 32.
    pub max_listens_per_connection: usize,
    /// Legacy sessions idle longer than this are forgotten (then 404). Default 30 minutes.
    pub session_idle_timeout: Duration,
    /// Most legacy sessions at once; an `initialize` beyond that evicts the least recently
    /// used session (its client gets 404 and opens a new one). The same bound holds the
    /// sessions of the deprecated HTTP+SSE transport: a new stream beyond it ends the session
    /// whose client posted least recently. Default 1024.
    pub max_sessions: usize,
    /// Where legacy sessions and their stream events are kept; `None` for in-memory stores
    /// bounded by `session_idle_timeout` and `max_sessions`. Instances given the same stores
    /// serve the same sessions.
    pub stores: Option<HttpStores>,
    /// Who may call the endpoint: every request's access token is verified into the
    /// request's principal (or refused `401`), the protected resource metadata is served,
    /// and the scopes definitions require are enforced (`403`). `None` (the default) lets
    /// every request in, as a local server on loopback would.
    pub authenticator: Option<Arc<dyn Authenticator>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_reading_bytes: 64 * 1024 * 1024,
            max_connections: 1024,
            max_streams_per_connection: 256,
            max_listens_per_connection: 32,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 1024,
            stores: None,
            authenticator: None,
        }
    }
}
