//! The client's Streamable HTTP link: each request is a POST answered with JSON or with an
//! SSE stream that carries the server's notifications (and, in a legacy session, its own
//! requests) before the answer. Connection reuse stays on. Modern requests carry
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (HTTP-23..28); a legacy session sends
//! `Mcp-Session-Id`, and when the server has forgotten it (404) the link initializes again and
//! retries once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use modelctx_protocol::Method;
use modelctx_protocol::headers::{
    LAST_EVENT_ID, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID, McpParamHeader,
    name_header_for, param_headers_for_call,
};
use modelctx_protocol::jsonrpc::{
    ErrorObject, ErrorResponse, Message, Notification, ParseLimits, Request, RequestId, Response,
    parse_message_with,
};
use modelctx_protocol::{Era, JsonObject, ProtocolVersion};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap};
use serde_json::json;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::auth::{MAX_AUTH_RETRIES, Refusal};
use super::sse::{SseEvent, SseReader};
use super::{ClientError, ClientHandlers, ClientOptions, HttpAuth, WireTap};

/// Server notifications buffered for slow listeners.
const NOTIFICATIONS: usize = 256;

type Answer = Result<JsonObject, ErrorObject>;

/// Lists over HTTP GET (experimental).
#[cfg(feature = "experimental")]
#[path = "http_lists.rs"]
pub(crate) mod lists;

/// What the link has settled with the server.
#[derive(Default)]
struct Settled {
    version: Option<ProtocolVersion>,
    session: Option<String>,
    /// The `initialize` params, to open a new session when the server forgot ours.
    initialize: Option<JsonObject>,
    /// `x-mcp-header` arguments by tool, learned from `tools/list`, mirrored as headers.
    param_headers: HashMap<String, Vec<McpParamHeader>>,
}

/// A Streamable HTTP connection to one MCP endpoint.
pub(crate) struct HttpLink {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    limits: ParseLimits,
    next_id: AtomicI64,
    settled: Mutex<Settled>,
    notifications: broadcast::Sender<Notification>,
    handlers: ClientHandlers,
    tap: Option<WireTap>,
    auth: Option<Arc<dyn HttpAuth>>,
    /// How many times a 2026-07-28 request whose response stream broke is sent again.
    reissues: usize,
    /// Tripped when the link is dropped: the session stream ends.
    closing: CancellationToken,
    /// List pages fetched over GET, with their tags (experimental).
    #[cfg(feature = "experimental")]
    kept_pages: lists::KeptPages,
    /// HTTP over stdio: requests go through the child's pipes, not `http` (experimental).
    #[cfg(feature = "stdio-v2")]
    pipe: Option<super::pipe::Pipe>,
}

impl Drop for HttpLink {
    fn drop(&mut self) {
        self.closing.cancel();
    }
}

/// The raw outcome of one POST, for era probing.
pub(crate) struct Posted {
    pub(crate) status: u16,
    /// The JSON-RPC answer, when the body held one.
    pub(crate) answer: Option<Answer>,
    /// The body when it was JSON (a stream's body is consumed reading the answer).
    pub(crate) body: Bytes,
    /// A 2026-07-28 response stream ended before the answer: the request is lost, and
    /// may be sent again as a new one (HTTP-17).
    pub(crate) broken: bool,
}

impl HttpLink {
    /// A link to `url`, sending `headers` with every request (tracing, API keys, …) and the
    /// credentials of the options' `auth`; a 2026-07-28 request whose response stream breaks
    /// is sent again up to `reissues` times.
    pub(crate) fn new(
        url: reqwest::Url,
        headers: HeaderMap,
        options: &ClientOptions,
    ) -> Result<Self, ClientError> {
        Ok(Self {
            http: http_client(options)?,
            url,
            headers,
            limits: options.limits,
            next_id: AtomicI64::new(1),
            settled: Mutex::default(),
            notifications: broadcast::channel(NOTIFICATIONS).0,
            handlers: options.handlers.clone(),
            tap: options.wire_tap.clone(),
            auth: options.auth.clone(),
            reissues: options.reissues,
            closing: CancellationToken::new(),
            #[cfg(feature = "experimental")]
            kept_pages: lists::KeptPages::new(options.max_kept_list_pages),
            #[cfg(feature = "stdio-v2")]
            pipe: None,
        })
    }

