//! Serving the MCP endpoint on a TCP listener with hyper: HTTP/1.1 with keep-alive and a
//! header-read timeout, and HTTP/2 with prior knowledge (h2c, what proxies and balancers
//! speak to back ends) on the same port, told apart by the connection's first bytes;
//! `TCP_NODELAY`, connections closed when silent or idle (`idle`), and a graceful shutdown.
//! With the `http-sse` feature, [`serve_http_with_sse`] also serves the deprecated HTTP+SSE
//! transport (`/sse`, `/messages`) on the same listener.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::FuturesUnordered;
use futures::{FutureExt as _, StreamExt as _};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::body::empty;
use super::idle::{Activity, Tracked, Watched};
use super::listens::ConnectionListens;
use super::{HttpOptions, McpBody, McpHttp};
use crate::server::Server;
#[cfg(feature = "http-sse")]
use crate::transport::http_sse::{MESSAGES_PATH, McpSse, SSE_PATH};

/// The first wait after a failed `accept`; it doubles up to [`ACCEPT_BACKOFF_MAX`].
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);

/// The longest wait after failed `accept`s in a row.
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The path the endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// What one listener serves, for [`serve_http_at`]: a server at `/mcp`, more servers at paths
/// of their own (each endpoint with its own sessions, all with the same options), and — with
/// the `http-sse` feature, when asked — the deprecated HTTP+SSE transport of the first.
pub struct McpEndpoints {
    server: Server,
    more: Vec<(String, Server)>,
    #[cfg(feature = "http-sse")]
    sse: bool,
}

impl McpEndpoints {
    /// `server` at `/mcp`.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            more: Vec::new(),
            #[cfg(feature = "http-sse")]
            sse: false,
        }
    }

    /// `server` also, at `path` (`/mcp/NAME`, say): the same endpoint as `/mcp` is, for it.
    pub fn at(mut self, path: impl Into<String>, server: Server) -> Self {
        self.more.push((path.into(), server));
        self
    }

    /// The deprecated HTTP+SSE transport of the `/mcp` server too, at `/sse` and `/messages`
    /// (as [`serve_http_with_sse`] serves it).
    #[cfg(feature = "http-sse")]
    pub fn with_sse(mut self) -> Self {
        self.sse = true;
        self
    }
}

/// [`McpEndpoints`] as they are served.
#[derive(Clone)]
struct Endpoints {
    mcp: McpHttp,
    more: Arc<[(String, McpHttp)]>,
    #[cfg(feature = "http-sse")]
    sse: Option<McpSse>,
}

impl Endpoints {
    fn new(endpoints: McpEndpoints, options: &HttpOptions) -> Self {
        let more =
            endpoints.more.into_iter().map(|(path, server)| (path, McpHttp::new(server, options.clone())));
        Self {
            #[cfg(feature = "http-sse")]
            sse: endpoints.sse.then(|| McpSse::new(endpoints.server.clone(), options.clone())),
            mcp: McpHttp::new(endpoints.server, options.clone()),
            more: more.collect(),
        }
    }

    /// Every MCP endpoint.
    fn all(&self) -> impl Iterator<Item = &McpHttp> {
        std::iter::once(&self.mcp).chain(self.more.iter().map(|(_, endpoint)| endpoint))
    }

    /// The endpoint at `path`.
    fn at(&self, path: &str) -> Option<&McpHttp> {
        if path == MCP_PATH {
            return Some(&self.mcp);
        }
        self.more.iter().find(|(at, _)| at == path).map(|(_, endpoint)| endpoint)
    }

    /// Answers `request`, one of a connection whose `subscriptions/listen` streams `listens`
    /// counts.
    async fn handle(
        &self,
        request: Request<Incoming>,
        listens: &Arc<ConnectionListens>,
    ) -> Response<McpBody> {
        let path = request.uri().path();
        if self.mcp.serves_path(path) {
            return self.mcp.handle_on(request, Some(listens)).await;
        }
        if let Some(endpoint) = self.at(path) {
            return endpoint.handle_on(request, Some(listens)).await;
        }
        #[cfg(feature = "experimental")]
        if let Some(response) = self.cards(&request) {
            return response;
        }
        // The deprecated transport has no authorization: with an authenticator it is not
        // offered at all, rather than be a way around it.
        #[cfg(feature = "http-sse")]
        if let Some(sse) = &self.sse
            && (path == SSE_PATH || path == MESSAGES_PATH)
            && !self.mcp.authenticates()
        {
            return sse.route(request).await;
        }
        empty(StatusCode::NOT_FOUND)
    }

