//! The front desk: what each message asks for, decided once for every transport.
//!
//! Sans-IO. [`receive`] takes a parsed message, the facts of the transport it came on and the
//! legacy session the transport holds for its peer, and returns the one [`Action`] the
//! transport carries out with its own I/O (a `tools/call` read typed, whose verdict is known,
//! is a [`Call`] by [`typed_call`]); [`check_in`] turns an [`Action::Call`] into a
//! request admitted to the lifecycle with its context, or the refusal to answer; [`note`]
//! tells the server of a session's notification. The transports are framing over it: `connection` (stdio,
//! HTTP+SSE, the in-process test client) reads lines or POSTed messages and writes to one
//! outbox; `http::post` (Streamable HTTP) reads a POST body and answers with JSON or an SSE
//! stream.
//!
//! Where transports differ, the difference is a fact of the transport, named here:
//! - **Streamable HTTP answers every POST**: a refused notification or response gets its HTTP
//!   status and the error; elsewhere only requests are answered (JSON-RPC).
//! - **A 2026-07-28 request over Streamable HTTP is a stream of its own**: its id is not
//!   tracked (two clients may use the same one) and closing its stream cancels it, so a
//!   client notification there (`notifications/cancelled` included) has nothing to act on.
//! - **Streamable HTTP sessions live in a store that instances share**: a change to a session
//!   is saved, and a cancellation or an answer for a request not in flight here goes on to the
//!   instance that runs it.

use modelctx_protocol::era::{self, PeerState, Refused, Route, Transport};
use modelctx_protocol::jsonrpc::{ErrorObject, Message, Request, RequestId, ToolCall};
use modelctx_protocol::{Era, JsonObject, Method};
use tokio_util::sync::CancellationToken;

use crate::server::dispatch::Caller;
use crate::server::exchange::{Admission, Admitted, Exchange, Job};
use crate::server::middleware::McpRequest;
use crate::server::sink::NotificationSink;
use crate::server::{LegacySession, Server};

/// What one message asks of the transport it came on.
pub(crate) enum Action {
    /// Answer at once with an error: the message was refused (the id to answer is `None` for
    /// a notification or a response, which only Streamable HTTP answers, with the status).
    Refuse(Refused),
    /// Nothing to do; the reason is for the log.
    Ignore(&'static str),
    /// `initialize` was accepted: the transport keeps `session` for its peer and answers
    /// request `id` with `result`.
    Open { id: RequestId, session: Box<LegacySession>, result: JsonObject },
    /// A request the legacy session answers itself, in arrival order (`ping`,
    /// `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`).
    Session(Request),
    /// A request to run through the lifecycle ([`check_in`]).
    Call(Call),
    /// A notification about the legacy session or the server (`notifications/initialized`,
    /// `notifications/roots/list_changed`): [`note`].
    Note(Method),
    /// `notifications/cancelled` of a legacy session, or of a connection of its own, with its
    /// params.
    Cancel(Option<JsonObject>),
    /// The client's answer to a request of the server.
    Deliver { id: RequestId, outcome: Result<JsonObject, ErrorObject> },
}

/// A request as the transport read it: its params as JSON, or a `tools/call` read typed
/// from its bytes ([`crate::server::Server::read_typed`]).
pub(crate) enum Requested {
    /// Params as JSON, for the server's layers and the method table.
    Json(Request),
    /// A 2026-07-28 `tools/call` of the common shape, for a server whose layers read no
    /// params.
    ToolCall(Box<ToolCall>),
}

impl Requested {
    /// The request's id.
    pub(crate) fn id(&self) -> &RequestId {
        match self {
            Self::Json(request) => &request.id,
            Self::ToolCall(call) => &call.id,
        }
    }

    /// The request's method.
    pub(crate) fn method(&self) -> &Method {
        match self {
            Self::Json(request) => &request.method,
            Self::ToolCall(_) => &Method::CallTool,
        }
    }