    /// A link whose requests go through `pipe`, HTTP over a child's stdio (experimental).
    #[cfg(feature = "stdio-v2")]
    pub(crate) fn over_pipe(pipe: super::pipe::Pipe, options: &ClientOptions) -> Result<Self, ClientError> {
        let url = reqwest::Url::parse(super::pipe::PIPE_URL)
            .map_err(|e| ClientError::invalid_params(format!("the URL {:?}: {e}", super::pipe::PIPE_URL)))?;
        let mut link = Self::new(url, HeaderMap::new(), options)?;
        link.pipe = Some(pipe);
        Ok(link)
    }

    /// Whether requests go through a child's pipes rather than the network.
    pub(crate) fn is_pipe(&self) -> bool {
        #[cfg(feature = "stdio-v2")]
        return self.pipe.is_some();
        #[cfg(not(feature = "stdio-v2"))]
        false
    }

    /// Sends `request` as it is: over the child's pipes or over the network.
    async fn execute(&self, request: reqwest::Request, what: &str) -> Result<reqwest::Response, ClientError> {
        #[cfg(feature = "stdio-v2")]
        if let Some(pipe) = &self.pipe {
            return pipe.send(request, what).await;
        }
        self.http
            .execute(request)
            .await
            .map_err(|e| ClientError::transport(format!("{what} {} failed: {e}", self.url), e))
    }

    /// Shows the wire tap a message the server sent.
    fn seen(&self, text: &[u8]) {
        if let Some(tap) = &self.tap
            && !text.trim_ascii().is_empty()
        {
            tap.received(&String::from_utf8_lossy(text));
        }
    }

    /// The message of an event of a stream, shown to the wire tap.
    fn event_message(&self, event: &SseEvent) -> Option<Message> {
        self.seen(event.data.as_bytes());
        event.message(&self.limits)
    }

    fn settled(&self) -> MutexGuard<'_, Settled> {
        self.settled.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The endpoint.
    pub(crate) fn url(&self) -> &reqwest::Url {
        &self.url
    }

    /// Records the version in use (sent as `MCP-Protocol-Version` from now on).
    pub(crate) fn settle(&self, version: ProtocolVersion) {
        self.settled().version = Some(version);
    }

    /// Forgets the version (a probe that found no modern server).
    pub(crate) fn unsettle(&self) {
        self.settled().version = None;
    }

    /// Remembers the `x-mcp-header` arguments of listed tools.
    pub(crate) fn learn_param_headers(&self, tool: &str, params: Vec<McpParamHeader>) {
        self.settled().param_headers.insert(tool.to_owned(), params);
    }

    /// Server notifications from now on.
    pub(crate) fn notifications(&self) -> broadcast::Receiver<Notification> {
        self.notifications.subscribe()
    }

    /// Sends a request; its answer, or the error the server gave. A legacy session the
    /// server forgot is opened again and the request retried once.
    pub(crate) async fn request(
        self: &Arc<Self>,
        method: &Method,
        params: Option<JsonObject>,
        timeout: Duration,
    ) -> Result<JsonObject, ClientError> {
        let id = self.fresh_id();
        // Until the answer arrives, giving up (a time-out or a dropped future) cancels: a
        // modern server when the stream closes, a legacy session when it is told.
        let mut guard = CancelOnDrop { link: Arc::clone(self), id: Some(id.clone()) };
        let work = async {
            let mut posted = self.post_request(id.clone(), method, params.clone()).await?;
            // HTTP-17: a broken 2026-07-28 stream lost the request; it goes again, new id.
            for _ in 0..self.reissues {
                if !posted.broken {
                    break;
                }
                tracing::warn!(url = %self.url, %method, "the response stream broke before the answer; sending the request again with a new id");
                posted = self.post_request(self.fresh_id(), method, params.clone()).await?;
            }
            if posted.status == 404 && self.settled().session.is_some() {
                self.reinitialize().await?;
                return self.post_request(self.fresh_id(), method, params).await?.into_result();
            }
            posted.into_result()
        };
        let outcome = tokio::time::timeout(timeout, work).await;
        if outcome.is_ok() {
            guard.id = None;
        }
        outcome.unwrap_or_else(|_| Err(ClientError::timeout(method.clone(), timeout)))
    }

