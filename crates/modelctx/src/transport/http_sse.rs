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
//! Each session runs [`super::serve_connection`], the code that serves stdio, over an
//! in-memory pipe: a POSTed message becomes one line of the connection's input, and each line
//! the connection writes becomes one `event: message` on the stream. So `initialize`, the
//! session requests, live server-to-client requests (answered by POST), cancellation and
//! notifications behave exactly as on stdio. The session ends when its stream closes (the
//! client went away): its id answers 404 from then on and its requests are cancelled after
//! the connection's grace period ([`crate::server::Limits::shutdown_grace`]).
//!
//! Requests pass the Origin/Host guard of Streamable HTTP (403 otherwise). [`McpSse`] is a
//! `tower::Service` that serves GET and POST whatever the path (mount it at two paths, and
//! give the POST path to [`McpSse::with_messages_path`] if it is not [`MESSAGES_PATH`]);
//! [`super::http::serve_http`] serves it at [`SSE_PATH`] and [`MESSAGES_PATH`] beside `/mcp`.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject, parse_message_with};
use tokio::io::{AsyncRead, DuplexStream, ReadBuf};
use tokio::sync::mpsc;
use tokio_util::codec::{FramedRead, LinesCodec};
use tokio_util::sync::CancellationToken;

use super::http::body::{empty, error_response, read_limited, sse_body};
use super::http::sessions::fresh_id;
use super::http::{HttpOptions, McpBody, guard};
use super::serve_connection;
use crate::server::Server;

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
/// Bytes the connection may write ahead of the stream.
const OUTPUT_PIPE: usize = 64 * 1024;

/// The HTTP+SSE transport as a `tower::Service` (and so a hyper service or an axum route).
#[derive(Clone)]
pub struct McpSse {
    inner: Arc<Shared>,
}

struct Shared {
    server: Server,
    options: HttpOptions,
    /// The POST URI the `endpoint` event names, before `?sessionId=`.
    messages_path: String,
    /// Each open session's input: the lines its connection reads.
    sessions: Mutex<HashMap<String, mpsc::Sender<Bytes>>>,
    /// Tripped at shutdown: every session's connection drains and its stream ends.
    closing: CancellationToken,
}

