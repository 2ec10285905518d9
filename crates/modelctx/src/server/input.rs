//! Asking the client from inside a handler — elicitation, sampling, roots — with one API for
//! both eras.
//!
//! - A **modern** request cannot receive server-to-client requests. When a handler asks, the
//!   runtime stops it and answers `InputRequiredResult`: everything the handler asked in that
//!   round, and a sealed `requestState` with the answers of earlier rounds. The client retries
//!   with `inputResponses`; the handler runs again from the start and this time each question
//!   finds its answer (questions are keyed by kind and order, so a handler must ask the same
//!   questions in the same order each run).
//! - A **legacy** request sends a live JSON-RPC request on the session and awaits the answer,
//!   with a timeout.
//!
//! Only `tools/call`, `prompts/get` and `resources/read` may ask (MRTR-02). Asking for what the
//! client did not declare fails: a modern request is then answered `-32021` naming the
//! capability (META-05, MRTR-06).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use modelctx_protocol::jsonrpc::{ErrorObject, Message, MethodCall, Request, RequestId};
use modelctx_protocol::model::{self, ClientCapabilities, ElicitRequest};
use modelctx_protocol::types::Root;
use modelctx_protocol::v2026::{
    CreateMessageRequestParams, CreateMessageResult, ElicitResult, InputRequest, InputRequests,
    ListRootsResult,
};
use modelctx_protocol::{JsonObject, Method, v2025};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::context::RequestContext;
use super::outgoing::Outgoing;
use super::tasks::Running;

/// Why a question to the client got no answer.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputError {
    /// The client did not declare the capability this needs; holds the capabilities that
    /// would allow it. (A modern request is answered `-32021` whatever the handler does.)
    MissingCapability(Value),
    /// This request's method may not ask the client (only `tools/call`, `prompts/get` and
    /// `resources/read` may).
    NotAllowed,
    /// The client answered with a JSON-RPC error.
    Client(ErrorObject),
    /// The client's answer does not have the shape of the result asked for.
    Malformed(String),
    /// No answer within the time limit.
    TimedOut,
    /// The task the question belongs to ended (cancelled, or past its TTL) first.
    TaskEnded,
    /// The connection closed first.
    Closed,
    /// The store that keeps the task failed; holds its message.
    Store(String),
    /// The question breaks the spec's rules (a sampling conversation whose tool uses are not
    /// answered, SAMP-04/05/09); it was not sent.
    Invalid(String),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingCapability(needed) => {
                write!(f, "the client did not declare the capability {needed}")
            }
            Self::NotAllowed => {
                f.write_str("only tools/call, prompts/get and resources/read may ask the client")
            }
            Self::Client(error) => write!(f, "the client refused: {error}"),
            Self::Malformed(why) => write!(f, "the client's answer is malformed: {why}"),
            Self::TimedOut => f.write_str("the client did not answer in time"),
            Self::Closed => f.write_str("the connection closed before the client answered"),
            Self::TaskEnded => f.write_str("the task ended before the client answered"),
            Self::Store(message) => write!(f, "the task's question could not be kept: {message}"),
            Self::Invalid(why) => write!(f, "the question was not sent: {why}"),
        }
    }
}

impl std::error::Error for InputError {}

/// How a request's handler reaches the client.
#[derive(Clone)]
pub(crate) enum InputChannel {
    /// The method may not ask.
    None,
    /// A modern request: questions become an `InputRequiredResult`.
    Modern(Arc<Round>),
    /// A legacy session: questions are live requests.
    Legacy(LegacyPeer),
}

/// One round of a modern multi-round-trip request.
#[derive(Default)]
pub(crate) struct Round {
    /// Answers of this and earlier rounds, by key.
    pub(crate) answers: JsonObject,
    asked_count: Mutex<HashMap<&'static str, u32>>,
    /// Questions without an answer, asked in this run.
    pub(crate) asked: Mutex<InputRequests>,
    /// Set when a question needs a capability the client lacks, or an answer was malformed:
    /// the request then fails with this error.
    pub(crate) failure: Mutex<Option<ErrorObject>>,
    /// The `requestState` the answers were opened from, if the request brought one.
    pub(crate) redeemed: Option<String>,
}

