//! The life of a request, written once for every transport.
//!
//! A [`Lifecycle`] belongs to one endpoint (a stdio connection, a Streamable HTTP endpoint with
//! all its clients, an HTTP+SSE endpoint with all its sessions): it holds the permits that bound
//! the work running at once, the count that bounds the work waiting for a permit, and the
//! tokens of shutdown. An [`Exchange`] is one peer of it — a connection or a legacy session,
//! whose request ids must be unique while in flight (BASE-05), or the stateless modern requests
//! of an HTTP endpoint — with its in-flight table, the server's own requests awaiting the
//! client's answers, its subscriptions, and the tasks that run its requests.
//!
//! [`Exchange::admit`] lets a request in or refuses it at once, and gives it its turns and its
//! deadline from arrival; [`Admission::run`] serves it through the server's layers — the
//! lifecycle's own by default, which take a turn (never for `subscriptions/listen`), keep the
//! time limit and catch a panic into `-32603` (`super::middleware::lifecycle`) — and returns
//! `None` when the request was cancelled — by `notifications/cancelled`, by its transport (a
//! closed stream), by the end of its session or by shutdown — since a cancelled request gets no
//! response (CANCEL-05).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject, Message, RequestId};
use modelctx_protocol::{JsonObject, Method};
use serde::Deserialize;
use tokio::sync::{Notify, Semaphore, SemaphorePermit, TryAcquireError};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use super::RequestContext;
use super::answer::Answer;
use super::input::{LegacyPeer, PendingAnswers};
use super::middleware::McpRequest;
use super::outgoing::Outgoing;
use super::sink::NotificationSink;
use super::telemetry;
use super::{Limits, Server, Tokens};
use crate::telemetry::Subject;

/// How a request ended: its answer, or `None` when it was cancelled (and gets no response).
pub(crate) type Outcome = Option<Result<Answer, ErrorObject>>;

/// The client's answer to a request of the server: its result or its error.
pub(crate) type ClientAnswer = Result<JsonObject, ErrorObject>;

/// Everything one endpoint's requests share.
pub(crate) struct Lifecycle {
    server: Server,
    limits: Limits,
    /// The turns requests wait for ([`Limits::max_in_flight`]), held by the
    /// [`super::middleware::Turn`] step.
    permits: Arc<Semaphore>,
    /// Requests admitted and not finished (running or waiting for a permit), subscriptions
    /// aside.
    admitted: AtomicUsize,
    /// How many may be admitted at once: [`Limits::max_in_flight`] + [`Limits::max_queued`].
    queue_bound: usize,
    /// The bytes of the requests admitted and not finished ([`Limits::max_admitted_bytes`]).
    admitted_bytes: AtomicUsize,
    /// Set when a request did not fit in the bytes left: the next that frees bytes tells
    /// `freed` (so that a finished request tells no one when no one waits).
    bytes_wanted: AtomicBool,
    /// Told when a full queue gets room again (a connection holding requests waits for it).
    freed: Notify,
    /// Tripped when shutdown starts: long-lived requests end gracefully.
    closing: CancellationToken,
    /// Tripped when the grace period is over: every request still running is cancelled.
    abort: CancellationToken,
}

impl Lifecycle {
    /// The lifecycle of one endpoint serving `server`, bounded by its [`Limits`].
    pub(crate) fn new(server: Server) -> Arc<Self> {
        let limits = server.options().limits;
        Arc::new(Self {
            permits: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            queue_bound: limits.max_in_flight.saturating_add(limits.max_queued),
            limits,
            server,
            admitted: AtomicUsize::new(0),
            admitted_bytes: AtomicUsize::new(0),
            bytes_wanted: AtomicBool::new(false),
            freed: Notify::new(),
            closing: CancellationToken::new(),
            abort: CancellationToken::new(),
        })
    }

    /// The server whose requests this lifecycle runs.
    pub(crate) fn server(&self) -> &Server {
        &self.server
    }

