//! The deprecated HTTP+SSE transport of 2024-11-05 (CHECKLIST HTTP-63), server side, behind
//! the `http-sse` cargo feature: for old clients only (HTTP-41: new clients use Streamable
//! HTTP, [`super::http`]).
//!
//! - `GET /sse` opens a session: the server mints a session id and answers with an SSE stream
//!   whose first event is `event: endpoint` with `data: /messages?sessionId=ID`, the URI to
//!   POST to; every message of the server (responses, notifications, server-to-client
//!   requests) follows as `event: message`.
//! - `POST /messages?sessionId=ID` carries one JSON-RPC message and is answered `202 Accepted`
//!   with no body; the reply travels on the session's stream. An unknown (or closed) session
//!   is 404, a missing `sessionId` 400, a body that is not one JSON-RPC message 400 with a
//!   JSON-RPC error, a body over [`HttpOptions::max_body_bytes`] 413.
//!
//! Each session is served by the message core that serves stdio: a POSTed message is one
//! message of the connection's input, and each message the connection writes becomes one
//! `event: message` on the stream. So `initialize`, the session requests, live
//! server-to-client requests (answered by POST), cancellation and notifications behave exactly
//! as on stdio. All sessions share the endpoint's request lifecycle (its
//! [`crate::server::Limits`]). The session ends when its stream closes (the client went
//! away): its id answers 404 from then on and its requests are cancelled. At shutdown each
//! session's requests get [`crate::server::Limits::shutdown_grace`] to finish.
//!
//! Requests pass the Origin/Host guard of Streamable HTTP (403 otherwise). [`McpSse`] is a
//! `tower::Service` that serves GET and POST whatever the path (mount it at two paths, and
//! give the POST path to [`McpSse::with_messages_path`] if it is not [`MESSAGES_PATH`]);
//! [`super::http::serve_http`] serves it at [`SSE_PATH`] and [`MESSAGES_PATH`] beside `/mcp`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject, parse_message_with};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::{Inbound, Incoming, Wire, serve_messages};
use super::http::body::{BodyReader, empty, error_response, sse_body, sse_event};
use super::http::sessions::fresh_id;
use super::http::{HttpOptions, McpBody, guard};
use crate::server::Server;
use crate::server::exchange::Lifecycle;
use crate::server::outgoing::Outgoing;
use crate::telemetry::{SessionMeasure, Side};

/// Where [`super::http::serve_http`] serves the SSE stream (GET).
pub const SSE_PATH: &str = "/sse";
/// Where [`super::http::serve_http`] takes the messages of a session (POST), and the path
/// the `endpoint` event names by default.
pub const MESSAGES_PATH: &str = "/messages";

/// Messages POSTed to a session that its connection has not read yet.
const INBOX: usize = 64;
/// How long a POST waits for room in a full inbox (the client does not read its stream)
/// before it is refused with 503.
const INBOX_WAIT: Duration = Duration::from_secs(30);
/// Messages the connection may write ahead of the stream.
const OUTBOX: usize = 256;

/// The HTTP+SSE transport as a `tower::Service` (and so a hyper service or an axum route).
#[derive(Clone)]
pub struct McpSse {
    inner: Arc<Shared>,
}

struct Shared {
    /// The request lifecycle every session shares; closing it drains every session's
    /// connection and ends its stream.
    lifecycle: Arc<Lifecycle>,
    options: HttpOptions,
    /// The POST URI the `endpoint` event names, before `?sessionId=`.
    messages_path: String,
    /// Each open session, by id.
    sessions: Mutex<HashMap<String, Live>>,
    bodies: BodyReader,
}

/// An open session: the input its connection reads, the token that ends it, and when its
/// client last posted.
struct Live {
    input: mpsc::Sender<Inbound>,
    gone: CancellationToken,
    used: Instant,
}

