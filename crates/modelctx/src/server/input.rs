//! The ways a handler's question to the client travels, one per era ([`InputChannel`]); the
//! questions themselves are asked through [`super::question`].
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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::Duration;

use modelctx_protocol::jsonrpc::{ErrorObject, Message, Request, RequestId};
use modelctx_protocol::v2026::{InputRequest, InputRequests};
use modelctx_protocol::{JsonObject, Method};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::sink::NotificationSink;

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
pub(crate) enum InputChannel {
    /// The method may not ask.
    None,
    /// A modern request: questions become an `InputRequiredResult`.
    Modern(RoundSlot),
    /// A legacy session: questions are live requests.
    Legacy(LegacyPeer),
}

/// A modern request's round: opened as the request arrives when it brings answers (or a
/// `requestState`), else only when its handler first asks. Most handlers never ask, and a
/// round's maps and locks cost a few hundred instructions to make and drop.
#[derive(Default)]
pub(crate) struct RoundSlot(OnceLock<Round>);

impl RoundSlot {
    /// A slot holding `round`, already opened.
    pub(crate) fn opened_with(round: Round) -> Self {
        Self(OnceLock::from(round))
    }

    /// The round, opened empty now if it was not yet.
    pub(crate) fn round(&self) -> &Round {
        self.0.get_or_init(Round::default)
    }

    /// The round, if it was opened.
    pub(crate) fn opened(&self) -> Option<&Round> {
        self.0.get()
    }
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

    pub(crate) fn fail(&self, error: ErrorObject) {
        self.failure.lock().expect("round lock").get_or_insert(error);
    }

    pub(crate) async fn ask<T: DeserializeOwned>(
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
    pub(crate) outbox: NotificationSink,
    pub(crate) pending: PendingAnswers,
    pub(crate) next_id: Arc<AtomicU64>,
    pub(crate) timeout: Duration,
}

/// Answers the connection's reader routes to waiting server-to-client requests, by id.
pub(crate) type PendingAnswers =
    Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<JsonObject, ErrorObject>>>>>;

impl LegacyPeer {
    /// Sends `method` with `params` to the client and reads its result as `T`.
    pub(crate) async fn request<T: DeserializeOwned>(
        &self,
        method: Method,
        params: Value,
    ) -> Result<T, InputError> {
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

/// How a modern round ended.
pub(crate) enum RoundEnd<T> {
    /// The handler finished.
    Done(T),
    /// The handler asked questions that have no answers yet.
    Asked,
}

/// Polls `future` until it finishes, or until it is waiting with unanswered questions of
/// `round`. Pinned where it is, in this function's own state: no box of its own.
pub(crate) async fn until_asked<F: Future>(future: F, slot: &RoundSlot) -> RoundEnd<F::Output> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| match future.as_mut().poll(cx) {
        Poll::Ready(output) => Poll::Ready(RoundEnd::Done(output)),
        Poll::Pending
            if slot.opened().is_some_and(|round| !round.asked.lock().expect("round lock").is_empty()) =>
        {
            Poll::Ready(RoundEnd::Asked)
        }
        Poll::Pending => Poll::Pending,
    })
    .await
}