impl Shared {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, mpsc::Sender<Bytes>>> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
            server,
            options,
            messages_path: messages_path.into(),
            sessions: Mutex::new(HashMap::new()),
            closing: CancellationToken::new(),
        };
        Self { inner: Arc::new(inner) }
    }

    /// Ends every session's stream (after its connection's grace period), as at shutdown;
    /// new streams are refused with 503.
    pub fn close_streams(&self) {
        self.inner.closing.cancel();
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
        if !guard::allowed(request.headers(), &self.inner.options) {
            return guard::forbidden();
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
        if shared.closing.is_cancelled() {
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE.as_u16(),
                None,
                ErrorObject::new(ErrorCode::INTERNAL_ERROR, "the server is shutting down"),
            );
        }
        let id = fresh_id();
        let (input, inbox) = mpsc::channel(INBOX);
        {
            let mut sessions = shared.sessions();
            if sessions.len() >= shared.options.max_sessions {
                return error_response(
                    StatusCode::SERVICE_UNAVAILABLE.as_u16(),
                    None,
                    ErrorObject::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!(
                            "this server holds its maximum of {} sessions; try again later",
                            shared.options.max_sessions
                        ),
                    ),
                );
            }
            sessions.insert(id.clone(), input);
        }
        let (output, from_connection) = tokio::io::duplex(OUTPUT_PIPE);
        let gone = CancellationToken::new();
        tokio::spawn(run_session(shared.clone(), id.clone(), Inbox::new(inbox), output, gone.clone()));
        tracing::debug!(session = %id, "an HTTP+SSE session opened");

        let endpoint =
            Bytes::from(format!("event: endpoint\ndata: {}?sessionId={id}\n\n", shared.messages_path));
        let session = SessionGuard { shared: shared.clone(), id, gone };
        // The connection writes one JSON message per line (JSON text has no raw newline); the
        // stream ends when the connection has finished and closed its side of the pipe.
        let lines = FramedRead::new(from_connection, LinesCodec::new());
        let messages = futures::stream::unfold((lines, session), |(mut lines, session)| async move {
            let line = match lines.next().await? {
                Ok(line) => line,
                Err(e) => {
                    tracing::warn!(error = %e, "reading a session's output failed");
                    return None;
                }
            };
            Some((Bytes::from(format!("event: message\ndata: {line}\n\n")), (lines, session)))
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
        let Some(input) = shared.sessions().get(id).cloned() else {
            return unknown_session();
        };
        let bytes = match read_limited(request.into_body(), shared.options.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        // Refuse what is not one JSON-RPC message here, with 400; everything else is the
        // connection's to judge (its errors travel on the stream, as on stdio).
        if let Err(failure) = parse_message_with(&bytes, &shared.server.options().limits.parse) {
            return error_response(StatusCode::BAD_REQUEST.as_u16(), failure.id, failure.error);
        }
        match tokio::time::timeout(INBOX_WAIT, input.send(one_line(&bytes))).await {
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

/// Serves one session until its stream closes (or the service shuts down), then forgets it.
async fn run_session(
    shared: Arc<Shared>,
    id: String,
    inbox: Inbox,
    output: DuplexStream,
    gone: CancellationToken,
) {
    let shutdown = {
        let (shared, id) = (shared.clone(), id.clone());
        async move {
            tokio::select! {
                () = shared.closing.cancelled() => {}
                () = gone.cancelled() => {}
            }
            // From now on its POSTs are 404 while in-flight requests get their grace period.
            shared.sessions().remove(&id);
        }
    };
    if let Err(e) = serve_connection(shared.server.clone(), inbox, output, shutdown).await {
        // Typically a broken pipe: the stream closed before the last answers were written.
        tracing::debug!(session = %id, error = %e, "an HTTP+SSE session ended with an error");
    }
    shared.sessions().remove(&id);
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

/// The connection's input: the POSTed messages, one line each, read as a byte stream; it
/// ends when the session is forgotten (every sender is gone).
struct Inbox {
    lines: mpsc::Receiver<Bytes>,
    current: Bytes,
}

impl Inbox {
    fn new(lines: mpsc::Receiver<Bytes>) -> Self {
        Self { lines, current: Bytes::new() }
    }
}

impl AsyncRead for Inbox {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        while this.current.is_empty() {
            match std::task::ready!(this.lines.poll_recv(cx)) {
                Some(line) => this.current = line,
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = this.current.len().min(buf.remaining());
        buf.put_slice(&this.current.split_to(n));
        Poll::Ready(Ok(()))
    }
}

/// A valid JSON text as one line: a raw CR or LF in it can only be whitespace between tokens
/// (inside strings they must be escaped), so each becomes a space.
fn one_line(json: &[u8]) -> Bytes {
    let mut line: Vec<u8> = json.iter().map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b }).collect();
    line.push(b'\n');
    Bytes::from(line)
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
    use tokio::io::AsyncReadExt;

    use super::*;

    #[test]
    fn a_posted_message_becomes_exactly_one_line() {
        let pretty = b"{\r\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"a\\nb\"\n}";
        let line = one_line(pretty);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert!(line.ends_with(b"\n"));
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["method"], "a\nb", "escapes inside strings are kept");
    }

    #[test]
    fn the_session_id_comes_from_the_query() {
        let uri = |s: &str| s.parse::<Uri>().unwrap();
        assert_eq!(session_id(&uri("/messages?sessionId=abc")), Some("abc"));
        assert_eq!(session_id(&uri("/messages?x=1&sessionId=abc&y=2")), Some("abc"));
        assert_eq!(session_id(&uri("/messages?sessionId=")), None);
        assert_eq!(session_id(&uri("/messages")), None);
    }

    #[tokio::test]
    async fn the_inbox_reads_the_lines_in_order_and_ends_with_its_senders() {
        let (sender, receiver) = mpsc::channel(4);
        let mut inbox = Inbox::new(receiver);
        sender.send(Bytes::from_static(b"one\n")).await.unwrap();
        sender.send(Bytes::from_static(b"two\n")).await.unwrap();
        drop(sender);
        let mut text = String::new();
        inbox.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "one\ntwo\n");
    }
}