    /// A card (`<endpoint>/server-card`, answered by its endpoint) or the catalog of them all
    /// (`/.well-known/ai-catalog.json`); `None` for any other path.
    #[cfg(feature = "experimental")]
    fn cards(&self, request: &Request<Incoming>) -> Option<Response<McpBody>> {
        use modelctx_protocol::server_card::{CARD_SUFFIX, CATALOG_PATH};
        let path = request.uri().path();
        if path == CATALOG_PATH {
            let more = self.more.iter().map(|(path, endpoint)| (path.as_str(), endpoint.server()));
            let all = std::iter::once((MCP_PATH, self.mcp.server())).chain(more);
            return Some(super::card::catalog(request, all));
        }
        let endpoint = self.at(path.strip_suffix(CARD_SUFFIX)?)?;
        super::card::answer(endpoint.server(), request)
    }

    fn close_streams(&self) {
        self.all().for_each(McpHttp::close_streams);
        #[cfg(feature = "http-sse")]
        if let Some(sse) = &self.sse {
            sse.close_streams();
        }
    }

    fn cancel_requests(&self) {
        self.all().for_each(McpHttp::cancel_requests);
        #[cfg(feature = "http-sse")]
        if let Some(sse) = &self.sse {
            sse.cancel_requests();
        }
    }
}

/// Serves `server` at `/mcp` on `listener` until `shutdown` completes; then stops accepting,
/// ends long-lived streams, lets open connections finish within
/// [`crate::server::Limits::shutdown_grace`] and cancels the requests still running.
pub async fn serve_http(
    server: Server,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_http_at(McpEndpoints::new(server), listener, options, shutdown).await
}

/// Serves `endpoints` on `listener` until `shutdown` completes, as [`serve_http`] serves one
/// server (the grace period is the `/mcp` server's).
pub async fn serve_http_at(
    endpoints: McpEndpoints,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let grace = endpoints.server.options().limits.shutdown_grace;
    serve_endpoints(Endpoints::new(endpoints, &options), listener, &options, grace, shutdown).await
}

/// [`serve_http`], and the deprecated HTTP+SSE transport (2024-11-05) for old clients on the
/// same listener: the stream at `/sse` and its messages at `/messages`
/// (`modelctx::transport::http_sse`). Not offered when `options` has an authenticator: the
/// old transport has no authorization, and would be a way around it.
#[cfg(feature = "http-sse")]
pub async fn serve_http_with_sse(
    server: Server,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_http_at(McpEndpoints::new(server).with_sse(), listener, options, shutdown).await
}

/// One accepted connection: what it serves, with what, and the signal to close.
struct Connection {
    endpoint: Endpoints,
    builder: Arc<auto::Builder<TokioExecutor>>,
    stop: CancellationToken,
}

impl Connection {
    /// Serves `stream` until the peer closes it; closes it gracefully (requests in flight
    /// finish) at shutdown, when no request began within `header`, when none has been open
    /// for `idle`, or when an HTTP/1 request's head has taken longer than `header`
    /// ([`Activity::idle`]).
    async fn serve(self, stream: TcpStream, (header, idle): (Duration, Duration)) {
        let activity = Arc::new(Activity::default());
        let service = connection_service(self.endpoint, activity.clone());
        let stream = Watched::new(stream, activity.clone());
        let connection = self.builder.serve_connection(TokioIo::new(stream), service);
        tokio::pin!(connection);
        // A close for silence has a deadline of its own: HTTP/2's graceful close waits for
        // the peer to answer a ping, which a silent peer never does. The two signals are
        // polled only once one has woken the task (a future in a `FuturesUnordered` is polled
        // when its own waker fired), not at every request's wake-up: that was about 1,800
        // instructions a request.
        let mut close: FuturesUnordered<Pin<Box<dyn Future<Output = Option<Duration>> + Send + '_>>> =
            FuturesUnordered::new();
        close.push(Box::pin(self.stop.cancelled().map(|()| None)));
        close.push(Box::pin(activity.idle(header, idle).map(move |()| Some(header))));
        let deadline = tokio::select! {
            biased;
            ended = connection.as_mut() => return log_end(ended),
            Some(deadline) = close.next() => deadline,
        };
        drop(close);
        connection.as_mut().graceful_shutdown();
        match deadline {
            None => log_end(connection.await),
            Some(deadline) => {
                if let Ok(ended) = tokio::time::timeout(deadline, connection).await {
                    log_end(ended);
                }
            }
        }
    }
}

