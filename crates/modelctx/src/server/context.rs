//! What a handler knows about the request it serves, and how it talks back while it runs.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use modelctx_protocol::era::DeclaredClient;
use modelctx_protocol::jsonrpc::{Message, Notification, ProgressToken, RequestId};
use modelctx_protocol::meta::RELATED_TASK;
use modelctx_protocol::model::ClientCapabilities;
use modelctx_protocol::types::{
    Implementation, LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams,
};
use modelctx_protocol::v2026::CacheScope;
use modelctx_protocol::{Era, JsonObject, Method, ProtocolVersion};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::input::InputChannel;
use super::outgoing::Outgoing;
use super::sink::NotificationSink;
use super::tasks::Running;
use super::{CacheDefaults, Principal, Server};

/// Shared state handed to handlers through [`crate::server::State`], by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    pub(crate) fn with<T: Send + Sync + 'static>(&self, value: T) -> Self {
        let mut map = (*self.0).clone();
        map.insert(TypeId::of::<T>(), Arc::new(value));
        Self(Arc::new(map))
    }

    pub(crate) fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.0.get(&TypeId::of::<T>()).and_then(|value| value.downcast_ref::<T>()).cloned()
    }
}

/// What the lifecycle gives a request it admitted: its cancellation tokens (its own, its
/// connection's shutdown, and the one that asks the transport to release the response
/// stream), the endpoint's turns it waits for, and its arrival deadline with the limit it
/// came from.
#[derive(Clone, Default)]
pub(crate) struct Tokens {
    pub(crate) request: CancellationToken,
    pub(crate) connection: CancellationToken,
    /// `None` where the transport has no response stream to release.
    pub(crate) release: Option<CancellationToken>,
    pub(crate) turns: Option<super::exchange::Turns>,
    pub(crate) deadline: Option<(tokio::time::Instant, std::time::Duration)>,
}

/// The facts of one request, fixed when it arrives.
pub(crate) struct RequestFacts {
    pub(crate) id: RequestId,
    pub(crate) era: Era,
    pub(crate) version: ProtocolVersion,
    /// What the client declared of itself.
    pub(crate) client: Arc<DeclaredClient>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Option<LoggingLevel>,
    /// The transport's id of the request's session (`Mcp-Session-Id`), if it has one.
    pub(crate) session_id: Option<String>,
    /// The caller an HTTP authenticator verified, if one did.
    pub(crate) principal: Option<Arc<Principal>>,
    /// `network.transport`: `pipe` (stdio, in process) or `tcp` (HTTP).
    pub(crate) network_transport: &'static str,
}

/// The request context: era, version, client capabilities, cancellation, and the way to send
/// progress and log messages for this request. Cheap to clone.
#[derive(Clone)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    facts: RequestFacts,
    input: InputChannel,
    cancellation: CancellationToken,
    closing: CancellationToken,
    release: Option<CancellationToken>,
    /// The turns this request waits for (`None`: it takes none).
    turns: Option<super::exchange::Turns>,
    /// When the request must be answered by, counted from arrival, and the limit it came from.
    deadline: Option<(tokio::time::Instant, std::time::Duration)>,
    /// Set when the deadline passed: the request was cancelled and is answered all the same.
    expired: std::sync::atomic::AtomicBool,
    sink: NotificationSink,
    server: Server,
    last_progress: Mutex<Option<f64>>,
    /// The cache hints the handler set on its own result.
    cache: Mutex<Option<CacheDefaults>>,
    /// Whether the request may become a task, and the task once it is one.
    task: Mutex<TaskSlot>,
}

/// A request's relation to the tasks extension.
#[derive(Default)]
pub(crate) enum TaskSlot {
    /// Not a call that may become a task.
    #[default]
    Unavailable,
    /// A call that becomes a task when its handler asks (`continue_as_task`).
    Available {
        /// The handler asked; the runtime creates the task and wakes it.
        requested: bool,
        waker: Option<std::task::Waker>,
    },
    /// The request runs as this task.
    Running(Arc<Running>),
}

impl RequestContext {
    pub(crate) fn new(
        facts: RequestFacts,
        input: InputChannel,
        tokens: Tokens,
        sink: NotificationSink,
        server: Server,
    ) -> Self {
        let Tokens { request: cancellation, connection: closing, release, turns, deadline } = tokens;
        Self {
            inner: Arc::new(ContextInner {
                facts,
                input,
                cancellation,
                closing,
                release,
                turns,
                deadline,
                expired: std::sync::atomic::AtomicBool::new(false),
                sink,
                server,
                last_progress: Mutex::new(None),
                cache: Mutex::new(None),
                task: Mutex::new(TaskSlot::Unavailable),
            }),
        }
    }

    fn task_slot(&self) -> std::sync::MutexGuard<'_, TaskSlot> {
        self.inner.task.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Lets the handler decide when the call becomes a task.
    pub(crate) fn allow_task(&self) {
        *self.task_slot() = TaskSlot::Available { requested: false, waker: None };
    }

