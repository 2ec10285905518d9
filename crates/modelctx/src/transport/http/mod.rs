//! The Streamable HTTP transport, server side: both eras on one endpoint.
//!
//! Every POST is routed by the era router (CHECKLIST §10.3): modern requests are served
//! statelessly and answered with JSON, or with a per-request SSE stream when the handler
//! sends progress or log notifications first; closing that stream cancels the handler.
//! `initialize` opens a legacy session (`Mcp-Session-Id`); its requests may receive live
//! server-to-client requests on their stream, answered by POST; GET opens the session's
//! standalone stream and DELETE ends the session.
//!
//! [`McpHttp`] is a `tower::Service` to mount in an app; [`serve_http`] runs it on a listener.

mod authn;
pub(crate) mod body;
#[cfg(feature = "experimental")]
mod card;
#[cfg(feature = "experimental")]
mod etag;
mod events;
pub(crate) mod guard;
mod idle;
mod listens;
#[cfg(feature = "experimental")]
mod lists;
mod live;
mod names;
mod options;
mod post;
mod relay;
mod serve;
mod session;
pub(crate) mod sessions;
mod store;
mod stream;

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::combinators::UnsyncBoxBody;
use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::era::{HttpMethod, PeerState, StreamRoute, route_http_stream};
use modelctx_protocol::jsonrpc::ErrorObject;

use crate::server::Server;
use crate::server::exchange::{Exchange, Lifecycle};

pub use authn::{Authenticator, Denial, RequestHead};
pub use options::HttpOptions;
#[cfg(feature = "http-sse")]
pub use serve::serve_http_with_sse;
#[cfg(feature = "stdio-v2")]
pub(crate) use serve::serve_pipe;
pub use serve::{MCP_PATH, McpEndpoints, serve_http, serve_http_at};
pub use store::{
    EventLimits, EventStore, HttpStores, MemoryEventStore, MemorySessionStore, Replay, SessionStore,
    StoreError, StoreFuture,
};

use body::{BodyReader, error_response};
use listens::ConnectionListens;
use sessions::{Sessions, store_unavailable};

/// The response body of the MCP endpoint: JSON, or an SSE stream.
pub type McpBody = UnsyncBoxBody<Bytes, Infallible>;

/// The MCP endpoint as a `tower::Service` (and so a hyper service or an axum route).
#[derive(Clone)]
pub struct McpHttp {
    inner: Arc<Shared>,
}

struct Shared {
    /// The request lifecycle of the endpoint, shared by every client and session.
    lifecycle: Arc<Lifecycle>,
    /// The stateless (2026-07-28) requests, each on its own POST.
    stateless: Exchange,
    options: HttpOptions,
    sessions: Sessions,
    bodies: BodyReader,
}

impl McpHttp {
    /// Serves `server` with `options`; the request limits are the server's
    /// ([`crate::server::Limits`]).
    pub fn new(server: Server, options: HttpOptions) -> Self {
        let lifecycle = Lifecycle::new(server);
        let sessions = Sessions::new(&options, lifecycle.clone());
        let stateless = lifecycle.stateless();
        let bodies = BodyReader::new(&options);
        Self { inner: Arc::new(Shared { lifecycle, stateless, options, sessions, bodies }) }
    }

    /// Ends long-lived streams (`subscriptions/listen`, session streams), as at shutdown.
    pub fn close_streams(&self) {
        self.inner.lifecycle.close();
    }

    /// Cancels every request still running, as when the grace period of shutdown is over.
    pub fn cancel_requests(&self) {
        self.inner.lifecycle.abort();
    }

    /// The server this endpoint serves.
    pub fn server(&self) -> &Server {
        self.inner.lifecycle.server()
    }

    /// Whether requests are authenticated (`HttpOptions::authenticator`).
    pub fn authenticates(&self) -> bool {
        self.inner.options.authenticator.is_some()
    }

    /// Whether `path` is one this endpoint answers besides its own: the protected resource
    /// metadata of its authenticator. Route those paths to [`McpHttp::handle`] too.
    pub fn serves_path(&self, path: &str) -> bool {
        self.inner
            .options
            .authenticator
            .as_ref()
            .is_some_and(|auth| auth.metadata_paths().iter().any(|p| p == path))
    }