impl Round {
    pub(crate) fn new(answers: JsonObject, redeemed: Option<String>) -> Self {
        Self { answers, redeemed, ..Self::default() }
    }

    /// The next key for a question of `kind` (`elicit-0`, `elicit-1`, `sample-0`, …).
    fn next_key(&self, kind: &'static str) -> String {
        let mut counts = self.asked_count.lock().expect("round lock");
        let n = counts.entry(kind).or_default();
        let key = format!("{kind}-{n}");
        *n += 1;
        key
    }

    fn fail(&self, error: ErrorObject) {
        self.failure.lock().expect("round lock").get_or_insert(error);
    }

    async fn ask<T: DeserializeOwned>(
        &self,
        kind: &'static str,
        key: Option<&str>,
        request: InputRequest,
    ) -> Result<T, InputError> {
        let key = key.map_or_else(|| self.next_key(kind), str::to_owned);
        if let Some(answer) = self.answers.get(&key) {
            return T::deserialize(answer.clone()).map_err(|e| {
                let why = format!("inputResponses[{key:?}]: {e}");
                self.fail(ErrorObject::invalid_params(&why));
                InputError::Malformed(why)
            });
        }
        self.asked.lock().expect("round lock").insert(key, request);
        // The runtime sees the question after this poll and ends the round; this future is
        // dropped without completing.
        std::future::pending().await
    }
}

/// The session side of live server-to-client requests (2025-11-25).
#[derive(Clone)]
pub(crate) struct LegacyPeer {
    pub(crate) outbox: mpsc::Sender<Outgoing>,
    pub(crate) pending: PendingAnswers,
    pub(crate) next_id: Arc<AtomicU64>,
    pub(crate) timeout: Duration,
}

/// Answers the connection's reader routes to waiting server-to-client requests, by id.
pub(crate) type PendingAnswers =
    Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<JsonObject, ErrorObject>>>>>;

impl LegacyPeer {
    /// Sends `method` with `params` to the client and returns its result as it came.
    pub(crate) async fn raw_request(&self, method: Method, params: Value) -> Result<JsonObject, InputError> {
        self.request(method, params).await
    }

    async fn request<T: DeserializeOwned>(&self, method: Method, params: Value) -> Result<T, InputError> {
        let id = RequestId::String(format!("modelctx-{}", self.next_id.fetch_add(1, Ordering::Relaxed)));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id.clone(), tx);
        let params = match params {
            Value::Object(params) => Some(params),
            _ => None,
        };
        let request = Message::Request(Request { id: id.clone(), method, params });
        if self.outbox.send(request.into()).await.is_err() {
            self.pending.lock().expect("pending lock").remove(&id);
            return Err(InputError::Closed);
        }
        let answer = tokio::time::timeout(self.timeout, rx).await;
        self.pending.lock().expect("pending lock").remove(&id);
        match answer {
            Ok(Ok(Ok(result))) => {
                T::deserialize(Value::Object(result)).map_err(|e| InputError::Malformed(e.to_string()))
            }
            Ok(Ok(Err(error))) => Err(InputError::Client(error)),
            Ok(Err(_)) => Err(InputError::Closed),
            Err(_) => {
                // Tell the client to stop working on it (2025-11-25 cancellation goes both ways).
                let params = json!({"requestId": id, "reason": "timed out"}).as_object().cloned();
                let cancel = modelctx_protocol::jsonrpc::Notification { method: Method::Cancelled, params };
                let _ = self.outbox.send(cancel.into()).await;
                Err(InputError::TimedOut)
            }
        }
    }
}

