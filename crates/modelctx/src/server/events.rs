//! Events (experimental, SEP-3415; `modelctx_protocol::events` has the wire): [`Events`] holds
//! a server's event types and the occurrences it emits — kept in a bounded log that cursors
//! point into — and answers `events/list`, `events/poll` and `events/stream` for them
//! ([`super::ServerBuilder::events`]). Occurrences are emitted by the application
//! ([`Events::emit`]), so they are kept in memory only: a cursor from before a restart, or one
//! the log has dropped, resumes from what is left with `truncated: true`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use futures::future::BoxFuture;
use modelctx_protocol::events::{
    ACTIVE, DeliveryMode, EVENT, EventOccurrence, EventType, HEARTBEAT, LIST, ListResult, POLL, PollResult,
    STREAM, SUBSCRIBE, StreamPosition, SubscriptionParams, TERMINATED, UNSUBSCRIBE, not_found, unsupported,
};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx_protocol::{Era, JsonObject, Method, meta};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tower::{Layer, ServiceExt};

use super::middleware::{Around, AroundService, McpRequest, McpService};
use super::params::{extension_params, to_object};
use super::tasks::clock::{now_ms, rfc3339};
use super::{Answer, RequestContext};

pub(crate) type Matcher = Arc<dyn Fn(&JsonObject, &Value) -> bool + Send + Sync>;

/// An event type a server offers: its description, and which occurrences a subscription's
/// arguments select.
#[derive(Clone)]
pub struct EventDef {
    descriptor: EventType,
    matches: Matcher,
    /// `inputSchema`, compiled when first used.
    #[cfg(feature = "validation")]
    arguments: Arc<crate::schema::CompiledOnUse>,
}

impl std::fmt::Debug for EventDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventDef").field("descriptor", &self.descriptor).finish_non_exhaustive()
    }
}

impl EventDef {
    /// The event type `name`, delivered by poll and push, taking any object as arguments and
    /// selecting every occurrence.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let descriptor = EventType {
            name: name.into(),
            description: Some(description.into()),
            delivery: vec![DeliveryMode::Poll, DeliveryMode::Push],
            input_schema: json!({"type": "object"}).as_object().cloned().unwrap_or_default(),
            payload_schema: None,
            meta: None,
        };
        Self {
            descriptor,
            matches: Arc::new(|_, _| true),
            #[cfg(feature = "validation")]
            arguments: Arc::default(),
        }
    }

    /// The JSON Schema of its subscriptions' arguments.
    pub fn input_schema(mut self, schema: JsonObject) -> Self {
        self.descriptor.input_schema = schema;
        #[cfg(feature = "validation")]
        {
            self.arguments = Arc::default();
        }
        self
    }

    /// The JSON Schema of its occurrences' `data`.
    pub fn payload_schema(mut self, schema: JsonObject) -> Self {
        self.descriptor.payload_schema = Some(schema);
        self
    }

    /// Only the modes in `delivery` (webhook needs `EventOptions::webhooks`).
    pub fn delivery(mut self, delivery: Vec<DeliveryMode>) -> Self {
        self.descriptor.delivery = delivery;
        self
    }

    /// Selects, for a subscription's arguments, the occurrences (their `data`) it receives.
    pub fn matching(mut self, matches: impl Fn(&JsonObject, &Value) -> bool + Send + Sync + 'static) -> Self {
        self.matches = Arc::new(matches);
        self
    }

    /// What `events/list` says of it.
    pub fn descriptor(&self) -> &EventType {
        &self.descriptor
    }
}

/// The bounds and pace of a server's events.
#[derive(Clone, Debug)]
pub struct EventOptions {
    /// Occurrences kept for replay; older ones are dropped (a cursor before them resumes with
    /// `truncated: true`). Default 1,024.
    pub log: usize,
    /// How often a push stream with nothing to send says it is alive. Default 30 s.
    pub heartbeat: Duration,
    /// When a poll that found everything tells the client to poll next. Default 5 s.
    pub next_poll: Duration,
    /// The most occurrences one poll answers (a smaller `maxEvents` lowers it). Default 100.
    pub max_events: usize,
    /// Webhook delivery, for event types that offer it; none by default (`events/subscribe`
    /// is then `Unsupported`).
    #[cfg(feature = "http-client")]
    pub webhooks: Option<super::event_webhooks::WebhookOptions>,
}

impl Default for EventOptions {
    fn default() -> Self {
        Self {
            log: 1024,
            heartbeat: Duration::from_secs(30),
            next_poll: Duration::from_secs(5),
            max_events: 100,
            #[cfg(feature = "http-client")]
            webhooks: None,
        }
    }
}