impl Shared {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Live>> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// At `HttpOptions::max_sessions`, ends the session whose client posted least recently, to
/// make room: a stream alone no longer holds a place for ever (1,024 silent streams refused
/// every new client with 503). Its stream ends; the client may open another.
fn make_room(sessions: &mut HashMap<String, Live>, max: usize) {
    while sessions.len() >= max.max(1) {
        let Some(oldest) = sessions.iter().min_by_key(|(_, live)| live.used).map(|(id, _)| id.clone()) else {
            return;
        };
        if let Some(live) = sessions.remove(&oldest) {
            live.gone.cancel();
        }
        tracing::info!("ending the least recently used HTTP+SSE session to make room");
    }
}

impl McpSse {
    /// Serves `server` with `options` (Origin/Host guard, body limit, most sessions at once);
    /// the `endpoint` event names [`MESSAGES_PATH`].
    pub fn new(server: Server, options: HttpOptions) -> Self {
        Self::with_messages_path(server, options, MESSAGES_PATH)
    }

    /// As [`McpSse::new`], for a service whose POST route is `messages_path` (for example
    /// `/legacy/messages`): the `endpoint` event names it.
    pub fn with_messages_path(
        server: Server,
        options: HttpOptions,
        messages_path: impl Into<String>,
    ) -> Self {
        let inner = Shared {
            lifecycle: Lifecycle::new(server),
            bodies: BodyReader::new(&options),
            options,
            messages_path: messages_path.into(),
            sessions: Mutex::new(HashMap::new()),
        };
        Self { inner: Arc::new(inner) }
    }

    /// Ends every session's stream (after its connection's grace period), as at shutdown;
    /// new streams are refused with 503.
    pub fn close_streams(&self) {
        self.inner.lifecycle.close();
    }

    /// Cancels every session's requests still running, as when the grace period of shutdown
    /// is over.
    pub fn cancel_requests(&self) {
        self.inner.lifecycle.abort();
    }

    /// The number of open sessions.
    pub fn session_count(&self) -> usize {
        self.inner.sessions().len()
    }

    /// Handles one HTTP request: GET opens a session's stream, POST delivers a message to a
    /// session; other methods get 405.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let headers = request.headers();
        let (origin, host) = (headers.get(http::header::ORIGIN), headers.get(http::header::HOST));
        if let Err(refused) = guard::check(origin, host, &self.inner.options) {
            return guard::forbidden(&refused);
        }
        match *request.method() {
            Method::GET => self.open(),
            Method::POST => self.post(request).await,
            _ => method_not_allowed("GET, POST"),
        }
    }

    /// [`super::http::serve_http`]'s routes: GET at [`SSE_PATH`], POST at [`MESSAGES_PATH`]
    /// (any other method at either is 405).
    pub(crate) async fn route<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let (expected, allow) =
            if request.uri().path() == SSE_PATH { (Method::GET, "GET") } else { (Method::POST, "POST") };
        if *request.method() != expected {
            return method_not_allowed(allow);
        }
        self.handle(request).await
    }

    /// GET: a new session, and its stream.
    fn open(&self) -> Response<McpBody> {
        let shared = &self.inner;
        if shared.lifecycle.closing().is_cancelled() {
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE.as_u16(),
                None,
                ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the server is shutting down"),
            );
        }
        let id = fresh_id();
        let (input, inbox) = mpsc::channel(INBOX);
        let gone = CancellationToken::new();
        {
            let mut sessions = shared.sessions();
            make_room(&mut sessions, shared.options.max_sessions);
            sessions.insert(id.clone(), Live { input, gone: gone.clone(), used: Instant::now() });
        }
        let (outbox, output) = mpsc::channel(OUTBOX);
        tokio::spawn(run_session(shared.clone(), id.clone(), inbox, outbox, gone.clone()));
        tracing::debug!(session = %id, "an HTTP+SSE session opened");

        let endpoint =
            Bytes::from(format!("event: endpoint\ndata: {}?sessionId={id}\n\n", shared.messages_path));
        let session = SessionGuard { shared: shared.clone(), id, gone };
        // The stream ends when the connection has finished and dropped its outbox.
        let messages = futures::stream::unfold((output, session), |(mut output, session)| async move {
            let message = output.recv().await?;
            Some((sse_event(&message), (output, session)))
        });
        sse_body(futures::stream::iter([endpoint]).chain(messages))
    }

    /// POST: one message into the named session's connection.
    async fn post<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let shared = &self.inner;
        let Some(id) = session_id(request.uri()) else {
            return error_response(
                StatusCode::BAD_REQUEST.as_u16(),
                None,
                ErrorObject::invalid_request(
                    "no sessionId in the query: POST to the URI of the stream's `endpoint` event",
                ),
            );
        };
        let input = match shared.sessions().get_mut(id) {
            Some(live) => {
                live.used = Instant::now();
                live.input.clone()
            }
            None => return unknown_session(),
        };
        let bytes = match shared.bodies.read(request.into_body()).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        // Refuse what is not one JSON-RPC message here, with 400; everything else is the
        // connection's to judge (its errors travel on the stream, as on stdio).
        let message = match parse_message_with(&bytes, &shared.lifecycle.server().options().limits.parse) {
            Ok(message) => message,
            Err(failure) => {
                return error_response(StatusCode::BAD_REQUEST.as_u16(), failure.id, failure.error);
            }
        };
        let message = Inbound { message: Ok(Incoming::Message(message)), bytes: bytes.len() };
        match tokio::time::timeout(INBOX_WAIT, input.send(message)).await {
            Ok(Ok(())) => empty(StatusCode::ACCEPTED),
            // The stream closed meanwhile.
            Ok(Err(_)) => unknown_session(),
            Err(_) => error_response(
                StatusCode::SERVICE_UNAVAILABLE.as_u16(),
                None,
                ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    "the session is not keeping up: its stream is not being read",
                ),
            ),
        }
    }
}