    /// Tripped when shutdown starts.
    #[cfg(feature = "http-server")]
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.closing
    }

    /// A connection's only peer, whose request ids must be unique while in flight; it may
    /// take every turn.
    pub(crate) fn exchange(self: &Arc<Self>) -> Exchange {
        Exchange::new(self, true, None)
    }

    /// A session, one client among others of the endpoint: ids unique while in flight, and at
    /// most [`Limits::max_in_flight_per_client`] turns held at once.
    #[cfg(feature = "http-server")]
    pub(crate) fn client_exchange(self: &Arc<Self>) -> Exchange {
        let share = self.limits.max_in_flight_per_client.max(1);
        let share = (share < self.limits.max_in_flight).then(|| Arc::new(Semaphore::new(share)));
        Exchange::new(self, true, share)
    }

    /// The peer of requests that each arrive on their own stream (a modern Streamable HTTP
    /// POST): their ids are not tracked, since two clients may well use the same one.
    #[cfg(feature = "http-server")]
    pub(crate) fn stateless(self: &Arc<Self>) -> Exchange {
        Exchange::new(self, false, None)
    }

    /// Starts shutdown: long-lived requests (`subscriptions/listen`) end gracefully.
    pub(crate) fn close(&self) {
        self.closing.cancel();
    }

    /// Whether `bytes` more fit in [`Limits::max_admitted_bytes`] (always, when none are
    /// admitted); when not, the next request to finish says so on `freed`.
    fn fits(&self, bytes: usize) -> bool {
        let fits =
            bytes_fit(self.admitted_bytes.load(Ordering::Acquire), bytes, self.limits.max_admitted_bytes);
        if !fits {
            self.bytes_wanted.store(true, Ordering::Release);
        }
        fits
    }

    /// Whether `bytes` more would be turned away now: the queue is full or they do not fit.
    fn is_full_for(&self, bytes: usize) -> bool {
        self.admitted.load(Ordering::Acquire) >= self.queue_bound || !self.fits(bytes)
    }

    /// Takes back a finished (or refused) request's place and bytes, telling those waiting
    /// for room.
    fn release(&self, bytes: usize) {
        let was_full = self.admitted.fetch_sub(1, Ordering::AcqRel) == self.queue_bound;
        self.admitted_bytes.fetch_sub(bytes, Ordering::AcqRel);
        if was_full || self.bytes_wanted.swap(false, Ordering::AcqRel) {
            self.freed.notify_waiters();
        }
    }

    /// Cancels every request of every peer (the grace period of shutdown is over).
    #[cfg(feature = "http-server")]
    pub(crate) fn abort(&self) {
        self.abort.cancel();
    }
}

/// One peer of a [`Lifecycle`]: a connection, a legacy session, or the stateless modern
/// requests of an HTTP endpoint. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Exchange {
    inner: Arc<ExchangeInner>,
}

/// The cancellation token of each request running, by id.
type InFlight = HashMap<RequestId, CancellationToken, foldhash::fast::RandomState>;

struct ExchangeInner {
    lifecycle: Arc<Lifecycle>,
    /// Whether ids are entered in `in_flight` (and a duplicate refused).
    track_ids: bool,
    /// The requests running, by id: entered and removed once per request, so hashed with
    /// `foldhash` (seeded per process) rather than SipHash; at most the admission's bound of ids,
    /// so ids a peer chose to collide cost it only its own requests' time.
    in_flight: Mutex<InFlight>,
    /// The server's own requests awaiting the client's answer, by id.
    answers: PendingAnswers,
    next_outgoing_id: Arc<AtomicU64>,
    subscriptions: AtomicUsize,
    /// This peer's share of the endpoint's turns ([`Limits::max_in_flight_per_client`]), when
    /// it is one client among others.
    share: Option<Arc<Semaphore>>,
    /// Tripped when this peer ends (a session deleted, a stream closed): its requests are
    /// cancelled.
    abort: CancellationToken,
    /// The tasks running this peer's requests.
    tasks: TaskTracker,
}

/// Why a request was not let in.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Its id is already used by a request in flight (`-32600`, BASE-05).
    DuplicateId(ErrorObject),
    /// The queue, or the subscriptions of this peer, are full (`-32603`; HTTP 503).
    Busy(ErrorObject),
}

impl Refusal {
    /// The error the client is answered with.
    pub(crate) fn into_error(self) -> ErrorObject {
        match self {
            Self::DuplicateId(error) | Self::Busy(error) => error,
        }
    }

    /// The HTTP status of the answer: 503 when the server is busy (try again later).
    pub(crate) fn http_status(&self) -> u16 {
        match self {
            Self::DuplicateId(_) => 200,
            Self::Busy(_) => 503,
        }
    }
}

