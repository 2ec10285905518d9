//! One connection of messages — stdio, an HTTP+SSE session, the in-process test client: the
//! reader that routes each message, and the hand-off of requests to the lifecycle.
//!
//! It runs on a stream of [`Inbound`] messages and a sink of [`Message`]s; framing (newline
//! JSON, SSE events) is the adapters' job. Ordering policy: the reader handles notifications
//! and session requests (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`)
//! itself, in arrival order; every other request runs in its own task under the
//! [`Exchange`]'s lifecycle, so the reader never waits on a handler.

use std::future::Future;

use futures::{Stream, StreamExt};
use modelctx_protocol::era::{self, PeerState, Route, Transport};
use modelctx_protocol::jsonrpc::{ErrorObject, ErrorResponse, Message, Notification, ParseFailure, Request};
use modelctx_protocol::{JsonObject, Method, ProtocolVersion};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use crate::server::dispatch::Caller;
use crate::server::exchange::{Admission, Exchange, Lifecycle, response};
use crate::server::middleware::McpRequest;
use crate::server::outgoing::Outgoing;
use crate::server::{LegacySession, RequestContext, Server, ServerEvent};

/// One message as the adapter read it, or why it could not be read (answered with the error).
pub(crate) type Inbound = Result<Message, ParseFailure>;

/// Serves the messages of `input` on `exchange`, writing to `outbox`, until the input ends or
/// `shutdown` completes. Requests still running are the caller's to drain or end.
pub(crate) async fn serve_messages(
    exchange: Exchange,
    input: impl Stream<Item = Inbound>,
    outbox: mpsc::Sender<Outgoing>,
    shutdown: impl Future<Output = ()>,
) {
    let server = exchange.lifecycle().server().clone();
    let mut events = server.events();
    let mut connection = Connection { server, session: None, exchange, outbox };
    tokio::pin!(input, shutdown);
    loop {
        tokio::select! {
            message = input.next() => match message {
                Some(message) => connection.on_message(message).await,
                None => break,
            },
            event = events.recv() => connection.on_event(event).await,
            () = &mut shutdown => break,
        }
    }
}

/// Serves a connection that is an endpoint of its own (stdio, the in-process test client):
/// its messages until the input ends or `shutdown` completes, then lets in-flight requests
/// finish within [`crate::server::Limits::shutdown_grace`] and cancels the rest.
pub(crate) async fn serve_endpoint(
    server: Server,
    input: impl Stream<Item = Inbound>,
    outbox: mpsc::Sender<Outgoing>,
    shutdown: impl Future<Output = ()>,
) {
    let lifecycle = Lifecycle::new(server);
    let exchange = lifecycle.exchange();
    serve_messages(exchange.clone(), input, outbox, shutdown).await;
    lifecycle.close();
    exchange.drain().await;
}

struct Connection {
    server: Server,
    session: Option<LegacySession>,
    exchange: Exchange,
    outbox: mpsc::Sender<Outgoing>,
}

impl Connection {
    async fn send(&self, message: impl Into<Outgoing>) {
        if self.outbox.send(message.into()).await.is_err() {
            tracing::debug!("the writer has stopped");
        }
    }

    async fn reply(
        &self,
        id: modelctx_protocol::jsonrpc::RequestId,
        result: Result<JsonObject, ErrorObject>,
    ) {
        self.send(response(id, result.map(crate::server::Answer::from))).await;
    }

    fn peer(&self) -> PeerState {
        self.session.as_ref().map_or(PeerState::NoSession, |s| PeerState::Session(s.version))
    }

    async fn on_message(&mut self, message: Inbound) {
        let message = match message {
            Ok(message) => message,
            Err(ParseFailure { id, error }) => {
                return self.send(Message::Error(ErrorResponse { id, error })).await;
            }
        };
        let route = era::route(&message, &Transport::Stdio, &self.peer(), self.server.versions());
        match (route, message) {
            (Route::Reject(rejection), message) => {
                if let Message::Request(_) = message {
                    self.send(Message::Error(ErrorResponse { id: rejection.id, error: rejection.error }))
                        .await;
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
            (Route::Legacy(_), Message::Response(answer)) => {
                self.exchange.deliver(answer.id, Ok(answer.result));
            }
            (Route::Legacy(_), Message::Error(error)) => match error.id {
                Some(id) => drop(self.exchange.deliver(id, Err(error.error))),
                None => tracing::warn!(error = %error.error, "the client sent an error without an id"),
            },
            (_, Message::Response(_) | Message::Error(_)) => {
                tracing::debug!("a response that answers no request of this server");
            }
            (Route::Initialize(_), _) => unreachable!("only requests are routed to Initialize"),
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
        match notification.method {
            Method::Cancelled => drop(self.exchange.cancel(notification.params)),
            method => match &mut self.session {
                Some(session) => {
                    session.notification(&method);
                    self.server.on_session_notification(&method, None);
                }
                None => tracing::debug!(%method, "ignoring a notification"),
            },
        }
    }

    /// Lets `request` in, or answers the refusal.
    async fn admit(&self, request: &Request) -> Option<Admission> {
        match self.exchange.admit(request) {
            Ok(admission) => Some(admission),
            Err(refusal) => {
                self.reply(request.id.clone(), Err(refusal.into_error())).await;
                None
            }
        }
    }

    async fn legacy_request(&mut self, request: Request) {
        let Some(session) = &mut self.session else { return };
        if LegacySession::serves(&request.method)
            && let Some(result) = session.handle(&self.server, &request.method, request.params.clone())
        {
            return self.reply(request.id, result).await;
        }
        let Some(admission) = self.admit(&request).await else { return };
        let Some(session) = &self.session else { return };
        let peer = self.exchange.legacy_peer(self.outbox.clone());
        let tokens = admission.tokens(CancellationToken::new());
        let ctx = self.server.legacy_context(
            &request,
            session,
            Caller::default(),
            peer,
            tokens,
            self.outbox.clone(),
        );
        self.spawn(admission, ctx, request);
    }

    async fn modern_request(&mut self, version: ProtocolVersion, request: Request) {
        let Some(admission) = self.admit(&request).await else { return };
        let tokens = admission.tokens(CancellationToken::new());
        match self.server.modern_context(&request, version, None, tokens, self.outbox.clone()) {
            Ok(ctx) => self.spawn(admission, ctx, request),
            Err(error) => {
                drop(admission);
                self.reply(request.id, Err(error)).await;
            }
        }
    }

    fn spawn(&self, admission: Admission, ctx: RequestContext, request: Request) {
        let outbox = self.outbox.clone();
        // Boxed, for the reason `Admission::spawn` gives.
        self.exchange.spawn(Box::pin(async move {
            let Request { id, method, params } = request;
            // STDIO-08 / CANCEL-05: a cancelled request gets no response.
            if let Some(outcome) = admission.run(McpRequest { method, params, ctx }).await {
                let _ = outbox.send(response(id, outcome)).await;
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