    /// Whether the handler asked to become a task.
    pub(crate) fn task_requested(&self) -> bool {
        matches!(*self.task_slot(), TaskSlot::Available { requested: true, .. })
    }

    /// From now on the request runs as `task`; a handler waiting in `continue_as_task` goes on.
    pub(crate) fn run_as(&self, task: Arc<Running>) {
        let previous = std::mem::replace(&mut *self.task_slot(), TaskSlot::Running(task));
        if let TaskSlot::Available { waker: Some(waker), .. } = previous {
            waker.wake();
        }
    }

    /// Whether the request runs as a task, or may become one in its handler.
    #[cfg(feature = "gateway")]
    pub(crate) fn may_become_task(&self) -> bool {
        !matches!(*self.task_slot(), TaskSlot::Unavailable)
    }

    /// The task the request runs as, once it is one.
    pub(crate) fn task(&self) -> Option<Arc<Running>> {
        match &*self.task_slot() {
            TaskSlot::Running(task) => Some(task.clone()),
            _ => None,
        }
    }

    /// For a tool registered with [`ToolDef::task_starts_in_handler`](super::ToolDef::task_starts_in_handler):
    /// turns the call into a task now. The client gets the task's id; what the handler does
    /// after this runs as the task (its questions become the task's `inputRequests`). Returns
    /// the task's id, or `None` when the call cannot be a task (the client did not declare the
    /// extension, or the tool is not one of those): the handler then simply goes on. Ask what
    /// must be known before the work starts first: those questions are rounds of the call
    /// itself (TX-06).
    pub async fn continue_as_task(&self) -> Option<String> {
        std::future::poll_fn(|cx| {
            let mut slot = self.task_slot();
            match &mut *slot {
                TaskSlot::Unavailable => std::task::Poll::Ready(None),
                TaskSlot::Running(task) => std::task::Poll::Ready(Some(task.id.clone())),
                TaskSlot::Available { requested, waker } => {
                    *requested = true;
                    *waker = Some(cx.waker().clone());
                    std::task::Poll::Pending
                }
            }
        })
        .await
    }

    /// Ends this request's response stream now, where the transport can resume it: a
    /// 2025-11-25 Streamable HTTP client reconnects with `Last-Event-ID` and receives the rest
    /// (SSE polling, HTTP-45). The handler goes on; elsewhere this does nothing.
    pub fn release_stream(&self) {
        if let Some(release) = &self.inner.release {
            release.cancel();
        }
    }