/// The number of a peer's first request to the client: 1, or — for a server whose instances
/// share sessions over a bus — a random start in a space of its own (the high 32 bits), so
/// that two instances' requests in one session do not share ids.
fn first_outgoing_id(server: &Server) -> u64 {
    if server.bus().is_none() {
        return 1;
    }
    let mut start = [0u8; 4];
    match getrandom::fill(&mut start) {
        Ok(()) => (u64::from(u32::from_le_bytes(start)) << 32) | 1,
        Err(_) => 1,
    }
}

impl Exchange {
    fn new(lifecycle: &Arc<Lifecycle>, track_ids: bool, share: Option<Arc<Semaphore>>) -> Self {
        Self {
            inner: Arc::new(ExchangeInner {
                abort: lifecycle.abort.child_token(),
                lifecycle: lifecycle.clone(),
                track_ids,
                in_flight: Mutex::new(InFlight::default()),
                answers: PendingAnswers::default(),
                next_outgoing_id: Arc::new(AtomicU64::new(first_outgoing_id(&lifecycle.server))),
                subscriptions: AtomicUsize::new(0),
                share,
                tasks: TaskTracker::new(),
            }),
        }
    }

    fn in_flight(&self) -> MutexGuard<'_, InFlight> {
        self.inner.in_flight.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The lifecycle this peer belongs to.
    pub(crate) fn lifecycle(&self) -> &Arc<Lifecycle> {
        &self.inner.lifecycle
    }

