//! One connection of messages — stdio, an HTTP+SSE session, the in-process test client: the
//! reader that carries out what the front desk ([`super::desk`]) decides for each message.
//!
//! It runs on a stream of [`Inbound`] messages and a sink of [`Message`]s; framing (newline
//! JSON, SSE events) is the adapters' job. Ordering policy: the reader handles notifications
//! and session requests (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`)
//! itself, in arrival order; every other request runs under the [`Exchange`]'s lifecycle in a
//! task of its own, so the reader never waits on a handler — except on a one-thread runtime,
//! where the reader polls a request once first and it needs a task only if it waits. The
//! connection holds its peer's legacy session, and hears of server changes for it.
//!
//! Backpressure: the peer writes into the connection, so a full queue does not refuse its
//! requests. The connection holds them, in order, and reads on — a cancellation, of a held
//! request too, or the client's answer to a question of the server needs no room — until
//! [`crate::server::Limits::max_read_ahead`] are held; then it stops reading, and the peer's
//! writes wait (a pipe fills; an HTTP+SSE POST waits for the session's inbox). Held requests
//! are let in as the queue gets room.

use crate::telemetry::{SessionMeasure, Side};
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, Stream, StreamExt};
use modelctx_protocol::JsonObject;
use modelctx_protocol::era::{PeerState, Refused, Transport};
use modelctx_protocol::jsonrpc::{
    ErrorObject, ErrorResponse, Message, ParseFailure, ParseLimits, RequestId, ToolCall, TypedRead,
    parse_message_with,
};
use tokio::runtime::RuntimeFlavor;
use tokio::sync::{broadcast, mpsc};

use super::desk::{self, Action, Call, Desk, Ticket};
use super::line_out::WriteNow;
use crate::server::dispatch::Caller;
use crate::server::exchange::{Exchange, Lifecycle, cancelled_request, response};
use crate::server::outgoing::Outgoing;
use crate::server::{LegacySession, Server, ServerEvent};

/// One message as the adapter read it, or why it could not be read (answered with the error),
/// and its size as it arrived.
pub(crate) struct Inbound {
    /// The message, or why it could not be read.
    pub(crate) message: Result<Incoming, ParseFailure>,
    /// Its bytes as they arrived (what [`crate::server::Limits::max_admitted_bytes`] counts).
    pub(crate) bytes: usize,
}

/// A message read: as JSON, or a `tools/call` read typed ([`Server::read_typed`]).
pub(crate) enum Incoming {
    /// A message as JSON.
    Message(Message),
    /// A 2026-07-28 `tools/call` of the common shape.
    ToolCall(Box<ToolCall>),
}

impl Incoming {
    /// Reads `bytes` as `server` reads a message on every transport that reads calls typed:
    /// typed when it is a `tools/call` of the common shape, else strictly.
    pub(crate) fn read(server: &Server, bytes: &[u8], limits: &ParseLimits) -> Result<Self, ParseFailure> {
        match server.read_typed(bytes, limits) {
            Some(TypedRead::Call(call)) => Ok(Self::ToolCall(Box::new(call))),
            Some(TypedRead::Plain(request)) => Ok(Self::Message(Message::Request(request))),
            None => parse_message_with(bytes, limits).map(Self::Message),
        }
    }
}

/// Messages the reader handles before it writes the answers it holds (`super::line_out`) and
/// lets the writer and the requests' tasks run. A
/// reader that handled a whole read's worth of requests before yielding would write their
/// answers only at the end, and its client would wait, idle, for all of them; every few, the
/// client gets answers to work on while the server reads on. Each turn of the writer costs a
/// `write` and a poll of the runtime's events, so not too few: measured over stdio at 32 in
/// flight (bench/analysis.md), every 16 takes 10 % less CPU per call than every 4, at a higher
/// rate, and both are well ahead of yielding only when the input waits.
pub(crate) const YIELD_EVERY: usize = 16;