/// A followed subscription: the live feed, what it is owed, where it starts.
pub(crate) type Following = (broadcast::Receiver<Arc<Stored>>, Vec<Arc<Stored>>, Start);

/// One kept occurrence.
pub(crate) struct Stored {
    pub(crate) seq: u64,
    at_ms: u64,
    pub(crate) occurrence: EventOccurrence,
}

/// The kept occurrences, oldest first, and the next position.
struct Log {
    kept: VecDeque<Arc<Stored>>,
    next_seq: u64,
}

/// A server's event types and occurrences. Cheap to clone: every clone is the same hub, so a
/// tool handler holding one emits to the server's subscribers.
#[derive(Clone)]
pub struct Events {
    inner: Arc<Hub>,
}

struct Hub {
    types: RwLock<Vec<EventDef>>,
    log: Mutex<Log>,
    live: broadcast::Sender<Arc<Stored>>,
    options: EventOptions,
    /// Names this run's cursors: one of another run is not read as ours.
    epoch: String,
    /// Webhook subscriptions, when offered.
    #[cfg(feature = "http-client")]
    webhooks: Option<super::event_webhooks::Webhooks>,
    /// Where the types' changes are told: the listeners of each server that offers them.
    told: Mutex<Vec<broadcast::Sender<super::ServerEvent>>>,
    /// The names of types removed, for the subscriptions to them to end.
    removed: broadcast::Sender<String>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events").field("options", &self.inner.options).finish_non_exhaustive()
    }
}

/// Where a subscription starts: after `seq`, and whether occurrences it asked for are gone.
pub(crate) struct Start {
    pub(crate) after: u64,
    pub(crate) truncated: bool,
    floor_ms: Option<u64>,
}

impl Events {
    /// No event types yet, bounded by `options`.
    pub fn new(options: EventOptions) -> Self {
        let epoch = random_hex(6);
        let live = broadcast::channel(options.log.max(1)).0;
        let log = Mutex::new(Log { kept: VecDeque::new(), next_seq: 1 });
        #[cfg(feature = "http-client")]
        let webhooks = options.webhooks.clone().and_then(|webhooks| {
            super::event_webhooks::Webhooks::new(webhooks)
                .inspect_err(|why| tracing::error!("{why}; events are not delivered by webhook"))
                .ok()
        });
        let types = RwLock::new(Vec::new());
        Self {
            inner: Arc::new(Hub {
                types,
                log,
                live,
                options,
                epoch,
                #[cfg(feature = "http-client")]
                webhooks,
                told: Mutex::default(),
                removed: broadcast::channel(16).0,
            }),
        }
    }

    /// Offers `event` too (replacing one of the same name).
    pub fn event(self, event: EventDef) -> Self {
        self.add(event);
        self
    }

    /// Offers `event` from now on (replacing one of the same name); listeners that asked are
    /// told (`notifications/events/list_changed`).
    pub fn add(&self, event: EventDef) {
        {
            let mut types = self.inner.types.write().unwrap_or_else(PoisonError::into_inner);
            types.retain(|kept| kept.descriptor.name != event.descriptor.name);
            types.push(event);
        }
        self.changed();
    }

    /// Stops offering the event type `name`; whether it was offered. Listeners that asked are
    /// told.
    pub fn remove(&self, name: &str) -> bool {
        let removed = {
            let mut types = self.inner.types.write().unwrap_or_else(PoisonError::into_inner);
            let before = types.len();
            types.retain(|kept| kept.descriptor.name != name);
            types.len() != before
        };
        if removed {
            let _ = self.inner.removed.send(name.to_owned());
            self.changed();
        }
        removed
    }

    /// The names of event types as they are removed.
    pub(crate) fn removals(&self) -> broadcast::Receiver<String> {
        self.inner.removed.subscribe()
    }

    /// Tells the listeners of every server offering these types that they changed.
    fn changed(&self) {
        for told in self.inner.told.lock().unwrap_or_else(PoisonError::into_inner).iter() {
            let _ = told.send(super::ServerEvent::EventsChanged);
        }
    }

    /// Tells `listeners` of every change of the types from now on (a server that offers them).
    pub(crate) fn tell_changes_to(&self, listeners: broadcast::Sender<super::ServerEvent>) {
        self.inner.told.lock().unwrap_or_else(PoisonError::into_inner).push(listeners);
    }