    /// Lets request `id` of `method` (`bytes` long), arrived now, in or refuses it at once: a duplicate id, a
    /// full queue (`max_in_flight + max_queued` requests, or `max_admitted_bytes`, already
    /// admitted), or too many subscriptions.
    pub(crate) fn admit(&self, id: &RequestId, method: &Method, bytes: usize) -> Result<Admitted, Refusal> {
        let lifecycle = &self.inner.lifecycle;
        let limits = &lifecycle.limits;
        let mut in_flight = self.inner.track_ids.then(|| self.in_flight());
        if let Some(table) = &in_flight
            && table.contains_key(id)
        {
            return Err(Refusal::DuplicateId(ErrorObject::invalid_request(format!(
                "id {id} is already used by a request in flight"
            ))));
        }
        // A subscription mostly waits: it holds no permit and has no time limit, and it is
        // bounded by [`Limits::max_subscriptions`] instead of the queue.
        let subscription = long_lived(method);
        let (counter, bound) = if subscription {
            (&self.inner.subscriptions, limits.max_subscriptions)
        } else {
            (&lifecycle.admitted, lifecycle.queue_bound)
        };
        if counter
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < bound).then_some(n + 1))
            .is_err()
        {
            let error = if subscription {
                format!("server busy: this client already holds {bound} subscriptions; end one first")
            } else {
                format!("server busy: {bound} requests are already in flight or queued; try again later")
            };
            return Err(Refusal::Busy(ErrorObject::new(ErrorCode::INTERNAL_ERROR, error)));
        }
        let bytes = if subscription { 0 } else { bytes };
        if !subscription {
            let bound = limits.max_admitted_bytes;
            let taken =
                lifecycle.admitted_bytes.fetch_update(Ordering::AcqRel, Ordering::Acquire, |admitted| {
                    bytes_fit(admitted, bytes, bound).then(|| admitted + bytes)
                });
            if let Err(admitted) = taken {
                lifecycle.release(0);
                let error = format!(
                    "server busy: requests of {admitted} bytes are already in flight or queued, and this one's {bytes} \
                     would pass the {bound} allowed; try again later"
                );
                return Err(Refusal::Busy(ErrorObject::new(ErrorCode::INTERNAL_ERROR, error)));
            }
        }
        let token = self.inner.abort.child_token();
        if let Some(table) = &mut in_flight {
            table.insert(id.clone(), token.clone());
        }
        let admission = Admission {
            exchange: self.clone(),
            id: in_flight.map(|_| id.clone()),
            subscription,
            bytes,
            deadline: (!subscription).then_some(limits.request_timeout).flatten().map(|t| Instant::now() + t),
        };
        Ok(Admitted { admission, token })
    }

    /// Whether a request of `method` (`bytes` long) would be refused now for a full queue
    /// (`max_in_flight + max_queued` requests, or `max_admitted_bytes`, admitted). A
    /// subscription takes no place in the queue: never.
    pub(crate) fn is_full_for(&self, method: &Method, bytes: usize) -> bool {
        !long_lived(method) && self.inner.lifecycle.is_full_for(bytes)
    }

    /// Waits until the queue has room for a request of `bytes` (at once when it has).
    pub(crate) async fn room(&self, bytes: usize) {
        let lifecycle = &self.inner.lifecycle;
        loop {
            // Made before the check, so that room made between the two is not missed.
            let freed = lifecycle.freed.notified();
            if !lifecycle.is_full_for(bytes) {
                return;
            }
            freed.await;
        }
    }

    /// Takes `notifications/cancelled`: trips the named request's token. An unknown or
    /// finished request, or params without a `requestId`, are ignored (CANCEL-07).
    /// `false` when the request is not in flight here (ended, unknown, or another
    /// instance's); a cancellation naming no request is ignored (`true`: nothing to pass on).
    #[cfg(feature = "http-server")]
    pub(crate) fn cancel(&self, params: Option<JsonObject>) -> bool {
        cancelled_request(params.as_ref()).is_none_or(|id| self.cancel_request(&id))
    }

    /// Trips the token of request `id`; `false` when it is not in flight here.
    pub(crate) fn cancel_request(&self, id: &RequestId) -> bool {
        match self.in_flight().get(id).cloned() {
            Some(token) => {
                token.cancel();
                true
            }
            None => {
                tracing::debug!("cancellation of a request that is not in flight here");
                false
            }
        }
    }

    /// Cancels every request of this peer (its session ended, or its stream closed).
    pub(crate) fn end(&self) {
        self.inner.abort.cancel();
    }

    /// Polls `task` once here, and returns its output when it waits on nothing; otherwise runs
    /// the rest in a task where [`Exchange::drain`] waits for it (whose first poll registers the
    /// wakers it waits on) and returns that task. A request that waits on nothing needs no task.
    #[cfg(feature = "http-server")]
    pub(crate) fn finish_or_spawn<F>(
        &self,
        mut task: std::pin::Pin<Box<F>>,
    ) -> Result<F::Output, JoinHandle<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        match futures::FutureExt::now_or_never(&mut task) {
            Some(output) => Ok(output),
            None => Err(self.spawn(task)),
        }
    }

    /// Runs a request's task where [`Exchange::drain`] waits for it.
    pub(crate) fn spawn<F>(&self, task: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.inner.tasks.spawn(task)
    }

    /// Lets this peer's requests finish within [`Limits::shutdown_grace`], then cancels those
    /// still running and waits for them to stop.
    pub(crate) async fn drain(&self) {
        let tasks = &self.inner.tasks;
        tasks.close();
        if tokio::time::timeout(self.inner.lifecycle.limits.shutdown_grace, tasks.wait()).await.is_err() {
            tracing::info!(count = tasks.len(), "cancelling requests still running at shutdown");
            self.end();
            tasks.wait().await;
        }
    }

    /// Hands the client's answer to the server's own request waiting for it; gives the
    /// answer back when none waits here (late, unknown, or another instance's).
    pub(crate) fn deliver(&self, id: RequestId, outcome: ClientAnswer) -> Option<(RequestId, ClientAnswer)> {
        let waiter = self.inner.answers.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
        match waiter {
            Some(waiter) => {
                let _ = waiter.send(outcome);
                None
            }
            None => {
                tracing::debug!(%id, "an answer to no request waiting here (late, or unknown)");
                Some((id, outcome))
            }
        }
    }

    /// The way a legacy request's handler asks the client: live requests written to
    /// `outbox`, answered through [`Exchange::deliver`].
    pub(crate) fn legacy_peer(&self, outbox: NotificationSink) -> LegacyPeer {
        LegacyPeer {
            outbox,
            pending: self.inner.answers.clone(),
            next_id: self.inner.next_outgoing_id.clone(),
            timeout: self.inner.lifecycle.limits.client_request_timeout,
        }
    }
}

/// The turns a request waits for: one of its client's share, when its client has one, then
/// one of the endpoint's ([`Limits::max_in_flight`]).
#[derive(Clone)]
pub(crate) struct Turns {
    share: Option<Arc<Semaphore>>,
    endpoint: Arc<Semaphore>,
}

