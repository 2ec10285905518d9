//! POST: one JSON-RPC message, carried out as the front desk ([`crate::transport::desk`])
//! decides, and answered with JSON or an SSE stream.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode};
use modelctx_protocol::era::{HttpRequestFacts, PeerState, Transport, dispatch_error_status};
use modelctx_protocol::headers::{MCP_SESSION_ID, check_headers_against};
use modelctx_protocol::jsonrpc::{
    ErrorObject, ErrorResponse, Message, Notification, RequestId, Response as JsonRpcResponse, ToolCall,
};
use modelctx_protocol::{Era, JsonObject, Method};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::body::{empty, error_response, json_response, sse_event, sse_frames, sse_response};
use super::events;
use super::idle::Tracked;
use super::listens::ConnectionListens;
use super::live::LIVE_BUFFER;
use super::names::{self, RequestHeaders};
use super::relay;
use super::session::Session;
use super::sessions::store_unavailable;
use super::{Denial, McpBody, Shared};
use crate::server::dispatch::Caller;
use crate::server::exchange::{Outcome, Started, response};
use crate::server::outgoing::Outgoing;
use crate::server::sink::{NotificationSink, OutboxEnd};
use crate::server::{Answer, LegacySession, Principal};
use crate::telemetry::Subject;
use crate::transport::connection::Incoming;
use crate::transport::desk::{self, Action, Call, Desk, Requested, Ticket};

/// Messages an SSE answer holds for its body before the client reads them.
const STREAM_BUFFER: usize = 64;

/// The id of a request, for an error answer.
fn message_id(message: &Message) -> Option<RequestId> {
    match message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    }
}

pub(super) async fn handle(
    shared: &Arc<Shared>,
    headers: RequestHeaders<'_>,
    bytes: &Bytes,
    principal: Option<Arc<Principal>>,
    listens: Option<&Arc<ConnectionListens>>,
) -> Response<McpBody> {
    let server = shared.lifecycle.server();
    let limits = &server.options().limits.parse;
    let message = match Incoming::read(server, bytes, limits) {
        Ok(Incoming::ToolCall(call)) => {
            return typed_call(shared, headers, call, bytes.len(), principal, listens).await;
        }
        Ok(Incoming::Message(message)) => message,
        Err(failure) => return error_response(StatusCode::BAD_REQUEST.as_u16(), failure.id, failure.error),
    };
    if let Message::Request(request) = &message
        && let Some(denial) = lacking_scopes(
            shared,
            &request.method,
            || Subject::of(&request.method, request.params.as_ref()),
            principal.as_deref(),
        )
    {
        return denial.response();
    }
    let session = match shared.sessions.lookup(headers.session_id, principal.as_deref()).await {
        Ok(session) => session,
        Err(e) => return store_unavailable(message_id(&message), &e),
    };
    let peer = match &session {
        Ok(session) => PeerState::Session(session.version()),
        Err(missing) => missing.peer(),
    };
    let facts = HttpRequestFacts {
        origin_allowed: true,
        protocol_version: names::text(headers.protocol_version),
        mcp_method: names::text(headers.method),
        mcp_name: names::text(headers.name),
    };
    let session = session.ok();
    match desk::receive(server, message, bytes.len(), &Transport::Http(facts), peer) {
        Action::Refuse(refused) => error_response(refused.status, refused.id, refused.error),
        Action::Ignore(_) => empty(StatusCode::ACCEPTED),
        Action::Open { id, session, result } => {
            open(shared, id, *session, result, principal.as_deref()).await
        }
        Action::Call(call) => admit(shared, headers, call, session, principal, listens).await,
        // The desk routes the rest only with a session (`PeerState::Session`).
        action => match session {
            Some(session) => in_session(shared, &session, action).await,
            None => error_response(400, None, ErrorObject::invalid_request("this message needs a session")),
        },
    }
}