    /// The tool a `tools/call` names and its arguments; `None` for another method, or a call
    /// whose `name` is not a string.
    #[cfg(feature = "http-server")]
    pub(crate) fn tool_call(&self) -> Option<(&str, Option<&JsonObject>)> {
        match self {
            Self::Json(request) if request.method == Method::CallTool => {
                let params = request.params.as_ref();
                let name = params.and_then(|p| p.get("name")).and_then(|n| n.as_str())?;
                Some((name, params.and_then(|p| p.get("arguments")).and_then(|a| a.as_object())))
            }
            Self::Json(_) => None,
            Self::ToolCall(call) => Some((&call.name, call.arguments.as_ref())),
        }
    }
}

/// A request the router accepted, with its era and size.
pub(crate) struct Call {
    pub(crate) request: Requested,
    /// Its bytes as they arrived.
    pub(crate) bytes: usize,
    /// The era whose rules it follows: 2026-07-28's, or its legacy session's.
    pub(crate) era: Era,
}

/// Decides what `message` (`bytes` long), arrived on `transport`, asks for. `peer` is what the transport
/// knows of the peer's legacy session: on stdio, the connection's; over HTTP, the one
/// `Mcp-Session-Id` names, or that it names one that is gone.
pub(crate) fn receive(
    server: &Server,
    message: Message,
    bytes: usize,
    transport: &Transport<'_>,
    peer: PeerState,
) -> Action {
    let own_stream = matches!(transport, Transport::Http(_));
    match (era::route(&message, transport, &peer, server.versions()), message) {
        (Route::Reject(refused), _) => Action::Refuse(refused),
        (Route::Ignore(reason), _) => Action::Ignore(reason),
        (Route::Initialize(version), Message::Request(request)) => {
            match LegacySession::initialize(server, version, request.params) {
                Ok((session, result)) => Action::Open { id: request.id, session: Box::new(session), result },
                Err(error) => Action::Refuse(Refused { id: Some(request.id), error, status: 200 }),
            }
        }
        (Route::Modern(_), Message::Request(request)) => {
            Action::Call(Call { request: Requested::Json(request), bytes, era: Era::Modern })
        }
        (Route::Modern(_), Message::Notification(_)) if own_stream => {
            Action::Ignore("2026-07-28 over Streamable HTTP: a request is cancelled by closing its stream")
        }
        (Route::Modern(_), Message::Notification(notification)) => match notification.method {
            Method::Cancelled => Action::Cancel(notification.params),
            _ => Action::Ignore("a 2026-07-28 client notification outside a session"),
        },
        (Route::Modern(_), _) => Action::Ignore("a response that answers no request of this server"),
        (Route::Legacy(_), message) if !matches!(peer, PeerState::Session(_)) => {
            let id = match &message {
                Message::Request(request) => Some(request.id.clone()),
                _ => None,
            };
            let error = ErrorObject::invalid_request("this message needs a session");
            Action::Refuse(Refused { id, error, status: 400 })
        }
        (Route::Legacy(_), Message::Request(request)) if LegacySession::serves(&request.method) => {
            Action::Session(request)
        }
        (Route::Legacy(_), Message::Request(request)) => {
            Action::Call(Call { request: Requested::Json(request), bytes, era: Era::Legacy })
        }
        (Route::Legacy(_), Message::Notification(notification)) => match notification.method {
            Method::Cancelled => Action::Cancel(notification.params),
            method => Action::Note(method),
        },
        (Route::Legacy(_), Message::Response(answer)) => {
            Action::Deliver { id: answer.id, outcome: Ok(answer.result) }
        }
        (Route::Legacy(_), Message::Error(error)) => match error.id {
            Some(id) => Action::Deliver { id, outcome: Err(error.error) },
            None => Action::Ignore("the client sent an error without an id"),
        },
        (Route::Initialize(_), _) => Action::Ignore("only requests are routed to initialize"),
    }
}

/// The call a `tools/call` read typed asks for (`bytes` long): the router's verdict on it is
/// known — a served 2026-07-28 version in its `_meta` makes it modern, session or not — so it
/// goes to [`check_in`] as it is.
pub(crate) fn typed_call(call: Box<ToolCall>, bytes: usize) -> Call {
    Call { request: Requested::ToolCall(call), bytes, era: Era::Modern }
}

/// A request let in, with its context: ready to run.
pub(crate) struct Ticket {
    pub(crate) admission: Admission,
    /// The id its answer names.
    pub(crate) id: RequestId,
    /// What it asks of the server, with its context.
    pub(crate) job: Job,
}

/// Where a call's messages go and who makes it, as the transport knows.
pub(crate) struct Desk<'a> {
    /// The peer whose in-flight table the request joins.
    pub(crate) exchange: &'a Exchange,
    /// The legacy session a legacy request belongs to.
    pub(crate) session: Option<&'a LegacySession>,
    /// The session's id and the verified principal.
    pub(crate) caller: Caller<'a>,
    /// Where the handler's notifications and questions go.
    pub(crate) sink: NotificationSink,
    /// Tripped by the handler to release its response stream (Streamable HTTP; `None`
    /// elsewhere).
    pub(crate) release: Option<CancellationToken>,
}

/// Lets `call` in on `desk.exchange` and makes its context, or says why not: the id is in
/// flight, the queue or the subscriptions are full, the `_meta` of a 2026-07-28 request is
/// malformed, or a legacy request came without its session.
pub(crate) fn check_in(server: &Server, call: Call, desk: Desk<'_>) -> Result<Ticket, Refused> {
    let Call { request, bytes, era } = call;
    let refused = |error, status| Refused { id: Some(request.id().clone()), error, status };
    let Admitted { admission, token } = match desk.exchange.admit(request.id(), request.method(), bytes) {
        Ok(admitted) => admitted,
        Err(refusal) => {
            let status = refusal.http_status();
            return Err(refused(refusal.into_error(), status));
        }
    };
    let tokens = admission.tokens(token, desk.release);
    let (id, job) = match (request, era, desk.session) {
        (Requested::ToolCall(call), _, _) => {
            let ToolCall { id, name, arguments, meta } = *call;
            let ctx = server.typed_call_context(id.clone(), meta, desk.caller, tokens, desk.sink);
            (id, Job::ToolCall { ctx, name, arguments })
        }
        (Requested::Json(request), Era::Modern, _) => {
            let ctx = server
                .modern_context(&request, desk.caller, tokens, desk.sink)
                .map_err(|error| Refused { id: Some(request.id.clone()), error, status: 400 })?;
            (request.id, Job::Request(McpRequest { method: request.method, params: request.params, ctx }))
        }
        (Requested::Json(request), Era::Legacy, Some(session)) => {
            let peer = desk.exchange.legacy_peer(desk.sink.clone());
            let ctx = server.legacy_context(&request, session, desk.caller, peer, tokens, desk.sink);
            (request.id, Job::Request(McpRequest { method: request.method, params: request.params, ctx }))
        }
        (Requested::Json(request), Era::Legacy, None) => {
            let error = ErrorObject::invalid_request("this message needs a session");
            return Err(Refused { id: Some(request.id), error, status: 400 });
        }
    };
    Ok(Ticket { admission, id, job })
}

/// Tells the server of a legacy session's notification `method`
/// (`notifications/roots/list_changed` runs its hook). What it changes in the session's state
/// (`LegacySession::notification`) the transport applies where it keeps the session.
pub(crate) fn note(server: &Server, method: &Method, session_id: Option<&str>) {
    server.on_session_notification(method, session_id);
}