/// A request's turns, given back when dropped (`None`: its semaphore is closed, and no turn is
/// needed).
type Taken<'a> = (Option<SemaphorePermit<'a>>, Option<SemaphorePermit<'a>>);

impl Turns {
    /// The request's turns: taken at once when they are free, as for most requests, else
    /// waited for in line. The wait is boxed: it holds two semaphores' waits, which every
    /// request's future would otherwise carry.
    pub(crate) async fn take(&self) -> Taken<'_> {
        match self.take_free() {
            Some(taken) => taken,
            None => Box::pin(self.wait()).await,
        }
    }

    /// The request's turns if both are free now.
    fn take_free(&self) -> Option<Taken<'_>> {
        let share = match &self.share {
            Some(share) => free(share)?,
            None => None,
        };
        Some((share, free(&self.endpoint)?))
    }

    async fn wait(&self) -> Taken<'_> {
        let share = match &self.share {
            Some(share) => turn(share).await,
            None => None,
        };
        (share, turn(&self.endpoint).await)
    }
}

/// A turn of `turns` if one is free (a free turn is never one a waiting request is owed: a
/// turn given back goes to the first waiting); `Some(None)` when `turns` is closed; `None`
/// when the turn must be waited for.
fn free(turns: &Semaphore) -> Option<Option<SemaphorePermit<'_>>> {
    match turns.try_acquire() {
        Ok(permit) => Some(Some(permit)),
        Err(TryAcquireError::Closed) => Some(None),
        Err(TryAcquireError::NoPermits) => None,
    }
}

/// A turn of `turns`: taken at once when one is free, else waited for in line.
async fn turn(turns: &Semaphore) -> Option<SemaphorePermit<'_>> {
    match free(turns) {
        Some(taken) => taken,
        None => turns.acquire().await.ok(),
    }
}

/// Whether a request of `bytes` fits beside `admitted` bytes within `bound`: always, when none
/// are admitted (so that one message of the largest size allowed always gets in).
fn bytes_fit(admitted: usize, bytes: usize, bound: usize) -> bool {
    admitted == 0 || admitted.saturating_add(bytes) <= bound
}

/// A request [`Admission::start`]ed: answered at once, or running in its task.
#[cfg(feature = "http-server")]
pub(crate) enum Started {
    /// It finished in its first poll.
    Answered(Outcome),
    /// Its task, which ends with its outcome.
    Running(JoinHandle<Outcome>),
}

#[cfg(feature = "http-server")]
impl Started {
    /// The outcome, once the request has finished (a task that panicked or was aborted counts
    /// as cancelled: no response).
    pub(crate) async fn finished(self) -> Outcome {
        match self {
            Self::Answered(outcome) => outcome,
            Self::Running(task) => task.await.ok().flatten(),
        }
    }
}

/// What an admitted request asks of the server, with its context.
pub(crate) enum Job {
    /// A request with its params as JSON: through the server's layers to the method table.
    Request(McpRequest),
    /// A `tools/call` read typed: to the method table's `tools/call` (its server has no layer
    /// that reads params).
    ToolCall { ctx: RequestContext, name: String, arguments: Option<JsonObject> },
}

impl Job {
    /// The request's context.
    pub(crate) fn ctx(&self) -> &RequestContext {
        match self {
            Self::Request(request) => &request.ctx,
            Self::ToolCall { ctx, .. } => ctx,
        }
    }

    /// The request's method.
    pub(crate) fn method(&self) -> &Method {
        match self {
            Self::Request(request) => &request.method,
            Self::ToolCall { .. } => &Method::CallTool,
        }
    }

    /// The request's params as JSON, if it has them so.
    fn params(&self) -> Option<&JsonObject> {
        match self {
            Self::Request(request) => request.params.as_ref(),
            Self::ToolCall { .. } => None,
        }
    }

    /// What the request is about, for its telemetry.
    fn subject(&self) -> Subject<'_> {
        match self {
            Self::Request(request) => Subject::of(&request.method, request.params.as_ref()),
            Self::ToolCall { name, .. } => Subject::of_tool(name),
        }
    }
}

/// A request [`Exchange::admit`] let in, and its own cancellation token, which its context
/// is to hold.
pub(crate) struct Admitted {
    pub(crate) admission: Admission,
    pub(crate) token: CancellationToken,
}