/// Serves the messages of `input` on `exchange`, writing to `outbox`, until the input ends or
/// `shutdown` completes. `session_id` names the connection where the transport gives it one
/// (HTTP+SSE); a connection that is an endpoint of its own (stdio) has none. Requests still
/// running are the caller's to drain or end.
pub(crate) async fn serve_messages(
    exchange: Exchange,
    wire: Wire,
    input: impl Stream<Item = Inbound>,
    outbox: mpsc::Sender<Outgoing>,
    shutdown: impl Future<Output = ()>,
) {
    let server = exchange.lifecycle().server().clone();
    let read_ahead = server.options().limits.max_read_ahead.max(1);
    // The server's changes and the shutdown signal, each polled only once it has woken the
    // connection (a future in a `FuturesUnordered` is polled when its own waker fired): a
    // connection busy reading does not poll them for every message.
    let mut events = FuturesUnordered::from_iter([next_event(server.events())]);
    let mut shutdown = FuturesUnordered::from_iter([shutdown]);
    let answer_inline = tokio::runtime::Handle::current().runtime_flavor() == RuntimeFlavor::CurrentThread;
    let mut connection = Connection {
        server,
        session: None,
        network_transport: wire.network_transport(),
        session_id: wire.session_id(),
        exchange,
        outbox,
        write_now: match wire {
            Wire::Pipe(write_now) => write_now.filter(|_| answer_inline),
            #[cfg(feature = "http-sse")]
            Wire::HttpSse(_) => None,
        },
        held: VecDeque::new(),
        answer_inline,
    };
    tokio::pin!(input);
    let mut reading = true;
    let mut handled = 0usize;
    // Once the input ends, the requests still held are let in as room comes.
    while reading || !connection.held.is_empty() {
        let holding = !connection.held.is_empty();
        tokio::select! {
            biased;
            message = input.next(), if reading && connection.held.len() < read_ahead => match message {
                Some(message) => {
                    connection.on_message(message).await;
                    handled += 1;
                    if handled.is_multiple_of(YIELD_EVERY) {
                        tokio::task::yield_now().await;
                    }
                }
                None => reading = false,
            },
            () = connection.exchange.room(connection.held.front().map_or(0, |call| call.bytes)), if holding => {
                connection.let_in_held().await;
            }
            Some((event, receiver)) = events.next() => {
                // A closed channel (the server is gone) is heard no more.
                if !matches!(event, Err(broadcast::error::RecvError::Closed)) {
                    events.push(next_event(receiver));
                    connection.on_event(event).await;
                }
            }
            Some(()) = shutdown.next() => break,
        }
    }
}

/// The server's next change, with the receiver to hear the one after.
async fn next_event(
    mut events: broadcast::Receiver<ServerEvent>,
) -> (Result<ServerEvent, broadcast::error::RecvError>, broadcast::Receiver<ServerEvent>) {
    (events.recv().await, events)
}

/// Serves a connection that is an endpoint of its own (stdio, the in-process test client):
/// its messages until the input ends or `shutdown` completes, then lets in-flight requests
/// finish within [`crate::server::Limits::shutdown_grace`] and cancels the rest.
pub(crate) async fn serve_endpoint(
    server: Server,
    input: impl Stream<Item = Inbound>,
    outbox: mpsc::Sender<Outgoing>,
    write_now: Option<Arc<dyn WriteNow>>,
    shutdown: impl Future<Output = ()>,
) {
    let _session = SessionMeasure::start(Side::Server, None, "pipe");
    let lifecycle = Lifecycle::new(server);
    let exchange = lifecycle.exchange();
    serve_messages(exchange.clone(), Wire::Pipe(write_now), input, outbox, shutdown).await;
    lifecycle.close();
    exchange.drain().await;
}