/// A `tools/call` read typed ([`crate::server::Server::read_typed`]): the checks a modern
/// request's POST gets before it is admitted — the caller's scopes, the session store, the
/// standard headers against the body (its `_meta` and the version were read with it) — then
/// admitted as the router's calls are.
async fn typed_call(
    shared: &Arc<Shared>,
    headers: RequestHeaders<'_>,
    call: Box<ToolCall>,
    bytes: usize,
    principal: Option<Arc<Principal>>,
    listens: Option<&Arc<ConnectionListens>>,
) -> Response<McpBody> {
    let subject = || Subject::of_tool(&call.name);
    if let Some(denial) = lacking_scopes(shared, &Method::CallTool, subject, principal.as_deref()) {
        return denial.response();
    }
    let session = match shared.sessions.lookup(headers.session_id, principal.as_deref()).await {
        Ok(session) => session.ok(),
        Err(e) => return store_unavailable(Some(call.id.clone()), &e),
    };
    let version = call.meta.protocol_version.text();
    let name = Some(call.name.as_str());
    let checked = check_headers_against(&Method::CallTool, Some(version.as_str()), name, |name| {
        headers.by_protocol_name(name)
    });
    if let Err(error) = checked {
        return error_response(400, Some(call.id), error);
    }
    admit(shared, headers, desk::typed_call(call, bytes), session, principal, listens).await
}

/// With an authenticator, the refusal of a request of `method` whose target (its `subject`)
/// requires scopes the caller lacks (`403 insufficient_scope`, AUTH-44); `None` when it may
/// go on.
fn lacking_scopes<'a>(
    shared: &Shared,
    method: &Method,
    subject: impl FnOnce() -> Subject<'a>,
    principal: Option<&Principal>,
) -> Option<Denial> {
    let authenticator = shared.options.authenticator.as_ref()?;
    let needed = shared.lifecycle.server().required_scopes(method, &subject());
    let held = |scope: &String| principal.is_some_and(|p| p.has_scope(scope));
    (!needed.iter().all(held)).then(|| authenticator.insufficient_scope(&needed))
}

/// Keeps the session `initialize` opened, owned by its opener, and answers with its id.
async fn open(
    shared: &Shared,
    id: RequestId,
    mut state: LegacySession,
    result: JsonObject,
    principal: Option<&Principal>,
) -> Response<McpBody> {
    // The session is its opener's alone (AUTH-59: each request is authenticated, and a
    // session id is no credential).
    state.owner = principal.map(Principal::key);
    // No room for the session, or its store is down: try later (503).
    match shared.sessions.create(state).await {
        Ok(session) => {
            let mut response = json_response(200, &Message::Response(JsonRpcResponse { id, result }).into());
            let id = HeaderValue::from_str(&session.id).expect("session ids are visible ASCII");
            response.headers_mut().insert(MCP_SESSION_ID, id);
            response
        }
        Err(error) => error_response(503, Some(id), error),
    }
}

/// Carries out what the desk decided for a message of `session` other than a call.
async fn in_session(shared: &Shared, session: &Session, action: Action) -> Response<McpBody> {
    let server = shared.lifecycle.server();
    match action {
        Action::Session(request) => {
            let served = shared.sessions.serve_own(session, server, &request.method, request.params);
            match served.await {
                Some(result) => json_response(200, &response(request.id, result.map(Answer::from))),
                None => empty(StatusCode::ACCEPTED),
            }
        }
        Action::Note(method) => {
            desk::note(server, &method, Some(&session.id));
            if let Err(e) = shared.sessions.change(session, |state| state.notification(&method)).await {
                tracing::warn!(error = %e.message, "a session change could not be stored");
            }
            empty(StatusCode::ACCEPTED)
        }
        Action::Cancel(params) => {
            if !session.exchange.cancel(params.clone()) {
                let message = Message::Notification(Notification { method: Method::Cancelled, params });
                relay::forward(server, session, &message).await;
            }
            empty(StatusCode::ACCEPTED)
        }
        Action::Deliver { id, outcome } => {
            if let Some((id, outcome)) = session.exchange.deliver(id, outcome) {
                let message = match outcome {
                    Ok(result) => Message::Response(JsonRpcResponse { id, result }),
                    Err(error) => Message::Error(ErrorResponse { id: Some(id), error }),
                };
                relay::forward(server, session, &message).await;
            }
            empty(StatusCode::ACCEPTED)
        }
        Action::Refuse(_) | Action::Ignore(_) | Action::Open { .. } | Action::Call(_) => {
            unreachable!("handled before the session is needed")
        }
    }
}

