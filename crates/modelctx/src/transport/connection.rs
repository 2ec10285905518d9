//! One newline-delimited JSON-RPC connection (stdio, or any byte stream): the reader that
//! routes each message, the request tasks, and the writer.
//!
//! Ordering policy: the reader handles notifications and session requests (`initialize`,
//! `ping`, `logging/setLevel`, `resources/subscribe`) itself, in arrival order; every other
//! request runs in its own task, at most `max_in_flight` at once, so the reader never waits on
//! a handler. A request cancelled by `notifications/cancelled` (or by shutdown) gets no
//! response.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use modelctx_protocol::era::{self, PeerState, Route, Transport};
use modelctx_protocol::jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, ParseFailure, Request, RequestId, Response,
    parse_message_with,
};
use modelctx_protocol::{JsonObject, ProtocolVersion};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{Semaphore, broadcast, mpsc};
use tokio::task::JoinSet;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};
use tokio_util::sync::CancellationToken;

use crate::server::Tokens;
use crate::server::input::{LegacyPeer, PendingAnswers};
use crate::server::{LegacySession, Server, ServerEvent};

/// Messages waiting for the writer; handlers wait (not the reader) when it is full.
const OUTBOX: usize = 256;

type InFlight = Arc<Mutex<HashMap<RequestId, CancellationToken>>>;

/// Serves one connection until the input ends or `shutdown` completes, then lets in-flight
/// requests finish within the grace period and cancels the rest.
pub async fn serve_connection<R, W>(
    server: Server,
    reader: R,
    writer: W,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let limits = server.options().limits;
    let (outbox, inbox) = mpsc::channel(OUTBOX);
    let writer_task = tokio::spawn(write_messages(writer, inbox));
    let mut connection = Connection {
        permits: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
        in_flight: InFlight::default(),
        session: None,
        tasks: JoinSet::new(),
        outbox,
        answers: PendingAnswers::default(),
        closing: CancellationToken::new(),
        next_outgoing_id: Arc::new(AtomicU64::new(1)),
        server: server.clone(),
    };
    let mut lines =
        FramedRead::new(reader, Lines(LinesCodec::new_with_max_length(limits.parse.max_message_bytes)));
    let mut events = server.events();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            line = lines.next() => match line {
                Some(Ok(Line::Text(line))) => connection.on_line(&line).await,
                Some(Ok(Line::Oversize)) => {
                    let error = ErrorObject::invalid_request(format!(
                        "message longer than the limit of {} bytes; it was discarded",
                        limits.parse.max_message_bytes
                    ));
                    connection.send(ErrorResponse { id: None, error }.into()).await;
                }
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "reading the connection failed");
                    break;
                }
                None => break,
            },
            event = events.recv() => connection.on_event(event).await,
            () = &mut shutdown => break,
            Some(finished) = connection.tasks.join_next() => log_task_end(finished),
        }
    }
    connection.drain(limits.shutdown_grace).await;
    drop(connection);
    writer_task.await.map_err(std::io::Error::other)?
}

/// One line of input, or the news that a line over the size limit was discarded.
enum Line {
    Text(String),
    Oversize,
}

/// [`LinesCodec`] with an oversize line as an item rather than an error: `FramedRead` ends
/// the stream after any decoder error, which would close the connection over one long line.
struct Lines(LinesCodec);

impl Lines {
    fn map(decoded: Result<Option<String>, LinesCodecError>) -> Result<Option<Line>, LinesCodecError> {
        match decoded {
            Err(LinesCodecError::MaxLineLengthExceeded) => Ok(Some(Line::Oversize)),
            other => other.map(|line| line.map(Line::Text)),
        }
    }
}