/// The client capability a question needs, as the `requiredCapabilities` of `-32021`.
fn check(capabilities: &ClientCapabilities, needed: Need) -> Result<(), InputError> {
    let (ok, required) = match needed {
        Need::ElicitForm => (
            capabilities.elicitation.as_ref().is_some_and(|e| e.supports_form()),
            json!({"elicitation": {"form": {}}}),
        ),
        Need::ElicitUrl => (
            capabilities.elicitation.as_ref().is_some_and(|e| e.supports_url()),
            json!({"elicitation": {"url": {}}}),
        ),
        Need::Sampling => (capabilities.sampling.is_some(), json!({"sampling": {}})),
        Need::SamplingTools => (
            capabilities.sampling.as_ref().is_some_and(|s| s.tools.is_some()),
            json!({"sampling": {"tools": {}}}),
        ),
        Need::Roots => (capabilities.roots.is_some(), json!({"roots": {}})),
    };
    if ok { Ok(()) } else { Err(InputError::MissingCapability(required)) }
}

#[derive(Clone, Copy)]
enum Need {
    ElicitForm,
    ElicitUrl,
    Sampling,
    SamplingTools,
    Roots,
}

/// A question to the client under a key the handler chooses (the `inputRequests` key of a
/// modern round), from [`RequestContext::question`].
pub struct Question<'c> {
    ctx: &'c RequestContext,
    key: Option<&'c str>,
}

impl RequestContext {
    /// Asks under `key` instead of the automatic `elicit-0`, `sample-0`, … keys, for servers
    /// whose clients expect particular keys. Keys must be unique within the request.
    pub fn question<'c>(&'c self, key: &'c str) -> Question<'c> {
        Question { ctx: self, key: Some(key) }
    }

    fn auto(&self) -> Question<'_> {
        Question { ctx: self, key: None }
    }

    /// Asks the user, through the client: a form (with the fields of `requestedSchema`) or a
    /// URL to visit. The answer says whether they accepted, declined or cancelled.
    pub async fn elicit(&self, request: ElicitRequest) -> Result<ElicitResult, InputError> {
        self.auto().elicit(request).await
    }

    /// Asks the client's model for a completion (sampling; with tools when the client
    /// declared `sampling.tools`).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, InputError> {
        self.auto().sample(params).await
    }

    /// Asks the client for its roots (the directories it lets the server work in).
    pub async fn list_roots(&self) -> Result<Vec<Root>, InputError> {
        self.auto().list_roots().await
    }
}

/// Asks inside a task: the question waits among the task's `inputRequests` for a
/// `tasks/update` (TX-08).
async fn ask_in_task<T: DeserializeOwned>(
    ctx: &RequestContext,
    task: &Running,
    kind: &'static str,
    key: Option<&str>,
    request: InputRequest,
) -> Result<T, InputError> {
    let request = serde_json::to_value(request).map_err(|e| InputError::Malformed(e.to_string()))?;
    let server = &ctx.server().inner;
    let answer = server.tasks.ask(task, kind, key, request, &server.announcer).await?;
    T::deserialize(answer).map_err(|e| InputError::Malformed(e.to_string()))
}