/// What carries a connection's messages.
pub(crate) enum Wire {
    /// A pipe: stdio, or the in-process test client; with the way its reader writes answers
    /// straight out, where it has one ([`super::line_out`]).
    Pipe(Option<Arc<dyn WriteNow>>),
    /// An HTTP+SSE session, by its id.
    #[cfg(feature = "http-sse")]
    HttpSse(String),
}

impl Wire {
    fn session_id(&self) -> Option<String> {
        match self {
            Self::Pipe(_) => None,
            #[cfg(feature = "http-sse")]
            Self::HttpSse(id) => Some(id.clone()),
        }
    }

    fn network_transport(&self) -> &'static str {
        match self {
            Self::Pipe(_) => "pipe",
            #[cfg(feature = "http-sse")]
            Self::HttpSse(_) => "tcp",
        }
    }
}

struct Connection {
    server: Server,
    session: Option<LegacySession>,
    /// The connection's id, where the transport gives it one.
    session_id: Option<String>,
    /// `network.transport` of its requests' spans.
    network_transport: &'static str,
    exchange: Exchange,
    outbox: mpsc::Sender<Outgoing>,
    /// Requests read past a full queue, in arrival order, waiting for room.
    held: VecDeque<Call>,
    /// Whether a request is polled first on the connection's own task (a one-thread runtime).
    answer_inline: bool,
    /// Where the reader writes its messages straight out (stdio, on a one-thread runtime).
    write_now: Option<Arc<dyn WriteNow>>,
}

impl Connection {
    async fn send(&self, message: impl Into<Outgoing>) {
        let message = message.into();
        if let Some(write_now) = self.write_now() {
            return write_now.append(&message);
        }
        if self.outbox.send(message).await.is_err() {
            tracing::debug!("the writer has stopped");
        }
    }

    /// Where the reader writes a message straight out, when it can: with nothing waiting in the
    /// outbox to go before it (a request's notifications go there, and its answer after them).
    /// On a one-thread runtime only, where the writer task does not run while the reader does.
    fn write_now(&self) -> Option<&dyn WriteNow> {
        self.write_now.as_deref().filter(|_| self.outbox.capacity() == self.outbox.max_capacity())
    }

    /// Sends the answer of a request answered in the reader's poll: straight out, or into the
    /// outbox; when the outbox is full, from a task of its own, so that the reader reads on.
    fn answer(&self, message: Outgoing) {
        if let Some(write_now) = self.write_now() {
            return write_now.append(&message);
        }
        if let Err(mpsc::error::TrySendError::Full(message)) = self.outbox.try_send(message) {
            let outbox = self.outbox.clone();
            self.exchange.spawn(async move { outbox.send(message).await.ok() });
        }
    }

    async fn reply(&self, id: RequestId, result: Result<JsonObject, ErrorObject>) {
        self.send(response(id, result.map(crate::server::Answer::from))).await;
    }

    /// Answers a refusal; a refused notification or response gets no answer (JSON-RPC).
    async fn refuse(&self, refused: Refused) {
        match refused.id {
            Some(id) => self.send(Message::Error(ErrorResponse { id: Some(id), error: refused.error })).await,
            None => tracing::debug!(error = %refused.error, "dropping a refused notification or response"),
        }
    }

    fn peer(&self) -> PeerState {
        self.session.as_ref().map_or(PeerState::NoSession, |s| PeerState::Session(s.version))
    }