/// What answers the requests of one connection: `endpoint`, each request counted in
/// `activity` while it is open and given the connection's `subscriptions/listen` count.
fn connection_service(
    endpoint: Endpoints,
    activity: Arc<Activity>,
) -> impl hyper::service::Service<
    Request<Incoming>,
    Response = Response<Tracked<McpBody>>,
    Error = Infallible,
    Future = impl Future<Output = Result<Response<Tracked<McpBody>>, Infallible>> + Send + 'static,
> + Clone
+ Send
+ 'static {
    let listens = Arc::new(ConnectionListens::default());
    let service = move |request: Request<Incoming>| {
        let (endpoint, listens) = (endpoint.clone(), Arc::clone(&listens));
        let open = activity.begin();
        async move {
            let response = endpoint.handle(request, &listens).await;
            Ok::<_, Infallible>(response.map(|body| Tracked::new(body, open)))
        }
    };
    hyper::service::service_fn(service)
}

/// Serves `endpoints` over one HTTP/2 connection carried by `io` (HTTP over stdio: the
/// process's stdin and stdout) until the peer closes it or `shutdown` completes; then ends
/// long-lived streams, lets the requests in flight finish within the grace period and cancels
/// the rest. No idle timeout applies: the peer holds the pipe for as long as it wants the
/// server.
#[cfg(feature = "stdio-v2")]
pub(crate) async fn serve_pipe<Io>(
    endpoints: McpEndpoints,
    io: Io,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()>,
) where
    Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let grace = endpoints.server.options().limits.shutdown_grace;
    let endpoint = Endpoints::new(endpoints, options);
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder.timer(TokioTimer::new()).max_concurrent_streams(options.max_streams_per_connection);
    let service = connection_service(endpoint.clone(), Arc::new(Activity::default()));
    let connection = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    tokio::select! {
        ended = connection.as_mut() => log_end(ended),
        () = shutdown => {
            endpoint.close_streams();
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(grace, connection).await {
                Ok(ended) => log_end(ended),
                Err(_) => tracing::info!("requests still open after the grace period were dropped"),
            }
        }
    }
    endpoint.close_streams();
    endpoint.cancel_requests();
}

/// Logs how a connection ended when it was not cleanly.
fn log_end<E: std::fmt::Display>(ended: Result<(), E>) {
    if let Err(e) = ended {
        tracing::debug!(error = %e, "a connection ended with an error");
    }
}

/// Serves `endpoint` on `listener` until `shutdown`, then shuts down gracefully.
async fn serve_endpoints(
    endpoint: Endpoints,
    listener: TcpListener,
    options: &HttpOptions,
    grace: std::time::Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // A request head's time is bounded by the connection's watch (`idle::Activity`), not by
    // hyper's per-request timer.
    builder.http1().header_read_timeout(None).keep_alive(true);
    builder.http2().timer(TokioTimer::new()).max_concurrent_streams(options.max_streams_per_connection);
    let builder = Arc::new(builder);
    let connections = Arc::new(Semaphore::new(options.max_connections.max(1)));
    let stop = CancellationToken::new();
    let open = TaskTracker::new();
    let deadlines = (options.header_read_timeout, options.idle_timeout);
    tokio::pin!(shutdown);
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        // A place first: at the connection bound the listener waits, and the kernel's
        // backlog holds new connections until one closes.
        let place = tokio::select! {
            place = connections.clone().acquire_owned() => place.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors (EMFILE) or the like: wait before trying again,
                    // rather than spin.
                    tracing::warn!(error = %e, retry_in = ?backoff, "accepting a connection failed");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = &mut shutdown => break,
                    }
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        backoff = ACCEPT_BACKOFF_MIN;
        let _ = stream.set_nodelay(true);
        let connection =
            Connection { endpoint: endpoint.clone(), builder: builder.clone(), stop: stop.clone() };
        open.spawn(async move {
            connection.serve(stream, deadlines).await;
            drop(place);
        });
    }
    endpoint.close_streams();
    stop.cancel();
    open.close();
    if tokio::time::timeout(grace, open.wait()).await.is_err() {
        tracing::info!("connections still open after the grace period were dropped");
    }
    endpoint.cancel_requests();
    Ok(())
}