    /// Emits an occurrence of `name` with `data`, its id made here; returns the id.
    pub fn emit(&self, name: &str, data: Value) -> String {
        let id = format!("evt_{}", random_hex(12));
        self.emit_with_id(name, &id, data);
        id
    }

    /// Emits an occurrence of `name` under `event_id` — the upstream's own id when there is
    /// one, so that the same occurrence seen twice deduplicates.
    pub fn emit_with_id(&self, name: &str, event_id: &str, data: Value) {
        let at_ms = now_ms();
        let occurrence = EventOccurrence {
            event_id: event_id.to_owned(),
            name: name.to_owned(),
            timestamp: rfc3339(at_ms),
            data,
            cursor: None,
            meta: None,
        };
        let stored = {
            let mut log = self.inner.log.lock().unwrap_or_else(PoisonError::into_inner);
            let stored = Arc::new(Stored { seq: log.next_seq, at_ms, occurrence });
            log.next_seq += 1;
            log.kept.push_back(Arc::clone(&stored));
            while log.kept.len() > self.inner.options.log {
                log.kept.pop_front();
            }
            stored
        };
        let _ = self.inner.live.send(stored);
    }

    /// The event types, as `events/list` gives them.
    pub fn types(&self) -> Vec<EventType> {
        let types = self.inner.types.read().unwrap_or_else(PoisonError::into_inner);
        types.iter().map(|def| def.descriptor.clone()).collect()
    }

    /// The webhook subscriptions, or `Unsupported` when this server offers none.
    #[cfg(feature = "http-client")]
    pub(crate) fn webhooks(&self) -> Result<&super::event_webhooks::Webhooks, ErrorObject> {
        self.inner.webhooks.as_ref().ok_or_else(no_webhooks)
    }

    /// The live feed of occurrences.
    pub(crate) fn live(&self) -> broadcast::Receiver<Arc<Stored>> {
        self.inner.live.subscribe()
    }

    /// The position of the last occurrence.
    pub(crate) fn head(&self) -> u64 {
        self.inner.log.lock().unwrap_or_else(PoisonError::into_inner).next_seq - 1
    }

    pub(crate) fn cursor(&self, seq: u64) -> String {
        format!("{}-{seq}", self.inner.epoch)
    }

    /// The type `name`, offered by `mode`, for `arguments` (checked against its
    /// `inputSchema` with the `validation` feature): which occurrences they select.
    pub(crate) fn offered(
        &self,
        name: &str,
        mode: DeliveryMode,
        arguments: &JsonObject,
    ) -> Result<Matcher, ErrorObject> {
        let types = self.inner.types.read().unwrap_or_else(PoisonError::into_inner);
        let def = types
            .iter()
            .find(|def| def.descriptor.name == name)
            .ok_or_else(|| not_found("event", format!("NotFound: no event type {name:?}")))?;
        if !def.descriptor.delivery.contains(&mode) {
            let mode = serde_json::to_value(mode)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            return Err(unsupported(
                "deliveryMode",
                &mode,
                format!("Unsupported: {name:?} is not delivered by {mode}"),
            ));
        }
        #[cfg(feature = "validation")]
        {
            let validator = def.arguments.get(&def.descriptor.input_schema).map_err(|why| {
                ErrorObject::internal(format!(
                    "the inputSchema of event type {name:?} does not compile: {why}"
                ))
            })?;
            if let Some(problems) = validator.explain(&Value::Object(arguments.clone())) {
                return Err(ErrorObject::invalid_params(format!(
                    "the arguments do not match the inputSchema of {name:?}: {problems}"
                )));
            }
        }
        #[cfg(not(feature = "validation"))]
        let _ = arguments;
        Ok(Arc::clone(&def.matches))
    }