    async fn on_message(&mut self, Inbound { message, bytes }: Inbound) {
        let message = match message {
            Ok(Incoming::Message(message)) => message,
            Ok(Incoming::ToolCall(call)) => return self.on_call(desk::typed_call(call, bytes)).await,
            Err(ParseFailure { id, error }) => {
                return self.send(Message::Error(ErrorResponse { id, error })).await;
            }
        };
        match desk::receive(&self.server, message, bytes, &Transport::Stdio, self.peer()) {
            Action::Refuse(refused) => self.refuse(refused).await,
            Action::Ignore(reason) => tracing::debug!(reason, "ignoring a message"),
            Action::Open { id, session, result } => {
                self.session = Some(*session);
                self.reply(id, Ok(result)).await;
            }
            Action::Session(request) => {
                let Some(session) = &mut self.session else { return };
                if let Some(result) = session.handle(&self.server, &request.method, request.params) {
                    self.reply(request.id, result).await;
                }
            }
            Action::Call(call) => self.on_call(call).await,
            Action::Note(method) => {
                desk::note(&self.server, &method, self.session_id.as_deref());
                if let Some(session) = &mut self.session {
                    session.notification(&method);
                }
            }
            Action::Cancel(params) => {
                if let Some(id) = cancelled_request(params.as_ref())
                    && !self.cancel_held(&id)
                {
                    self.exchange.cancel_request(&id);
                }
            }
            Action::Deliver { id, outcome } => drop(self.exchange.deliver(id, outcome)),
        }
    }

    /// Runs `call`, or holds it while the queue is full or others are held before it.
    async fn on_call(&mut self, call: Call) {
        if !self.held.is_empty() || self.exchange.is_full_for(call.request.method(), call.bytes) {
            self.held.push_back(call);
        } else {
            self.call(call).await;
        }
    }

    /// Lets held requests in, oldest first, while the queue has room.
    async fn let_in_held(&mut self) {
        while let Some(call) = self.held.front() {
            if self.exchange.is_full_for(call.request.method(), call.bytes) {
                return;
            }
            let call = self.held.pop_front().expect("a held request");
            self.call(call).await;
        }
    }

    /// Forgets the held request a cancellation names (it gets no response, CANCEL-05); `false`
    /// when none is held.
    fn cancel_held(&mut self, id: &RequestId) -> bool {
        let Some(position) = self.held.iter().position(|call| call.request.id() == id) else { return false };
        self.held.remove(position);
        tracing::debug!(%id, "a held request was cancelled before it was let in");
        true
    }

    /// Lets `call` in and runs it — polled once here first on a one-thread runtime, else (or
    /// when it has to wait) in a task of its own, which writes its answer; or answers the
    /// refusal.
    async fn call(&self, call: Call) {
        let desk = Desk {
            exchange: &self.exchange,
            session: self.session.as_ref(),
            caller: Caller {
                session_id: self.session_id.as_deref(),
                principal: None,
                network_transport: self.network_transport,
            },
            sink: self.outbox.clone().into(),
            release: None,
        };
        let Ticket { admission, id, job } = match desk::check_in(&self.server, call, desk) {
            Ok(ticket) => ticket,
            Err(refused) => return self.refuse(refused).await,
        };
        // Boxed, for the reason `Admission::start` gives.
        let mut run = Box::pin(admission.run(job));
        // On a one-thread runtime the request would run on this thread anyway: one that waits
        // on nothing is answered here, without a task of its own.
        if self.answer_inline
            && let Some(outcome) = FutureExt::now_or_never(&mut run)
        {
            // STDIO-08 / CANCEL-05: a cancelled request gets no response.
            if let Some(outcome) = outcome {
                self.answer(response(id, outcome));
            }
            return;
        }
        let outbox = self.outbox.clone();
        self.exchange.spawn(async move {
            if let Some(outcome) = run.await {
                let _ = outbox.send(response(id, outcome)).await;
            }
        });
    }

    /// Forwards server changes to a legacy session (2026-07-28 clients hear of them only on
    /// `subscriptions/listen`).
    async fn on_event(&mut self, event: Result<ServerEvent, broadcast::error::RecvError>) {
        let Some(session) = &self.session else { return };
        match event {
            Ok(event) => {
                if let Some(notification) = session.notification_for(&event) {
                    self.send(notification).await;
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "missed server events")
            }
            Err(broadcast::error::RecvError::Closed) => {}
        }
    }
}