impl Decoder for Lines {
    type Item = Line;
    type Error = LinesCodecError;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, LinesCodecError> {
        Self::map(self.0.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, LinesCodecError> {
        Self::map(self.0.decode_eof(buf))
    }
}

fn log_task_end(finished: Result<(), tokio::task::JoinError>) {
    if let Err(e) = finished {
        tracing::error!(error = %e, "a request task panicked");
    }
}

async fn write_messages<W: AsyncWrite + Unpin>(
    writer: W,
    mut inbox: mpsc::Receiver<Message>,
) -> std::io::Result<()> {
    let mut writer = BufWriter::new(writer);
    // One buffer for every line: a message is serialised into it once, newline included.
    let mut line = Vec::with_capacity(1024);
    while let Some(message) = inbox.recv().await {
        line.clear();
        serde_json::to_writer(&mut line, &message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        writer.write_all(&line).await?;
        if inbox.is_empty() {
            writer.flush().await?;
        }
    }
    writer.flush().await
}

struct Connection {
    server: Server,
    session: Option<LegacySession>,
    permits: Arc<Semaphore>,
    in_flight: InFlight,
    tasks: JoinSet<()>,
    outbox: mpsc::Sender<Message>,
    /// Server-to-client requests of the legacy session awaiting the client's answer.
    answers: PendingAnswers,
    /// Tripped when the connection starts to shut down.
    closing: CancellationToken,
    next_outgoing_id: Arc<AtomicU64>,
}

impl Connection {
    async fn send(&self, message: Message) {
        if self.outbox.send(message).await.is_err() {
            tracing::debug!("the writer has stopped");
        }
    }

    async fn reply(&self, id: RequestId, result: Result<JsonObject, ErrorObject>) {
        let message = match result {
            Ok(result) => Message::Response(Response { id, result }),
            Err(error) => Message::Error(ErrorResponse { id: Some(id), error }),
        };
        self.send(message).await;
    }

    fn peer(&self) -> PeerState {
        self.session.as_ref().map_or(PeerState::NoSession, |s| PeerState::Session(s.version))
    }

    async fn on_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let message = match parse_message_with(line.as_bytes(), &self.server.options().limits.parse) {
            Ok(message) => message,
            Err(ParseFailure { id, error }) => return self.send(ErrorResponse { id, error }.into()).await,
        };
        let route = era::route(&message, &Transport::Stdio, &self.peer(), self.server.versions());
        match (route, message) {
            (Route::Reject(rejection), message) => {
                if let Message::Request(_) = message {
                    self.send(ErrorResponse { id: rejection.id, error: rejection.error }.into()).await;
                } else {
                    tracing::debug!(error = %rejection.error, "dropping a refused notification or response");
                }
            }
            (Route::Ignore(reason), _) => tracing::debug!(reason, "ignoring a message"),
            (Route::Initialize(version), Message::Request(request)) => {
                self.initialize(version, request).await
            }
            (Route::Legacy(_) | Route::Modern(_), Message::Notification(notification)) => {
                self.on_notification(notification)
            }
            (Route::Legacy(_), Message::Request(request)) => self.legacy_request(request).await,
            (Route::Modern(version), Message::Request(request)) => {
                self.modern_request(version, request).await
            }
            (Route::Legacy(_), Message::Response(response)) => self.answer(response.id, Ok(response.result)),
            (Route::Legacy(_), Message::Prepared(prepared)) => {
                let response = prepared.into_response();
                self.answer(response.id, Ok(response.result));
            }
            (Route::Legacy(_), Message::Error(error)) => match error.id {
                Some(id) => self.answer(id, Err(error.error)),
                None => tracing::warn!(error = %error.error, "the client sent an error without an id"),
            },
            (_, Message::Response(_) | Message::Prepared(_) | Message::Error(_)) => {
                tracing::debug!("a response that answers no request of this server");
            }
            (Route::Initialize(_), _) => unreachable!("only requests are routed to Initialize"),
        }
    }

    fn tokens(&self, request: &CancellationToken) -> Tokens {
        Tokens { request: request.clone(), connection: self.closing.clone(), ..Tokens::default() }
    }

    /// Hands the client's answer to the server-to-client request waiting for it.
    fn answer(&self, id: RequestId, outcome: Result<JsonObject, ErrorObject>) {
        match self.answers.lock().expect("answers lock").remove(&id) {
            Some(waiter) => {
                let _ = waiter.send(outcome);
            }
            None => tracing::debug!(%id, "an answer to no request of ours (late, or unknown)"),
        }
    }

    async fn initialize(&mut self, version: ProtocolVersion, request: Request) {
        match LegacySession::initialize(&self.server, version, request.params) {
            Ok((session, result)) => {
                self.session = Some(session);
                self.reply(request.id, Ok(result)).await;
            }
            Err(error) => self.reply(request.id, Err(error)).await,
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            "notifications/cancelled" => {
                let id = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
                let token =
                    id.and_then(|id| self.in_flight.lock().expect("in-flight lock").get(&id).cloned());
                match token {
                    Some(token) => token.cancel(),
                    // CANCEL-07: unknown or finished requests are ignored.
                    None => tracing::debug!("cancellation of a request that is not in flight"),
                }
            }
            method => match &mut self.session {
                Some(session) => session.notification(method),
                None => tracing::debug!(method, "ignoring a notification"),
            },
        }
    }

    async fn legacy_request(&mut self, request: Request) {
        let Some(session) = &mut self.session else { return };
        if LegacySession::serves(&request.method)
            && let Some(result) = session.handle(&self.server, &request.method, request.params.clone())
        {
            return self.reply(request.id, result).await;
        }
        let Some(token) = self.register(&request).await else { return };
        let Some(session) = &self.session else { return };
        let peer = LegacyPeer {
            outbox: self.outbox.clone(),
            pending: self.answers.clone(),
            next_id: self.next_outgoing_id.clone(),
            timeout: self.server.options().limits.client_request_timeout,
        };
        let ctx =
            self.server.legacy_context(&request, session, peer, self.tokens(&token), self.outbox.clone());
        self.spawn(request, ctx, token);
    }

    async fn modern_request(&mut self, version: ProtocolVersion, request: Request) {
        let Some(token) = self.register(&request).await else { return };
        match self.server.modern_context(&request, version, self.tokens(&token), self.outbox.clone()) {
            Ok(ctx) => self.spawn(request, ctx, token),
            Err(error) => {
                self.in_flight.lock().expect("in-flight lock").remove(&request.id);
                self.reply(request.id, Err(error)).await;
            }
        }
    }

    /// Enters the request in the in-flight table, refusing a duplicate id (BASE-05) and
    /// requests beyond the queue limit.
    async fn register(&mut self, request: &Request) -> Option<CancellationToken> {
        let limits = self.server.options().limits;
        let refusal = {
            let mut in_flight = self.in_flight.lock().expect("in-flight lock");
            if in_flight.contains_key(&request.id) {
                Some(ErrorObject::invalid_request(format!(
                    "id {} is already used by a request in flight",
                    request.id
                )))
            } else if in_flight.len() >= limits.max_in_flight + limits.max_queued {
                Some(ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("server busy: {} requests are already in flight or queued", in_flight.len()),
                ))
            } else {
                let token = CancellationToken::new();
                in_flight.insert(request.id.clone(), token.clone());
                return Some(token);
            }
        };
        if let Some(error) = refusal {
            self.reply(request.id.clone(), Err(error)).await;
        }
        None
    }

    fn spawn(&mut self, request: Request, ctx: crate::server::RequestContext, token: CancellationToken) {
        let (server, permits, in_flight, outbox) =
            (self.server.clone(), self.permits.clone(), self.in_flight.clone(), self.outbox.clone());
        // Boxed: the request's future is large, and tokio moves a task's future several times
        // (into the task cell, through its stages); a box moves as a pointer.
        self.tasks.spawn(Box::pin(async move {
            let Request { id, method, params } = request;
            let outcome = tokio::select! {
                biased;
                () = token.cancelled() => None,
                outcome = async {
                    // A subscription mostly waits; it must not hold one of the permits that
                    // bound the work in flight (it still counts toward the queue limit).
                    let _permit = match method.as_str() {
                        "subscriptions/listen" => None,
                        _ => permits.acquire_owned().await.ok(),
                    };
                    server.answer(ctx, &method, params).await
                } => Some(outcome),
            };
            in_flight.lock().expect("in-flight lock").remove(&id);
            // STDIO-08 / CANCEL-05: a cancelled request gets no response.
            if let (Some(outcome), false) = (outcome, token.is_cancelled()) {
                let message = match outcome {
                    Ok(answer) => answer.into_message(id),
                    Err(error) => Message::Error(ErrorResponse { id: Some(id), error }),
                };
                let _ = outbox.send(message).await;
            }
        }));
    }

    /// Forwards server changes to a legacy session (2026-07-28 clients hear of them only on
    /// `subscriptions/listen`).
    async fn on_event(&mut self, event: Result<ServerEvent, broadcast::error::RecvError>) {
        let Some(session) = &self.session else { return };
        match event {
            Ok(event) => {
                if let Some(notification) = session.notification_for(&event) {
                    self.send(notification.into()).await;
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "missed server events")
            }
            Err(broadcast::error::RecvError::Closed) => {}
        }
    }

    /// Lets in-flight requests finish for up to `grace`, then cancels the rest and waits for
    /// them to stop.
    async fn drain(&mut self, grace: std::time::Duration) {
        // Long-lived requests (subscriptions/listen) end gracefully now.
        self.closing.cancel();
        let finished = tokio::time::timeout(grace, async {
            while let Some(result) = self.tasks.join_next().await {
                log_task_end(result);
            }
        })
        .await;
        if finished.is_err() {
            let tokens: Vec<CancellationToken> =
                self.in_flight.lock().expect("in-flight lock").values().cloned().collect();
            tracing::info!(count = tokens.len(), "cancelling requests still running at shutdown");
            for token in tokens {
                token.cancel();
            }
            while let Some(result) = self.tasks.join_next().await {
                log_task_end(result);
            }
        }
    }
}
