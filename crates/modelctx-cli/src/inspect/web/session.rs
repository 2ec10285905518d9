//! The inspector's one connection to its server, and what the page sees of it: every JSON-RPC
//! message, notification and progress report as an event (kept, the last [`HISTORY`] within
//! [`HISTORY_BYTES`], for a page that opens late; one over [`MAX_EVENT_BYTES`] shortened), and
//! the server's questions — elicitations, and sampling requests the person answers as the
//! model — waiting for the page's answer.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use modelctx::client::{Client, ClientHandlers, WireDirection, WireTap};
use modelctx::protocol::apps;
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::{ElicitAction, Role};
use modelctx::protocol::v2026::{CreateMessageRequestParams, ElicitResult};

use super::roots::Roots;
use super::subscriptions::Subscriptions;
use super::tasks::Tasks;
use crate::inspect::{Target, sampling};
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OnceCell, broadcast, oneshot};

/// Events kept for a page that connects after they happened.
const HISTORY: usize = 1000;
/// The bytes of the events kept, at most (as JSON).
const HISTORY_BYTES: usize = 16 * 1024 * 1024;
/// The largest event shown whole; a larger one keeps only what names it (a server's message
/// may be 4 MiB, and 1,000 of them were kept).
const MAX_EVENT_BYTES: usize = 256 * 1024;
/// Events a slow page may fall behind by before it misses some (it is told, and reloads).
const LIVE: usize = 1024;
/// How long a question waits for the page before it is cancelled.
const ANSWER_WITHIN: Duration = Duration::from_secs(600);
/// Questions waiting at once, at most; more are cancelled at once.
const MAX_PENDING: usize = 64;

/// A question waiting for the page: where its answer goes.
enum Waiting {
    /// An elicitation.
    Elicit(oneshot::Sender<ElicitResult>),
    /// A sampling request: the person's answer as the model, `None` when they declined.
    Sample(oneshot::Sender<Option<String>>),
}

/// The page's event for sampling request `id`: the conversation, each message's text (its
/// other blocks named), the system prompt and the token bound.
fn sampling_event(id: u64, request: &CreateMessageRequestParams) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "text": sampling::said(message)})
        })
        .collect();
    json!({"kind": "sampling", "id": id, "messages": messages, "systemPrompt": request.system_prompt,
           "maxTokens": request.max_tokens})
}

/// The events kept, with their sizes and the sum of them.
#[derive(Default)]
struct History {
    events: VecDeque<(Value, usize)>,
    bytes: usize,
}

/// `event` and its size as JSON; past [`MAX_EVENT_BYTES`], only its kind and what names its
/// message (`jsonrpc`, `id`, `method`), with how much was left out.
fn bounded(event: Value) -> (Value, usize) {
    let bytes = serde_json::to_vec(&event).map_or(0, |text| text.len());
    if bytes <= MAX_EVENT_BYTES {
        return (event, bytes);
    }
    let names = |message: &Value| {
        let mut kept = serde_json::Map::new();
        for key in ["jsonrpc", "id", "method"] {
            if let Some(value) = message.get(key) {
                kept.insert(key.into(), value.clone());
            }
        }
        Value::Object(kept)
    };
    let omitted = format!("{bytes} bytes, more than the inspector keeps of one event ({MAX_EVENT_BYTES})");
    let mut short = json!({"kind": event.get("kind"), "omitted": omitted});
    for key in ["direction", "method", "id", "at"] {
        if let Some(value) = event.get(key) {
            short[key] = value.clone();
        }
    }
    if let Some(message) = event.get("message") {
        short["message"] = names(message);
    }
    let bytes = serde_json::to_vec(&short).map_or(0, |text| text.len());
    (short, bytes)
}

/// The page's event for elicitation `id`: its message, and its form's schema or its link. A
/// link the CLI would not open either (`client::browser::openable`: `https`, or `http` on
/// loopback, no credentials) is not given to the page as one: the message says why (the page
/// made any URL a link, `javascript:` included).
fn elicitation_event(id: u64, request: &ElicitRequest) -> Value {
    match request {
        ElicitRequest::Form { message, requested_schema, .. } => {
            json!({"kind": "elicitation", "id": id, "message": message,
                   "schema": serde_json::to_value(requested_schema).ok(), "url": null})
        }
        ElicitRequest::Url { message, url, .. } => match modelctx::client::browser::openable(url) {
            Ok(_) => json!({"kind": "elicitation", "id": id, "message": message, "schema": null, "url": url}),
            Err(why) => json!({"kind": "elicitation", "id": id, "schema": null, "url": null,
                               "message": format!("{message}\n\n(The server's link is not shown: {why}.)")}),
        },
    }
}