    /// Sends a notification (202 expected).
    pub(crate) async fn notify(
        &self,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<(), ClientError> {
        let message = Message::Notification(Notification { method: method.clone(), params });
        let response = self.post(&message, None).await?;
        match response.status().as_u16() {
            200..=299 => Ok(()),
            status => Err(ClientError::http(status, body_text(response).await)),
        }
    }

    /// A request id unused on this link.
    pub(crate) fn fresh_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// POSTs request `id` and reads its answer, whatever the status.
    pub(crate) async fn post_request(
        &self,
        id: RequestId,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<Posted, ClientError> {
        super::telemetry::record_request_id(&id);
        let message =
            Message::Request(Request { id: id.clone(), method: method.clone(), params: params.clone() });
        let response = self.post(&message, params.as_ref()).await?;
        let status = response.status().as_u16();
        if *method == Method::Initialize
            && let Some(session) = response.headers().get(MCP_SESSION_ID).and_then(|v| v.to_str().ok())
        {
            let mut settled = self.settled();
            settled.session = Some(session.to_owned());
            settled.initialize = params;
        }
        let is_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_stream {
            let answer = self.read_stream(response, &id).await?;
            let broken = answer.is_none();
            return Ok(Posted { status, answer, body: Bytes::new(), broken });
        }
        let body = read_capped(response, self.limits.max_message_bytes).await?;
        self.seen(&body);
        let answer = match parse_message_with(&body, &self.limits) {
            Ok(Message::Response(response)) => Some(Ok(response.result)),
            Ok(Message::Error(error)) => Some(Err(error.error)),
            _ => None,
        };
        Ok(Posted { status, answer, body, broken: false })
    }

    /// POSTs `message` (`params`: a request's, for the headers that mirror them).
    async fn post(
        &self,
        message: &Message,
        params: Option<&JsonObject>,
    ) -> Result<reqwest::Response, ClientError> {
        let method = message.method();
        let mut request = self
            .http
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        let (version, session, param_headers) = {
            let settled = self.settled();
            let tool = params.and_then(|p| p.get("name")).and_then(|n| n.as_str());
            let param_headers = match (method, tool) {
                (Some(Method::CallTool), Some(tool)) => settled.param_headers.get(tool).cloned(),
                _ => None,
            };
            (settled.version, settled.session.clone(), param_headers)
        };
        if let Some(version) = version {
            request = request.header(MCP_PROTOCOL_VERSION, version.to_string());
            if version.era() == Era::Modern
                && let Some(method) = method
            {
                request = request.header(MCP_METHOD, method.as_str());
                if let Some(name) = name_header_for(method, params) {
                    request = request.header(MCP_NAME, name);
                }
                let arguments = params.and_then(|p| p.get("arguments")).and_then(|a| a.as_object());
                for (name, value) in
                    param_headers_for_call(param_headers.as_deref().unwrap_or_default(), arguments)
                {
                    request = request.header(name, value);
                }
            }
        }
        if let Some(session) = session {
            request = request.header(MCP_SESSION_ID, session);
        }
        let body = message.to_json();
        if let Some(tap) = &self.tap {
            tap.sent(&body);
        }
        self.send(request.body(body), "POST").await
    }

    /// Ends the legacy session, if there is one, by `DELETE` (the client SHOULD, so that the
    /// server need not keep it until it expires), within `wait`; a server that refuses (`405`)
    /// or does not answer in time is let be.
    pub(crate) async fn end_session(&self, wait: Duration) {
        let (version, session) = {
            let settled = self.settled();
            (settled.version, settled.session.clone())
        };
        let Some(session) = session else { return };
        let mut request = self.http.delete(self.url.clone()).headers(self.headers.clone());
        request = request.header(MCP_SESSION_ID, session);
        if let Some(version) = version {
            request = request.header(MCP_PROTOCOL_VERSION, version.to_string());
        }
        match tokio::time::timeout(wait, self.send(request, "DELETE")).await {
            Ok(Ok(response)) => tracing::debug!(status = %response.status(), "the session was ended"),
            Ok(Err(error)) => tracing::debug!(%error, "the session could not be ended"),
            Err(_) => tracing::debug!("the server did not answer the session's end in time"),
        }
    }

    /// Sends `request` with the credentials of `auth`; after a 401 or 403 the auth acted on,
    /// once more with the new ones (at most [`MAX_AUTH_RETRIES`] times).
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<reqwest::Response, ClientError> {
        let failed =
            |e: reqwest::Error| ClientError::transport(format!("{what} {} failed: {e}", self.url), e);
        let request = request.build().map_err(failed)?;
        let Some(auth) = &self.auth else {
            return self.execute(request, what).await;
        };
        let mut next = Some(request);
        for _ in 0..=MAX_AUTH_RETRIES {
            let Some(mut request) = next.take() else { break };
            next = request.try_clone();
            auth.authorize(&mut request).await?;
            let sent = request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
            let response = self.execute(request, what).await?;
            let status = response.status();
            if !matches!(status, reqwest::StatusCode::UNAUTHORIZED | reqwest::StatusCode::FORBIDDEN)
                || next.is_none()
            {
                return Ok(response);
            }
            let refusal = Refusal { status, headers: response.headers(), sent: sent.as_deref() };
            if !auth.refused(refusal).await? {
                return Ok(response);
            }
        }
        Err(ClientError::auth(format!(
            "{what} {} was refused {} times with fresh credentials",
            self.url,
            MAX_AUTH_RETRIES + 1
        )))
    }

    /// Reads an SSE answer: notifications go to listeners, the server's requests are
    /// answered, and the message answering `id` ends it. A 2025-11-25 stream that ends
    /// without the answer after carrying an event id is resumed with a GET carrying
    /// `Last-Event-ID`, after the server's `retry` delay (HTTP-54). A 2026-07-28 stream
    /// cannot be resumed: one that ends without the answer is `None`, the request lost
    /// (HTTP-17).
    async fn read_stream(
        &self,
        response: reqwest::Response,
        id: &RequestId,
    ) -> Result<Option<Answer>, ClientError> {
        let mut cursor = Cursor { last_event_id: None, retry: DEFAULT_RETRY };
        let modern = self.settled().version.is_some_and(|v| v.era() == Era::Modern);
        let mut response = response;
        for _ in 0..RECONNECTS {
            if let Some(answer) = self.read_events(response, id, &mut cursor).await {
                return Ok(Some(answer));
            }
            if modern {
                return Ok(None);
            }
            let Some(last) = cursor.last_event_id.clone() else {
                return Err(ClientError::closed("the server ended the response stream without an answer"));
            };
            tokio::time::sleep(cursor.retry).await;
            response = self.get_stream(Some(&last)).await?;
        }
        Err(ClientError::closed(format!("the answer stream ended {RECONNECTS} times without the answer")))
    }

    /// Reads one stream until the answer to `id` (`Some`) or its end (`None`).
    async fn read_events(
        &self,
        response: reqwest::Response,
        id: &RequestId,
        cursor: &mut Cursor,
    ) -> Option<Answer> {
        let mut events = SseReader::new(response, &self.limits);
        while let Some(event) = events.next().await {
            cursor.note(&event);
            let Some(message) = self.event_message(&event) else { continue };
            match message {
                Message::Response(response) if &response.id == id => return Some(Ok(response.result)),
                Message::Error(error) if error.id.as_ref() == Some(id) => return Some(Err(error.error)),
                other => self.on_server_message(other).await,
            }
        }
        None
    }

    /// A notification or request the server sent on a stream.
    async fn on_server_message(&self, message: Message) {
        match message {
            Message::Notification(note) => {
                self.handlers.notified(&note.method, note.params.as_ref());
                if let Some(note) = super::request_logs::unclaimed(note) {
                    let _ = self.notifications.send(note);
                }
            }
            Message::Request(request) => self.answer_server(request).await,
            other => tracing::debug!(?other, "an answer to no request waiting on this stream"),
        }
    }

    /// Opens the legacy session's standalone stream, on which the server sends what is not
    /// tied to one of our requests (HTTP-50), and returns once it is open (so nothing the
    /// server sends right after is missed); it lives until the link is dropped. When the
    /// server closes it, the link waits the server's `retry` delay and opens it again with
    /// `Last-Event-ID` ("polls", HTTP-46), while the session is the same and the server lets
    /// it. A server that offers none (405) is fine.
    pub(crate) async fn open_session_stream(self: &Arc<Self>, wait: Duration) {
        let response = match tokio::time::timeout(wait, self.get_stream(None)).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => return tracing::debug!(error = %e, "the server offers no session stream"),
            Err(_) => return tracing::debug!("the session stream did not open in time"),
        };
        let link = Arc::downgrade(self);
        let closing = self.closing.clone();
        let session = self.settled().session.clone();
        tokio::spawn(async move {
            let mut cursor = Cursor { last_event_id: None, retry: DEFAULT_RETRY };
            let mut response = response;
            loop {
                let Some(limits) = link.upgrade().map(|link| link.limits) else { return };
                let mut events = SseReader::new(response, &limits);
                loop {
                    let event = tokio::select! {
                        () = closing.cancelled() => return,
                        event = events.next() => event,
                    };
                    let (Some(event), Some(link)) = (event, link.upgrade()) else { break };
                    cursor.note(&event);
                    if let Some(message) = link.event_message(&event) {
                        link.on_server_message(message).await;
                    }
                }
                tokio::select! {
                    () = closing.cancelled() => return,
                    () = tokio::time::sleep(cursor.retry) => {}
                }
                let Some(link) = link.upgrade() else { return };
                if link.settled().session != session {
                    return;
                }
                response = match link.get_stream(cursor.last_event_id.as_deref()).await {
                    Ok(response) => response,
                    Err(e) => {
                        return tracing::debug!(error = %e, "the session stream could not be opened again");
                    }
                };
            }
        });
    }

    /// Opens a GET stream: the session's own, or the rest of one after `last_event_id`.
    async fn get_stream(&self, last_event_id: Option<&str>) -> Result<reqwest::Response, ClientError> {
        let (version, session) = {
            let settled = self.settled();
            (settled.version, settled.session.clone())
        };
        let mut request =
            self.http.get(self.url.clone()).headers(self.headers.clone()).header(ACCEPT, "text/event-stream");
        if let Some(last_event_id) = last_event_id {
            request = request.header(LAST_EVENT_ID, last_event_id);
        }
        if let Some(version) = version {
            request = request.header(MCP_PROTOCOL_VERSION, version.to_string());
        }
        if let Some(session) = session {
            request = request.header(MCP_SESSION_ID, session);
        }
        let response = self.send(request, "GET (event stream)").await?;
        match response.status().as_u16() {
            200..=299 => Ok(response),
            status => Err(ClientError::http(status, body_text(response).await)),
        }
    }

    /// Answers a request the server sent on a stream (legacy sessions), by POST.
    async fn answer_server(&self, request: Request) {
        let message = match self.handlers.answer(Era::Legacy, &request.method, request.params).await {
            Ok(result) => Message::Response(Response { id: request.id, result }),
            Err(error) => Message::Error(ErrorResponse { id: Some(request.id), error }),
        };
        if let Err(e) = self.post(&message, None).await {
            tracing::warn!(error = %e, "answering the server failed");
        }
    }

    /// Opens a new legacy session with the same `initialize` params, and its stream.
    async fn reinitialize(self: &Arc<Self>) -> Result<(), ClientError> {
        let params = {
            let mut settled = self.settled();
            settled.session = None;
            settled.initialize.clone()
        };
        let Some(params) = params else {
            return Err(ClientError::closed("the server forgot the session"));
        };
        tracing::info!(url = %self.url, "the server forgot the session; initializing again");
        self.post_request(self.fresh_id(), &Method::Initialize, Some(params)).await?.into_result()?;
        self.notify(&Method::Initialized, None).await?;
        self.open_session_stream(SESSION_STREAM_WAIT).await;
        Ok(())
    }
}

impl Posted {
    /// The result, or an error naming the status and what the server said.
    pub(crate) fn into_result(self) -> Result<JsonObject, ClientError> {
        if self.broken {
            return Err(ClientError::closed(
                "the response stream broke before the answer, each time it was sent",
            ));
        }
        match self.answer {
            Some(Ok(result)) if (200..300).contains(&self.status) => Ok(result),
            Some(Err(error)) => Err(ClientError::rpc(error)),
            _ => Err(ClientError::http(self.status, String::from_utf8_lossy(&self.body).into_owned())),
        }
    }
}

async fn body_text(response: reqwest::Response) -> String {
    response.text().await.unwrap_or_default()
}

/// Where a resumable stream stands: the last event id seen and the reconnection delay.
struct Cursor {
    last_event_id: Option<String>,
    retry: Duration,
}

impl Cursor {
    /// Takes the event's id and `retry` delay, when it has them.
    fn note(&mut self, event: &SseEvent) {
        if let Some(event_id) = &event.id {
            self.last_event_id = Some(event_id.clone());
        }
        if let Some(retry) = event.retry {
            self.retry = retry;
        }
    }
}

/// How long a reopened session waits for its stream to open.
const SESSION_STREAM_WAIT: Duration = Duration::from_secs(5);

/// Reconnections an answer stream may take.
const RECONNECTS: usize = 5;
/// The reconnection delay when the server names none.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Cancels request `id` in a legacy session unless disarmed (`id` taken) first.
struct CancelOnDrop {
    link: Arc<HttpLink>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if self.link.settled().session.is_none() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let link = Arc::clone(&self.link);
        runtime.spawn(async move {
            if let Err(e) = link.notify(&Method::Cancelled, Some(cancellation(&id))).await {
                tracing::debug!(error = %e, "the cancellation did not reach the server");
            }
        });
    }
}