    /// Where a subscription with `cursor` and `max_age_ms` starts, given the log now.
    fn start(&self, log: &Log, cursor: Option<&str>, max_age_ms: Option<u64>) -> Result<Start, ErrorObject> {
        let head = log.next_seq - 1;
        let Some(cursor) = cursor else { return Ok(Start { after: head, truncated: false, floor_ms: None }) };
        let seq = cursor
            .strip_prefix(&self.inner.epoch)
            .and_then(|rest| rest.strip_prefix('-'))
            .map(str::parse::<u64>);
        let floor_ms = max_age_ms.map(|age| now_ms().saturating_sub(age));
        match seq {
            // Another run's (or a made-up) cursor: its occurrences are gone; from now.
            None if cursor.contains('-') => Ok(Start { after: head, truncated: true, floor_ms }),
            None | Some(Err(_)) => Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("the cursor {cursor:?} is not one of this server's"),
            )),
            Some(Ok(seq)) if seq > head => Err(ErrorObject::new(
                ErrorCode::INVALID_PARAMS,
                format!("the cursor {cursor:?} is ahead of this server"),
            )),
            Some(Ok(seq)) => {
                let oldest = log.kept.front().map_or(log.next_seq, |stored| stored.seq);
                let gone = seq + 1 < oldest;
                Ok(Start { after: if gone { oldest - 1 } else { seq }, truncated: gone, floor_ms })
            }
        }
    }

    /// Follows a subscription of `name` with `arguments` from `cursor`: the live feed (heard
    /// from before the log is read, so nothing emitted between is missed), what it is owed now,
    /// and where it starts (`truncated` also when `max_age_ms` dropped some).
    pub(crate) fn follow(
        &self,
        cursor: Option<&str>,
        max_age_ms: Option<u64>,
        name: &str,
        arguments: &JsonObject,
        matches: &Matcher,
    ) -> Result<Following, ErrorObject> {
        let live = self.live();
        let log = self.inner.log.lock().unwrap_or_else(PoisonError::into_inner);
        let mut start = self.start(&log, cursor, max_age_ms)?;
        let mut owed = Vec::new();
        for stored in log.kept.iter().filter(|stored| stored.seq > start.after) {
            if stored.occurrence.name != name || !matches(arguments, &stored.occurrence.data) {
                continue;
            }
            if start.floor_ms.is_some_and(|floor| stored.at_ms < floor) {
                start.truncated = true;
            } else {
                owed.push(Arc::clone(stored));
            }
        }
        Ok((live, owed, start))
    }

    /// `events/poll`.
    fn poll(&self, params: SubscriptionParams) -> Result<PollResult, ErrorObject> {
        let matches = self.offered(&params.name, DeliveryMode::Poll, &params.arguments)?;
        let log = self.inner.log.lock().unwrap_or_else(PoisonError::into_inner);
        let head = log.next_seq - 1;
        let start = self.start(&log, params.cursor.as_deref(), params.max_age_ms)?;
        let limit = params.max_events.unwrap_or(usize::MAX).clamp(1, self.inner.options.max_events);
        let mut events = Vec::new();
        let (mut truncated, mut cursor, mut has_more) = (start.truncated, head, false);
        let wanted = log.kept.iter().filter(|stored| {
            stored.seq > start.after
                && stored.occurrence.name == params.name
                && matches(&params.arguments, &stored.occurrence.data)
        });
        for stored in wanted {
            if start.floor_ms.is_some_and(|floor| stored.at_ms < floor) {
                truncated = true;
                continue;
            }
            if events.len() == limit {
                has_more = true;
                break;
            }
            cursor = stored.seq;
            events.push(stored.occurrence.clone());
        }
        if !has_more {
            cursor = head;
        }
        let next_poll_ms = u64::try_from(self.inner.options.next_poll.as_millis()).unwrap_or(u64::MAX);
        Ok(PollResult {
            result_type: "complete".into(),
            events,
            cursor: Some(self.cursor(cursor)),
            truncated,
            has_more,
            next_poll_ms,
        })
    }

    /// `events/stream`: `active` first, then what the cursor missed, then each occurrence as it
    /// is emitted, heartbeats between, until the client goes.
    async fn stream(
        &self,
        ctx: &RequestContext,
        params: SubscriptionParams,
    ) -> Result<JsonObject, ErrorObject> {
        let matches = self.offered(&params.name, DeliveryMode::Push, &params.arguments)?;
        let tag = json!({ meta::SUBSCRIPTION_ID: ctx.request_id() });
        let (mut live, replay, start) = self.follow(
            params.cursor.as_deref(),
            params.max_age_ms,
            &params.name,
            &params.arguments,
            &matches,
        )?;
        let wanted = |stored: &Stored| {
            stored.occurrence.name == params.name && matches(&params.arguments, &stored.occurrence.data)
        };
        let mut position = start.after;
        self.announce(ctx, ACTIVE, position, Some(start.truncated), &tag).await;
        for stored in replay {
            position = stored.seq;
            self.deliver(ctx, &stored, &tag).await;
        }
        let mut heartbeat = tokio::time::interval(self.inner.options.heartbeat);
        heartbeat.reset();
        let mut removals = self.removals();
        loop {
            tokio::select! {
                () = ctx.closing().cancelled() => break,
                Ok(removed) = removals.recv() => if removed == params.name {
                    // The type is gone: the subscription ends, told why.
                    let mut ended = json!({"error": removed_type(&removed)});
                    ended["_meta"] = tag.clone();
                    ctx.notify(Method::from(TERMINATED), &ended).await;
                    break;
                },
                _ = heartbeat.tick() => self.announce(ctx, HEARTBEAT, position, None, &tag).await,
                heard = live.recv() => match heard {
                    Ok(stored) if stored.seq > position => {
                        position = stored.seq;
                        if wanted(&stored) {
                            self.deliver(ctx, &stored, &tag).await;
                        }
                    }
                    Ok(_) => {}
                    // Occurrences went by unheard: a gap, said as a fresh `active`.
                    Err(RecvError::Lagged(_)) => {
                        position = self.head();
                        self.announce(ctx, ACTIVE, position, Some(true), &tag).await;
                    }
                    Err(RecvError::Closed) => break,
                },
            }
        }
        Ok(json!({"resultType": "complete", "_meta": tag}).as_object().cloned().unwrap_or_default())
    }

    async fn announce(
        &self,
        ctx: &RequestContext,
        method: &str,
        position: u64,
        truncated: Option<bool>,
        tag: &Value,
    ) {
        let mut params =
            serde_json::to_value(StreamPosition { cursor: Some(self.cursor(position)), truncated })
                .unwrap_or_default();
        params["_meta"] = tag.clone();
        ctx.notify(Method::from(method), &params).await;
    }

    async fn deliver(&self, ctx: &RequestContext, stored: &Stored, tag: &Value) {
        let occurrence = EventOccurrence {
            cursor: Some(self.cursor(stored.seq)),
            meta: tag.as_object().cloned(),
            ..stored.occurrence.clone()
        };
        ctx.notify(Method::from(EVENT), &occurrence).await;
    }
}