impl Question<'_> {
    fn capability(&self, needed: Need) -> Result<(), InputError> {
        let outcome = check(self.ctx.client_capabilities(), needed);
        if let (Err(InputError::MissingCapability(required)), InputChannel::Modern(round)) =
            (&outcome, self.ctx.input())
        {
            round.fail(ErrorObject::missing_client_capability(required.clone()));
        }
        outcome
    }

    /// [`RequestContext::elicit`] under this question's key.
    pub async fn elicit(self, request: ElicitRequest) -> Result<ElicitResult, InputError> {
        let need = match &request {
            ElicitRequest::Form { .. } => Need::ElicitForm,
            ElicitRequest::Url { .. } => Need::ElicitUrl,
        };
        if let Some(task) = self.ctx.task() {
            self.capability(need)?;
            return ask_in_task(
                self.ctx,
                &task,
                "elicit",
                self.key,
                InputRequest::Elicit(MethodCall::new(request.into())),
            )
            .await;
        }
        match self.ctx.input() {
            InputChannel::None => Err(InputError::NotAllowed),
            InputChannel::Modern(round) => {
                self.capability(need)?;
                round.ask("elicit", self.key, InputRequest::Elicit(MethodCall::new(request.into()))).await
            }
            InputChannel::Legacy(peer) => {
                self.capability(need)?;
                let request = match request {
                    ElicitRequest::Url { message, url, elicitation_id: None } => {
                        let id = format!("elicitation-{}", peer.next_id.fetch_add(1, Ordering::Relaxed));
                        ElicitRequest::Url { message, url, elicitation_id: Some(id) }
                    }
                    other => other,
                };
                let params = v2025::ElicitRequestParams::try_from(request)
                    .map_err(|e| InputError::Malformed(e.to_string()))?;
                let params =
                    serde_json::to_value(params).map_err(|e| InputError::Malformed(e.to_string()))?;
                peer.request(Method::Elicit, params).await
            }
        }
    }

    /// [`RequestContext::sample`] under this question's key.
    pub async fn sample(self, params: CreateMessageRequestParams) -> Result<CreateMessageResult, InputError> {
        modelctx_protocol::types::check_conversation(&params.messages).map_err(InputError::Invalid)?;
        let need = if params.tools.is_some() || params.tool_choice.is_some() {
            Need::SamplingTools
        } else {
            Need::Sampling
        };
        if let Some(task) = self.ctx.task() {
            self.capability(need)?;
            return ask_in_task(
                self.ctx,
                &task,
                "sample",
                self.key,
                InputRequest::CreateMessage(MethodCall::new(params)),
            )
            .await;
        }
        match self.ctx.input() {
            InputChannel::None => Err(InputError::NotAllowed),
            InputChannel::Modern(round) => {
                self.capability(need)?;
                round.ask("sample", self.key, InputRequest::CreateMessage(MethodCall::new(params))).await
            }
            InputChannel::Legacy(peer) => {
                self.capability(need)?;
                let params = serde_json::to_value(model::legacy_create_message(params))
                    .map_err(|e| InputError::Malformed(e.to_string()))?;
                peer.request(Method::CreateMessage, params).await
            }
        }
    }

    /// [`RequestContext::list_roots`] under this question's key.
    pub async fn list_roots(self) -> Result<Vec<Root>, InputError> {
        if let Some(task) = self.ctx.task() {
            self.capability(Need::Roots)?;
            let result: ListRootsResult = ask_in_task(
                self.ctx,
                &task,
                "roots",
                self.key,
                InputRequest::ListRoots(MethodCall::new(None)),
            )
            .await?;
            return Ok(result.roots);
        }
        let result: ListRootsResult = match self.ctx.input() {
            InputChannel::None => return Err(InputError::NotAllowed),
            InputChannel::Modern(round) => {
                self.capability(Need::Roots)?;
                round.ask("roots", self.key, InputRequest::ListRoots(MethodCall::new(None))).await?
            }
            InputChannel::Legacy(peer) => {
                self.capability(Need::Roots)?;
                peer.request(Method::ListRoots, json!({})).await?
            }
        };
        Ok(result.roots)
    }
}

/// How a modern round ended.
pub(crate) enum RoundEnd<T> {
    /// The handler finished.
    Done(T),
    /// The handler asked questions that have no answers yet.
    Asked,
}

/// Polls `future` until it finishes, or until it is waiting with unanswered questions.
pub(crate) struct UntilAsked<'r, F> {
    future: Pin<Box<F>>,
    round: &'r Round,
}

impl<'r, F: Future> UntilAsked<'r, F> {
    pub(crate) fn new(future: F, round: &'r Round) -> Self {
        Self { future: Box::pin(future), round }
    }
}

impl<F: Future> Future for UntilAsked<'_, F> {
    type Output = RoundEnd<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.future.as_mut().poll(cx) {
            Poll::Ready(output) => Poll::Ready(RoundEnd::Done(output)),
            Poll::Pending if !self.round.asked.lock().expect("round lock").is_empty() => {
                Poll::Ready(RoundEnd::Asked)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