/// For `tools/call`, the `Mcp-Param-*` headers must mirror the annotated arguments
/// (HTTP-30, HTTP-33, HTTP-34): a mismatch is `-32020` with 400.
fn check_param_headers(
    shared: &Shared,
    headers: RequestHeaders<'_>,
    request: &Requested,
) -> Result<(), ErrorObject> {
    let Some((name, arguments)) = request.tool_call() else { return Ok(()) };
    let Some(param_headers) = shared.lifecycle.server().param_headers(name) else { return Ok(()) };
    modelctx_protocol::headers::check_param_headers(&param_headers, arguments, |name| {
        headers.by_protocol_name(name)
    })
}

/// Lets a call in (a 2026-07-28 request on the endpoint's stateless exchange, a legacy one on
/// its session's) and runs it: its answer is JSON, or an SSE stream when it sends messages
/// first or (legacy) the client accepts one.
async fn admit(
    shared: &Arc<Shared>,
    headers: RequestHeaders<'_>,
    call: Call,
    session: Option<Arc<Session>>,
    principal: Option<Arc<Principal>>,
    listens: Option<&Arc<ConnectionListens>>,
) -> Response<McpBody> {
    let era = call.era;
    if era == Era::Modern
        && let Err(error) = check_param_headers(shared, headers, &call.request)
    {
        return error_response(400, Some(call.request.id().clone()), error);
    }
    // A stateless listen (or event stream) takes one of its connection's places for as long as
    // its stream lives.
    let listen = match listens {
        Some(listens) if era == Era::Modern && crate::server::exchange::long_lived(call.request.method()) => {
            let max = shared.options.max_listens_per_connection;
            match listens.take(max) {
                Some(held) => Some(held),
                None => {
                    let error = ErrorObject::internal(format!(
                        "server busy: this connection already holds {max} listens; end one first"
                    ));
                    return error_response(503, Some(call.request.id().clone()), error);
                }
            }
        }
        _ => None,
    };
    let (sink, outbox) = NotificationSink::own();
    let legacy = session.as_ref().filter(|_| era == Era::Legacy);
    // Only a logged stream can be released (and resumed); elsewhere `release_stream` does
    // nothing, and the request gets no token for it.
    let logged = legacy.filter(|_| accepts_sse(headers));
    let release = logged.map(|_| CancellationToken::new());
    let checked_in = {
        // A legacy request's context is read under its session's lock, not copied.
        let state = legacy.map(|session| session.state());
        let desk = Desk {
            exchange: legacy.map_or(&shared.stateless, |session| &session.exchange),
            session: state.as_deref(),
            caller: Caller {
                session_id: legacy.map(|session| session.id.as_str()),
                principal,
                network_transport: "tcp",
            },
            sink,
            release: release.clone(),
        };
        desk::check_in(shared.lifecycle.server(), call, desk)
    };
    let ticket = match checked_in {
        Ok(ticket) => ticket,
        Err(refused) => return error_response(refused.status, refused.id, refused.error),
    };
    match logged.zip(release) {
        Some((session, release)) => logged_stream(shared, ticket, outbox, session.clone(), release),
        None => {
            let answer = run(ticket, outbox, era).await;
            match listen {
                Some(held) => {
                    answer.map(|body| http_body_util::BodyExt::boxed_unsync(Tracked::new(body, held)))
                }
                None => answer,
            }
        }
    }
}

/// Whether the client accepts an SSE answer.
fn accepts_sse(headers: RequestHeaders<'_>) -> bool {
    names::text(headers.accept).is_some_and(|accept| accept.contains("text/event-stream"))
}

/// How long a 2025-11-25 client should wait before reconnecting a broken stream.
const RETRY_MS: u32 = 1000;