    /// Tripped when the connection starts shutting down (long-lived requests such as
    /// `subscriptions/listen` then end gracefully).
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.inner.closing
    }

    pub(crate) fn input(&self) -> &InputChannel {
        &self.inner.input
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.facts.id
    }

    /// Modern (stateless) or legacy (session).
    pub fn era(&self) -> Era {
        self.inner.facts.era
    }

    /// The protocol version of this request (modern) or of the session (legacy).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.facts.version
    }

    /// What the client supports, as declared for this request (modern) or at `initialize`
    /// (legacy).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.facts.client.capabilities
    }

    /// The id of the request's 2025-11-25 Streamable HTTP session (`Mcp-Session-Id`); `None`
    /// for a modern request and on stdio, whose connection is its session.
    pub fn session_id(&self) -> Option<&str> {
        self.inner.facts.session_id.as_deref()
    }

    /// How the request reached the server, as OpenTelemetry's `network.transport` names it:
    /// `pipe` (stdio, in process) or `tcp` (HTTP).
    pub(crate) fn network_transport(&self) -> &'static str {
        self.inner.facts.network_transport
    }

    /// The caller as its access token says, when the request came over HTTP through an
    /// authenticator (`HttpOptions::authenticator`); `None` otherwise.
    pub fn principal(&self) -> Option<&Principal> {
        self.inner.facts.principal.as_deref()
    }

    /// The client software, as it describes itself (for display and logs, not for decisions).
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.facts.client.info.as_ref()
    }

    /// Tripped when the client cancels the request or the connection shuts down.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancellation
    }

    /// The turns the request waits for, when it takes one.
    pub(crate) fn turns(&self) -> Option<&super::exchange::Turns> {
        self.inner.turns.as_ref()
    }

    /// When the request must be answered by, and the limit that set it; `None` for none.
    pub(crate) fn deadline(&self) -> Option<(tokio::time::Instant, std::time::Duration)> {
        self.inner.deadline
    }

    /// Cancels the request because its deadline passed: the work it started stops, and it is
    /// answered with the time-out.
    pub(crate) fn expire(&self) {
        self.inner.expired.store(true, std::sync::atomic::Ordering::Release);
        self.inner.cancellation.cancel();
    }

    /// Whether the request's deadline passed ([`RequestContext::expire`]).
    pub(crate) fn expired(&self) -> bool {
        self.inner.expired.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancellation.is_cancelled()
    }

    /// Whether the client asked for progress (the request has a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.inner.facts.progress_token.is_some()
    }

    /// The lowest level of log messages the client asked for with this request (modern: its
    /// `logLevel`; legacy: the session's `logging/setLevel`); `None`: it wants none.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.inner.facts.log_level
    }

    /// Reports progress, if the client asked for it with a `progressToken`. `progress` must
    /// grow from one call to the next; a value that does not is dropped (PROG-02).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = self.inner.facts.progress_token.clone() else { return };
        {
            let mut last = self.inner.last_progress.lock().expect("progress lock");
            if last.is_some_and(|previous| progress <= previous) {
                tracing::debug!(progress, "dropping a progress value that does not increase");
                return;
            }
            *last = Some(progress);
        }
        let params =
            ProgressNotificationParams { progress_token: token, progress, total, message, meta: None };
        self.notify(Method::Progress, &params).await;
    }

    /// Sends a log message for this request when the client asked for this level or lower
    /// (modern: the request's `logLevel`; legacy: the session's `logging/setLevel`). A modern
    /// request that did not ask gets none (LOG-02).
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let Some(threshold) = self.inner.facts.log_level else { return };
        if level < threshold {
            return;
        }
        let params =
            LoggingMessageNotificationParams { level, logger: logger.map(str::to_owned), data, meta: None };
        self.notify(Method::LoggingMessage, &params).await;
    }

    /// Sets the cache hints of this request's 2026-07-28 result (`ttlMs`, `cacheScope`) in
    /// place of the server's [`crate::server::ServerOptions::cache`]: a resource that changes
    /// daily can say so, one that is per-user can stay `private`. Only cacheable results carry
    /// them (`resources/read` among handler results); a result reached through rounds of
    /// input is never cached by clients anyway (CACHE-05).
    pub fn set_cache(&self, ttl: std::time::Duration, scope: CacheScope) {
        *self.inner.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(CacheDefaults::new(ttl, scope));
    }

    /// The cache hints for this request's result: the handler's, else the definition's
    /// (`defined`), else the server's.
    pub(crate) fn cache(&self, defined: Option<CacheDefaults>) -> CacheDefaults {
        let set = *self.inner.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        set.or(defined).unwrap_or(self.inner.server.options().cache)
    }

    /// A place for one notification on this request's way out, once the peer has read enough
    /// to make room; `None` when the way out is closed.
    pub(crate) async fn room(&self) -> Option<mpsc::OwnedPermit<Outgoing>> {
        self.inner.sink.room().await
    }

    /// Shared state registered with [`crate::server::ServerBuilder::state`].
    pub fn state<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.inner.server.state().get()
    }

    /// The server serving this request — to add or remove definitions, or announce a
    /// resource change, from inside a handler.
    pub fn server(&self) -> &Server {
        &self.inner.server
    }

    /// Tells the client that the URL-mode elicitation `elicitation_id` it was asked is
    /// complete — the user finished at the URL — with `notifications/elicitation/complete`,
    /// to this request's client only (ELIC-16). 2025-11-25 only: a 2026-07-28 client learns
    /// it by retrying its request, so nothing is sent then (`false`).
    pub async fn elicitation_complete(&self, elicitation_id: &str) -> bool {
        if self.era() != Era::Legacy {
            return false;
        }
        let params = modelctx_protocol::v2025::ElicitationCompleteNotificationParams {
            elicitation_id: elicitation_id.to_owned(),
            meta: None,
        };
        self.notify(Method::ElicitationComplete, &params).await;
        true
    }

    pub(crate) async fn notify(&self, method: Method, params: &impl serde::Serialize) {
        if self.is_cancelled() {
            return; // STDIO-08: nothing more for a cancelled request
        }
        if self.task().is_some() && self.era() == Era::Modern {
            // TX-16: a 2026-07-28 task's progress and log messages have nowhere to go. A
            // 2025-11-25 task's go on under the call's own token until it ends (PROG-06).
            tracing::debug!(%method, "a task's notification is dropped");
            return;
        }
        let mut params = params_object(params);
        if let Some(task) = self.task() {
            // Every notification of a 2025-11-25 task names it (`related-task`): over stdio,
            // nothing else ties it to the call.
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(meta) = meta {
                meta.insert(RELATED_TASK.to_owned(), serde_json::json!({ "taskId": task.id }));
            }
        }
        let message = Message::Notification(Notification { method: method.clone(), params: Some(params) });
        if self.inner.sink.send(message.into()).await.is_err() {
            tracing::debug!(%method, "the connection closed before a notification could be sent");
        }
    }
}

/// `params` as a JSON object (an empty one when they are not one).
fn params_object(params: &impl serde::Serialize) -> JsonObject {
    match serde_json::to_value(params) {
        Ok(Value::Object(params)) => params,
        _ => JsonObject::new(),
    }
}

/// The notification `method` with `params`.
pub(crate) fn notification(method: Method, params: &impl serde::Serialize) -> Outgoing {
    Message::Notification(Notification { method, params: Some(params_object(params)) }).into()
}