super::service_via_handle!(McpSse);

/// Serves one session until its stream closes (its requests are then cancelled) or the
/// service shuts down (they get the grace period), then forgets it.
async fn run_session(
    shared: Arc<Shared>,
    id: String,
    mut inbox: mpsc::Receiver<Inbound>,
    outbox: mpsc::Sender<Outgoing>,
    gone: CancellationToken,
) {
    let _session = SessionMeasure::start(Side::Server, None, "tcp");
    let exchange = shared.lifecycle.client_exchange();
    let input = futures::stream::poll_fn(move |cx| inbox.poll_recv(cx));
    let ended = async {
        tokio::select! {
            () = shared.lifecycle.closing().cancelled() => {}
            () = gone.cancelled() => {}
        }
    };
    serve_messages(exchange.clone(), Wire::HttpSse(id.clone()), input, outbox, ended).await;
    // From now on its POSTs are 404.
    shared.sessions().remove(&id);
    if gone.is_cancelled() {
        exchange.end();
    } else {
        exchange.drain().await;
    }
    tracing::debug!(session = %id, "an HTTP+SSE session closed");
}

/// Held by a session's stream: when the stream is dropped (the client went away, or the
/// connection finished) the session is forgotten and its connection shuts down.
struct SessionGuard {
    shared: Arc<Shared>,
    id: String,
    gone: CancellationToken,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.shared.sessions().remove(&self.id);
        self.gone.cancel();
    }
}

/// The `sessionId` of the query.
fn session_id(uri: &Uri) -> Option<&str> {
    uri.query()?.split('&').find_map(|pair| pair.strip_prefix("sessionId=")).filter(|id| !id.is_empty())
}

fn unknown_session() -> Response<McpBody> {
    error_response(
        StatusCode::NOT_FOUND.as_u16(),
        None,
        ErrorObject::invalid_request("no such session (its stream has closed); open a new one with GET"),
    )
}

fn method_not_allowed(allow: &'static str) -> Response<McpBody> {
    let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_id_comes_from_the_query() {
        let uri = |s: &str| s.parse::<Uri>().unwrap();
        assert_eq!(session_id(&uri("/messages?sessionId=abc")), Some("abc"));
        assert_eq!(session_id(&uri("/messages?x=1&sessionId=abc&y=2")), Some("abc"));
        assert_eq!(session_id(&uri("/messages?sessionId=")), None);
        assert_eq!(session_id(&uri("/messages")), None);
    }
}