/// A legacy request answered on a resumable SSE stream: a priming event with an id and the
/// reconnection delay first (HTTP-44, HTTP-45), then every event logged in the session under
/// ids unique in it, so the client can resume with `Last-Event-ID` — after its connection
/// broke (which in 2025-11-25 is not cancellation, HTTP-48) or after the handler released the
/// stream (`RequestContext::release_stream`). A request answered in its first poll without
/// sending anything first is answered with JSON instead: nothing is left to resume.
fn logged_stream(
    shared: &Arc<Shared>,
    ticket: Ticket,
    outbox: OutboxEnd,
    session: Arc<Session>,
    release: CancellationToken,
) -> Response<McpBody> {
    let Ticket { admission, id, job } = ticket;
    let (started, mut messages) = match admission.start(job) {
        // Answered in its first poll, with nothing sent before: one JSON answer, which no
        // broken stream can interrupt midway, needs no log to resume from. Its context is gone
        // with it, unless the handler kept a copy for work that goes on: what that sends goes
        // to the session's standalone stream.
        Started::Answered(outcome) => match outbox.after_answer() {
            None => return json_answer(id, outcome, Era::Legacy),
            Some(messages) if messages.is_empty() => {
                if !messages.is_closed() {
                    tokio::spawn(to_standalone_after_answer(messages, session));
                }
                return json_answer(id, outcome, Era::Legacy);
            }
            Some(messages) => (Started::Answered(outcome), messages),
        },
        started => (started, outbox.receiver()),
    };
    let (live, frames) = mpsc::channel(LIVE_BUFFER);
    let number = session.live.open(live);
    let priming = Bytes::from(format!("id: {number}-0\nretry: {RETRY_MS}\ndata: \n\n"));
    let store = shared.sessions.stores.events.clone();
    tokio::spawn(async move {
        let handler = started.finished();
        tokio::pin!(handler);
        let mut released = false;
        let mut event = 0;
        let mut record = async |message: &Outgoing| {
            event += 1;
            events::record(&*store, &session, number, event, message).await;
        };
        let outcome = loop {
            tokio::select! {
                // Messages sent before the release still go out live.
                biased;
                message = messages.recv() => match message {
                    Some(message) => record(&message).await,
                    None => break (&mut handler).await,
                },
                () = release.cancelled(), if !released => {
                    released = true;
                    session.live.release(number);
                }
                finished = &mut handler => {
                    while let Ok(message) = messages.try_recv() {
                        record(&message).await;
                    }
                    break finished;
                }
            }
        };
        if let Some(outcome) = outcome {
            record(&response(id, outcome)).await;
        }
        events::finish(&*store, &session, number).await;
        to_standalone_after_answer(messages, session).await;
    });
    sse_frames(vec![priming], Some(frames), 0)
}

/// What a legacy request's context sends after its answer — the work of a 2025-11-25 task
/// goes on past its `CreateTaskResult`, and its progress and log messages with it (PROG-06,
/// each naming the task) — goes to the session's standalone stream, the one stream not tied to
/// a request; dropped when none is open. Ends when the context is gone.
async fn to_standalone_after_answer(mut messages: mpsc::Receiver<Outgoing>, session: Arc<Session>) {
    while let Some(message) = messages.recv().await {
        match session.standalone.sender() {
            Some(standalone) => drop(standalone.send(message).await),
            None => tracing::debug!(
                "a message after its request's answer, with no standalone stream open: dropped"
            ),
        }
    }
}

/// Runs the handler. If it finishes before sending anything, the answer is plain JSON; if
/// it sends a notification or a server-to-client request first, the answer becomes an SSE
/// stream that carries those and then the final response. Closing the stream cancels it.
async fn run(ticket: Ticket, outbox: OutboxEnd, era: Era) -> Response<McpBody> {
    // The request's own token, read from its context (an `Arc`, where a token's clone takes
    // its lock) for as long as the answer is awaited.
    let ctx = ticket.job.ctx().clone();
    let token = ctx.cancellation();
    // A modern client going away while the answer is awaited cancels the request (HTTP-16);
    // a legacy one cancels explicitly (HTTP-48).
    let watch = (era == Era::Modern).then(|| token.drop_guard_ref());
    let answer = answer(ticket, outbox, era, token).await;
    if let Some(watch) = watch {
        watch.disarm();
    }
    answer
}