/// A request let in: its place in the in-flight table and the queue until it is dropped.
pub(crate) struct Admission {
    exchange: Exchange,
    /// The id entered in the in-flight table, if ids are tracked.
    id: Option<RequestId>,
    subscription: bool,
    /// Its bytes as they arrived (0 for a subscription).
    bytes: usize,
    /// Arrival plus [`Limits::request_timeout`]; `None` for no limit.
    deadline: Option<Instant>,
}

impl Admission {
    /// The tokens for the request's context, `request` its own; `release` asks the transport
    /// to release the response stream.
    pub(crate) fn tokens(&self, request: CancellationToken, release: Option<CancellationToken>) -> Tokens {
        let lifecycle = &self.exchange.inner.lifecycle;
        Tokens {
            request,
            connection: lifecycle.closing.clone(),
            release,
            turns: (!self.subscription).then(|| Turns {
                share: self.exchange.inner.share.clone(),
                endpoint: lifecycle.permits.clone(),
            }),
            deadline: self.deadline.zip(lifecycle.limits.request_timeout),
        }
    }

    /// Starts [`Admission::run`] with [`Exchange::finish_or_spawn`]: answered at once when it
    /// waits on nothing, else running in a task of the request's peer.
    #[cfg(feature = "http-server")]
    pub(crate) fn start(self, job: Job) -> Started {
        let exchange = self.exchange.clone();
        // Boxed: the request's future is large, and tokio moves a task's future several times
        // (into the task cell, through its stages); a box moves as a pointer.
        match exchange.finish_or_spawn(Box::pin(self.run(job))) {
            Ok(outcome) => Started::Answered(outcome),
            Err(task) => Started::Running(task),
        }
    }

    /// Runs the request to its end through the server's layers — by default the lifecycle's
    /// own first: a turn (a subscription takes none), the arrival deadline, the panic guard
    /// (`server::middleware::lifecycle`). `None` when the request was cancelled.
    pub(crate) async fn run(self, job: Job) -> Outcome {
        let server = self.exchange.lifecycle().server().clone();
        let ctx = job.ctx().clone();
        let telemetry = telemetry::start(&ctx, job.method(), || job.subject(), job.params());
        // The work is polled first, and the cancellation only once it waits: a request that
        // waits on nothing registers no waker with its token. One cancelled before it began
        // does not begin.
        let token = ctx.cancellation();
        let finished = if token.is_cancelled() {
            None
        } else {
            tokio::select! {
                biased;
                answered = server.serve_job(job).instrument(telemetry.span().clone()) => Some(answered),
                () = token.cancelled() => None,
            }
        };
        // Cancelled, even as it finished: no response — unless its deadline cancelled it, and
        // it is answered with that.
        let answered = finished.filter(|_| !token.is_cancelled() || ctx.expired());
        telemetry.end(|| telemetry::failure(answered.as_ref()));
        answered
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        if let Some(id) = &self.id {
            self.exchange.in_flight().remove(id);
        }
        let inner = &self.exchange.inner;
        if self.subscription {
            inner.subscriptions.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        inner.lifecycle.release(self.bytes);
    }
}

/// The request a `notifications/cancelled` names; `None` when its params name none, or name
/// it malformed (ignored, CANCEL-07).
pub(crate) fn cancelled_request(params: Option<&JsonObject>) -> Option<RequestId> {
    let id = params?.get("requestId")?;
    RequestId::deserialize(id)
        .inspect_err(|error| tracing::debug!(%error, "ignoring a malformed cancellation"))
        .ok()
}

/// The message that answers request `id` with `result`.
pub(crate) fn response(id: RequestId, result: Result<Answer, ErrorObject>) -> Outgoing {
    match result {
        Ok(answer) => answer.into_response(id),
        Err(error) => {
            Message::Error(modelctx_protocol::jsonrpc::ErrorResponse { id: Some(id), error }).into()
        }
    }
}

/// Whether `method` is a subscription, held open until the client ends it: `subscriptions/listen`
/// and (experimental) an `events/stream`. Such a request takes no place in the queue and has no
/// time limit; [`super::Limits::max_subscriptions`] bounds them.
pub(crate) fn long_lived(method: &Method) -> bool {
    match method {
        Method::SubscriptionsListen => true,
        // Only an extension's method is compared by name: known methods cost no string compare.
        #[cfg(feature = "experimental")]
        Method::Other(name) => &**name == modelctx_protocol::events::STREAM,
        _ => false,
    }
}