    /// Handles one HTTP request to the MCP endpoint (or, with an authenticator, to its
    /// protected resource metadata; with the `experimental` feature and a server that has a
    /// card, to `<endpoint>/server-card`: route that path here too).
    pub async fn handle<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        self.handle_on(request, None).await
    }

    /// [`McpHttp::handle`] for a request of a connection this crate serves, whose
    /// `subscriptions/listen` streams `listens` counts.
    pub(crate) async fn handle_on<B>(
        &self,
        request: Request<B>,
        listens: Option<&Arc<ConnectionListens>>,
    ) -> Response<McpBody>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let shared = &self.inner;
        #[cfg(feature = "experimental")]
        if let Some(card) = card::answer(shared.lifecycle.server(), &request) {
            return card;
        }
        let mut principal = None;
        if let Some(authenticator) = &shared.options.authenticator {
            if request.method() == Method::GET && self.serves_path(request.uri().path()) {
                return authn::metadata_response(authenticator.as_ref());
            }
            let head =
                RequestHead { method: request.method(), uri: request.uri(), headers: request.headers() };
            match authenticator.authenticate(head).await {
                Ok(verified) => principal = Some(Arc::new(verified)),
                Err(denial) => return denial.response(),
            }
        }
        let (parts, body) = request.into_parts();
        let headers = names::RequestHeaders::of(&parts.headers);
        if let Err(refused) = guard::check(headers.origin, headers.host, &shared.options) {
            return guard::forbidden(&refused);
        }
        let method = match parts.method {
            Method::POST => HttpMethod::Post,
            Method::GET => HttpMethod::Get,
            Method::DELETE => HttpMethod::Delete,
            _ => HttpMethod::Other,
        };
        #[cfg(feature = "experimental")]
        if method == HttpMethod::Get
            && shared.lifecycle.server().serves_lists_over_get()
            && let Some(query) = modelctx_protocol::http_lists::parse_query(parts.uri.query())
        {
            return lists::answer(shared, &parts, query, principal).await;
        }
        if method == HttpMethod::Post {
            let bytes = match shared.bodies.read(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            return post::handle(shared, headers, &bytes, principal, listens).await;
        }
        let session = match shared.sessions.lookup(headers.session_id, principal.as_deref()).await {
            Ok(session) => session,
            Err(e) => return store_unavailable(None, &e),
        };
        let peer = session.as_ref().map_or_else(|lookup| lookup.peer(), |s| PeerState::Session(s.version()));
        // The origin was checked above, for every method.
        let route = route_http_stream(method, true, &peer, shared.lifecycle.server().versions());
        if let (StreamRoute::OpenStream(_) | StreamRoute::EndSession, PeerState::Session(version)) =
            (&route, peer)
            && let Some(error) = version_refusal(headers.protocol_version, version)
        {
            return error_response(400, None, error);
        }
        match route {
            StreamRoute::Reject(rejection) => error_response(rejection.status, None, rejection.error),
            StreamRoute::OpenStream(_) => match session {
                Ok(session) => stream::open(shared, session, &parts.headers).await,
                Err(_) => unreachable!("a stream opens only for a known session"),
            },
            StreamRoute::EndSession => {
                if let Ok(session) = session
                    && let Err(e) = shared.sessions.remove(&session).await
                {
                    return store_unavailable(None, &e);
                }
                body::empty(http::StatusCode::OK)
            }
        }
    }
}

/// Why a GET or DELETE of a session at `version` is refused (`400`): like a POST, it may name
/// no version (the one `initialize` negotiated holds) but not an invalid or another one
/// (HTTP-43).
fn version_refusal(sent: Option<&http::HeaderValue>, version: ProtocolVersion) -> Option<ErrorObject> {
    let sent = sent?;
    (sent.to_str().ok().and_then(ProtocolVersion::parse) != Some(version)).then(|| {
        ErrorObject::invalid_request(format!(
            "MCP-Protocol-Version {sent:?} differs from the session's negotiated {version}"
        ))
    })
}

super::service_via_handle!(McpHttp);