/// [`run`]'s answer: JSON, or an SSE stream that cancels `token` when it is dropped.
async fn answer(ticket: Ticket, outbox: OutboxEnd, era: Era, token: &CancellationToken) -> Response<McpBody> {
    let Ticket { admission, id, job } = ticket;
    let mut handler = match admission.start(job) {
        Started::Answered(outcome) => return finished_answer(id, outcome, outbox.close(), era, token),
        Started::Running(handler) => handler,
    };
    // The request waits: its messages are read as they come, and their end once its
    // contexts are gone.
    let mut messages = outbox.receiver();
    enum Start {
        First(Outgoing),
        SinkDropped,
        Finished(Outcome),
    }
    let start = tokio::select! {
        first = messages.recv() => first.map_or(Start::SinkDropped, Start::First),
        finished = &mut handler => Start::Finished(finished.ok().flatten()),
    };
    let first = match start {
        Start::First(first) => first,
        // The handler dropped its sink without sending anything: wait for its answer.
        Start::SinkDropped => return json_answer(id, handler.await.ok().flatten(), era),
        Start::Finished(outcome) => return finished_answer(id, outcome, Some(messages), era, token),
    };
    stream(Vec::new(), Some(first), messages, handler, id, token)
}

/// The answer of a handler that has finished: JSON, or an SSE stream when it sent messages
/// first (they go before the answer).
fn finished_answer(
    id: RequestId,
    outcome: Outcome,
    messages: Option<mpsc::Receiver<Outgoing>>,
    era: Era,
    token: &CancellationToken,
) -> Response<McpBody> {
    match messages.and_then(|mut messages| Some((messages.try_recv().ok()?, messages))) {
        Some((early, messages)) => finish_streaming(early, messages, outcome, id, token),
        None => json_answer(id, outcome, era),
    }
}

/// The SSE answer: `initial` frames, then `first` and every message the handler sends, then
/// its final response. Dropping the body cancels the handler.
fn stream(
    initial: Vec<Bytes>,
    first: Option<Outgoing>,
    mut messages: mpsc::Receiver<Outgoing>,
    mut handler: JoinHandle<Outcome>,
    id: RequestId,
    token: &CancellationToken,
) -> Response<McpBody> {
    let (out, stream) = mpsc::channel(STREAM_BUFFER);
    let guard = token.clone().drop_guard();
    tokio::spawn(async move {
        if let Some(first) = first
            && out.send(first).await.is_err()
        {
            return;
        }
        loop {
            tokio::select! {
                message = messages.recv() => match message {
                    Some(message) => if out.send(message).await.is_err() { return },
                    None => break,
                },
                finished = &mut handler => {
                    while let Ok(message) = messages.try_recv() {
                        if out.send(message).await.is_err() {
                            return;
                        }
                    }
                    if let Some(outcome) = finished.ok().flatten() {
                        let _ = out.send(response(id, outcome)).await;
                    }
                    return;
                }
            }
        }
        if let Some(outcome) = handler.await.ok().flatten() {
            let _ = out.send(response(id, outcome)).await;
        }
    });
    sse_response(initial, stream, Some(guard))
}

/// An SSE answer for messages that arrived with the handler's end.
fn finish_streaming(
    early: Outgoing,
    mut messages: mpsc::Receiver<Outgoing>,
    outcome: Outcome,
    id: RequestId,
    token: &CancellationToken,
) -> Response<McpBody> {
    let mut frames = vec![sse_event(&early)];
    while let Ok(message) = messages.try_recv() {
        frames.push(sse_event(&message));
    }
    if let Some(outcome) = outcome {
        frames.push(sse_event(&response(id, outcome)));
    }
    let (_, closed) = mpsc::channel(1);
    sse_response(frames, closed, Some(token.clone().drop_guard()))
}

fn json_answer(id: RequestId, outcome: Outcome, era: Era) -> Response<McpBody> {
    match outcome {
        Some(Ok(answer)) => json_response(200, &answer.into_response(id)),
        Some(Err(error)) => error_response(dispatch_error_status(era, &error), Some(id), error),
        // Cancelled (a DELETE of the session, or shutdown): nothing to say for it.
        None => empty(StatusCode::ACCEPTED),
    }
}