/// The connection and its events.
pub struct Session {
    /// How it is reached: the page's benchmark connects again with it.
    pub reach: Target,
    /// Whether a benchmark of the page runs against it (one at a time).
    pub benchmarking: AtomicBool,
    /// The resources the page follows.
    pub subscriptions: Subscriptions,
    /// The roots offered to the server.
    pub roots: Roots,
    /// The tasks the page watches.
    pub tasks: Tasks,
    /// When the session began: each event says how long after (`at`, in milliseconds).
    began: Instant,
    client: OnceCell<Result<Arc<Client>, String>>,
    events: broadcast::Sender<Value>,
    history: Mutex<History>,
    pending: Mutex<HashMap<u64, Waiting>>,
    next_id: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// A session not yet connected, to `reach`.
    pub fn new(reach: Target) -> Arc<Self> {
        Arc::new(Self {
            reach,
            benchmarking: AtomicBool::new(false),
            subscriptions: Subscriptions::default(),
            roots: Roots::default(),
            tasks: Tasks::default(),
            began: Instant::now(),
            client: OnceCell::new(),
            events: broadcast::channel(LIVE).0,
            history: Mutex::default(),
            pending: Mutex::default(),
            next_id: AtomicU64::new(1),
        })
    }

    /// The server as a person knows it: its URL, its name in a config file, or its command.
    pub fn target(&self) -> String {
        self.reach.describe()
    }

    /// The Streamable HTTP endpoint, when the target is a URL: where its card is.
    pub fn endpoint(&self) -> Option<&str> {
        self.reach.url.as_deref()
    }

    /// Records `event` (shortened past [`MAX_EVENT_BYTES`]), with when it happened, and tells
    /// the pages.
    pub fn emit(&self, mut event: Value) {
        if let Some(fields) = event.as_object_mut() {
            fields.insert("at".into(), json!(self.began.elapsed().as_secs_f64() * 1000.0));
        }
        let (event, bytes) = bounded(event);
        let mut history = lock(&self.history);
        history.bytes += bytes;
        history.events.push_back((event.clone(), bytes));
        while history.events.len() > HISTORY || history.bytes > HISTORY_BYTES {
            let Some((_, dropped)) = history.events.pop_front() else { break };
            history.bytes -= dropped;
        }
        // No page listening is no one to tell.
        let _ = self.events.send(event);
    }

    /// The events so far, and the live ones after them (none lost between the two).
    pub fn subscribe(&self) -> (Vec<Value>, broadcast::Receiver<Value>) {
        let history = lock(&self.history);
        (history.events.iter().map(|(event, _)| event.clone()).collect(), self.events.subscribe())
    }

    /// The wire tap that turns every message of the connection into an event.
    pub fn tap(self: &Arc<Self>) -> WireTap {
        let session = Arc::downgrade(self);
        WireTap::new(move |direction, message| {
            let Some(session) = session.upgrade() else { return };
            let direction = match direction {
                WireDirection::Sent => "sent",
                WireDirection::Received => "received",
            };
            let message = serde_json::from_str(message).unwrap_or_else(|_| Value::String(message.to_owned()));
            session.emit(json!({"kind": "message", "direction": direction, "message": message}));
        })
    }