/// `bytes` random bytes in hex (event ids, the run's epoch, webhook message ids and challenges).
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut random = vec![0u8; bytes];
    let _ = getrandom::fill(&mut random);
    random.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a subscription to the removed type `name` ends: `NotFound` (`kind`: `event`).
pub(crate) fn removed_type(name: &str) -> ErrorObject {
    not_found("event", format!("NotFound: the event type {name:?} was removed"))
}

/// `Unsupported`: no webhook delivery here.
fn no_webhooks() -> ErrorObject {
    unsupported(
        "deliveryMode",
        "webhook",
        "Unsupported: this server delivers events by poll and push, not by webhook",
    )
}

impl Layer<McpService> for Events {
    type Service = AroundService<Self>;

    fn layer(&self, inner: McpService) -> AroundService<Self> {
        AroundService::new(self.clone(), inner)
    }
}

impl Around for Events {
    fn around(
        &self,
        inner: McpService,
        request: McpRequest,
    ) -> BoxFuture<'static, Result<Answer, ErrorObject>> {
        let events = self.clone();
        Box::pin(async move {
            // The extension is defined for 2026-07-28 only.
            let Method::Other(method) = &request.method else { return inner.oneshot(request).await };
            if request.ctx.era() != Era::Modern {
                return inner.oneshot(request).await;
            }
            let answered = match &**method {
                LIST => {
                    let listed = ListResult {
                        result_type: "complete".into(),
                        events: events.types(),
                        next_cursor: None,
                    };
                    Ok(to_object(&listed))
                }
                POLL => events.poll(extension_params(POLL, request.params)?).map(|result| to_object(&result)),
                STREAM => events.stream(&request.ctx, extension_params(STREAM, request.params)?).await,
                #[cfg(feature = "http-client")]
                SUBSCRIBE => {
                    events.webhooks()?;
                    let principal = request.ctx.principal().map(super::Principal::key);
                    let params = extension_params(SUBSCRIBE, request.params)?;
                    events.subscribe(principal, params).await.map(|result| to_object(&result))
                }
                #[cfg(feature = "http-client")]
                UNSUBSCRIBE => {
                    events.webhooks()?;
                    let principal = request.ctx.principal().map(super::Principal::key);
                    events.unsubscribe(principal, extension_params(UNSUBSCRIBE, request.params)?)?;
                    Ok(to_object(&json!({"resultType": "complete"})))
                }
                #[cfg(not(feature = "http-client"))]
                SUBSCRIBE | UNSUBSCRIBE => Err(no_webhooks()),
                _ => return inner.oneshot(request).await,
            };
            answered.map(Answer::from)
        })
    }
}