/// The params of `notifications/cancelled` for request `id`.
fn cancellation(id: &RequestId) -> JsonObject {
    json!({"requestId": id, "reason": "the caller stopped waiting"}).as_object().cloned().unwrap_or_default()
}

/// The body of `response`, refused once it passes `limit` bytes rather than read whole.
async fn read_capped(response: reqwest::Response, limit: usize) -> Result<Bytes, ClientError> {
    let mut chunks = response.bytes_stream();
    let mut body = bytes::BytesMut::new();
    while let Some(chunk) = futures::StreamExt::next(&mut chunks).await {
        let chunk =
            chunk.map_err(|e| ClientError::transport(format!("reading the answer failed: {e}"), e))?;
        if body.len() + chunk.len() > limit {
            return Err(ClientError::malformed(format!(
                "the server's answer is longer than the limit of {limit} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The HTTP client of every MCP connection. It follows redirects only within the origin it
/// was sent to (at most 10): a redirect elsewhere would carry the configured headers — a
/// bearer token, an API key — to another origin, so the redirect answer itself is returned.
/// `https://` URLs speak HTTP/2 when the server offers it (ALPN); `http://` ones speak it
/// only with `http2_prior_knowledge` (h2c), HTTP/1.1 otherwise. Servers are trusted by the
/// built-in roots and the options' `root_certificates`.
pub(crate) fn http_client(options: &ClientOptions) -> Result<reqwest::Client, ClientError> {
    let same_origin = reqwest::redirect::Policy::custom(|attempt| {
        let origin = attempt.previous().first().map(reqwest::Url::origin);
        if attempt.previous().len() > 10 || origin.as_ref() != Some(&attempt.url().origin()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    });
    let mut builder = reqwest::Client::builder().redirect(same_origin);
    if options.http2_prior_knowledge {
        builder = builder.http2_prior_knowledge();
    }
    for authority in &options.root_certificates {
        builder = builder.add_root_certificate(authority.clone());
    }
    builder.build().map_err(|e| ClientError::transport(format!("the HTTP client could not be built: {e}"), e))
}