    /// Turns the connection's notifications into events, while the session lasts.
    pub fn forward_notifications(self: &Arc<Self>, client: &Client) {
        let mut notes = client.notifications();
        let session = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let note = match notes.recv().await {
                    Ok(note) => note,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                };
                let Some(session) = session.upgrade() else { return };
                session.emit(json!({"kind": "notification", "method": note.method, "params": note.params}));
            }
        });
    }

    /// The handlers that bring the server's elicitations and sampling requests to the page,
    /// answer `roots/list` with the roots the page offers (their changes told), and declare
    /// that the page renders apps (MCP Apps).
    pub fn handlers(self: &Arc<Self>) -> ClientHandlers {
        let (for_elicit, for_sample, for_roots) =
            (Arc::downgrade(self), Arc::downgrade(self), Arc::downgrade(self));
        ClientHandlers::default()
            .on_roots(move || {
                let roots = for_roots.upgrade().map(|session| session.roots.list()).unwrap_or_default();
                std::future::ready(roots)
            })
            .roots_list_changed()
            .extension(apps::EXTENSION_ID, apps::client_settings())
            .on_elicit(move |request| {
                let session = for_elicit.clone();
                async move {
                    let cancelled = ElicitResult { action: ElicitAction::Cancel, content: None };
                    let Some(session) = session.upgrade() else { return cancelled };
                    let event = |id| elicitation_event(id, &request);
                    let result = session.ask(event, Waiting::Elicit).await.unwrap_or(cancelled);
                    session.emit(json!({"kind": "elicitation-answered", "action": result.action}));
                    result
                }
            })
            .on_sample(move |request| {
                let session = for_sample.clone();
                async move {
                    let Some(session) = session.upgrade() else { return Err(sampling::declined()) };
                    let event = |id| sampling_event(id, &request);
                    let typed = session.ask(event, Waiting::Sample).await.flatten();
                    session.emit(json!({"kind": "sampling-answered", "answered": typed.is_some()}));
                    typed.map(sampling::answer).ok_or_else(sampling::declined)
                }
            })
    }

    /// Shows the page the question `event(id)` and waits for its answer, which `waiting`
    /// sends; `None` when too many wait already, or the page did not answer in time.
    async fn ask<T>(
        &self,
        event: impl FnOnce(u64) -> Value,
        waiting: fn(oneshot::Sender<T>) -> Waiting,
    ) -> Option<T> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if pending.len() >= MAX_PENDING {
                return None;
            }
            pending.insert(id, waiting(answer));
        }
        self.emit(event(id));
        let outcome = tokio::time::timeout(ANSWER_WITHIN, answered).await;
        lock(&self.pending).remove(&id);
        outcome.ok().and_then(Result::ok)
    }

    /// Answers the elicitation `id`; `false` when no elicitation waits under that id.
    pub fn answer(&self, id: u64, result: ElicitResult) -> bool {
        self.deliver(id, |waiting| match waiting {
            Waiting::Elicit(waiting) => Ok(waiting.send(result).is_ok()),
            other => Err(other),
        })
    }

    /// Answers the sampling request `id` with the person's text as the model's (`None`
    /// declines); `false` when no sampling request waits under that id.
    pub fn answer_sampling(&self, id: u64, text: Option<String>) -> bool {
        self.deliver(id, |waiting| match waiting {
            Waiting::Sample(waiting) => Ok(waiting.send(text).is_ok()),
            other => Err(other),
        })
    }

    /// Hands the question waiting under `id` to `send`, which answers it when it is of its
    /// kind or gives it back; `false` when none of that kind waits under `id`.
    fn deliver(&self, id: u64, send: impl FnOnce(Waiting) -> Result<bool, Waiting>) -> bool {
        let mut pending = lock(&self.pending);
        let Some(waiting) = pending.remove(&id) else { return false };
        send(waiting).unwrap_or_else(|other| {
            pending.insert(id, other);
            false
        })
    }

    /// Connects once with `connect`, recording the outcome.
    pub async fn connect<F>(&self, connect: F) -> &Result<Arc<Client>, String>
    where
        F: Future<Output = Result<Client, String>>,
    {
        self.client.get_or_init(|| async { connect.await.map(Arc::new) }).await
    }

    /// The connection: `None` while connecting, the reason when it failed.
    pub fn client(&self) -> Option<Result<Arc<Client>, String>> {
        self.client.get().cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page is kept is bounded in bytes: an event past 256 KiB keeps only what names
    /// it, and the history stays within 16 MiB (1,000 messages of up to 4 MiB were kept).
    /// A URL-mode elicitation's link reaches the page only when it may be opened.
    #[test]
    fn only_an_openable_link_reaches_the_page() {
        let asking = |url: &str| {
            let request = ElicitRequest::Url {
                message: "Sign in".into(),
                url: url.into(),
                elicitation_id: Some("e1".into()),
            };
            elicitation_event(1, &request)
        };
        assert_eq!(asking("https://example.com/login")["url"], "https://example.com/login");
        for hostile in ["javascript:alert(1)", "http://intranet.example/", "https://user:pw@example.com/"] {
            let event = asking(hostile);
            assert_eq!(event["url"], Value::Null, "{hostile}");
            assert!(event["message"].as_str().unwrap().contains("link is not shown"), "{event}");
        }
    }

    #[test]
    fn the_events_kept_are_bounded_in_bytes() {
        let session = Session::new(crate::inspect::target::tests::target(&["--", "true"]));
        let big = "x".repeat(1024 * 1024);
        session.emit(json!({"kind": "message", "direction": "in",
                            "message": {"jsonrpc": "2.0", "id": 7, "result": {"text": big}}}));
        let (events, _) = session.subscribe();
        assert_eq!(events[0]["message"], json!({"jsonrpc": "2.0", "id": 7}));
        assert!(events[0]["omitted"].as_str().unwrap().contains("more than the inspector keeps"));
        let large = "y".repeat(200 * 1024);
        for n in 0..200 {
            session.emit(json!({"kind": "notification", "method": "n", "params": {"n": n, "text": large}}));
        }
        let (events, _) = session.subscribe();
        let kept: usize = events.iter().map(|event| serde_json::to_vec(event).unwrap().len()).sum();
        assert!(kept <= HISTORY_BYTES && events.len() < 200, "{} events, {kept} bytes", events.len());
        assert_eq!(events.last().unwrap()["params"]["n"], 199, "the newest are kept");
    }
}
