//! The connections to Redis: one multiplexed connection for commands, failing fast while
//! Redis is away and reconnecting with backoff, and one for pub/sub, which never gives up
//! and subscribes its channels again after each reconnect.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::StreamExt as _;
use modelctx::store::StoreError;
use modelctx::transport::http::{EventLimits, HttpStores};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, FromRedisValue, Msg, PushInfo, RedisError, ScriptInvocation};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::{RedisBus, RedisEventLimits, RedisEventStore, RedisOnceStore, RedisSessionStore, RedisTaskStore};

/// How a [`Redis`] connects and bounds its operations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisOptions {
    /// The prefix of every key and channel (`modelctx` gives `modelctx:…`). Default
    /// `modelctx`.
    pub namespace: String,
    /// How long one store operation may take before it fails. Default 2 s.
    pub command_timeout: Duration,
    /// How long connecting may take, at start and on each reconnect. Default 2 s.
    pub connect_timeout: Duration,
    /// Messages of the bus buffered for a slow subscriber before it misses some. Default 1024.
    pub bus_buffer: usize,
}

impl Default for RedisOptions {
    fn default() -> Self {
        Self {
            namespace: "modelctx".into(),
            command_timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(2),
            bus_buffer: 1024,
        }
    }
}

/// A connection to one Redis, shared by the stores made from it. Cheap to clone.
#[derive(Clone)]
pub struct Redis {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    commands: ConnectionManager,
    pubsub: ConnectionManager,
    /// Every message of the channels subscribed, as `(channel, payload)`.
    messages: broadcast::Sender<(String, String)>,
    subscribed: Mutex<HashSet<String>>,
    options: RedisOptions,
    /// Stops the background tasks when the last handle goes.
    _stop: DropGuard,
}

impl fmt::Debug for Redis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redis").field("namespace", &self.shared.options.namespace).finish_non_exhaustive()
    }
}

/// How often an idle connection is checked, so it is back as soon as Redis is.
const HEARTBEAT: Duration = Duration::from_millis(500);

fn command_config(options: &RedisOptions) -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(options.connect_timeout))
        .set_response_timeout(Some(options.command_timeout))
        // One retry, short delays: a command during an outage fails in tens of milliseconds;
        // the heartbeat keeps reconnecting meanwhile.
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(200))
}

impl Redis {
    /// Connects to the Redis at `url` (`redis://HOST:PORT[/DB]`, `rediss://` for TLS is not
    /// built in); fails with a message naming the URL when it cannot be reached now.
    pub async fn connect(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let unreachable = |e: RedisError| StoreError(format!("cannot reach Redis at {url}: {e}"));
        let client = Client::open(url).map_err(unreachable)?;
        let commands = tokio::time::timeout(
            options.connect_timeout,
            ConnectionManager::new_with_config(client, command_config(&options)),
        )
        .await
        .map_err(|_| {
            StoreError(format!("cannot reach Redis at {url}: no answer within {:?}", options.connect_timeout))
        })?
        .map_err(unreachable)?;
        let separator = if url.contains('?') { '&' } else { '?' };
        let pubsub_client = Client::open(format!("{url}{separator}protocol=resp3")).map_err(unreachable)?;
        let (pushes, mut pushed) = mpsc::unbounded_channel::<PushInfo>();
        let pubsub_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.connect_timeout))
            .set_response_timeout(Some(options.command_timeout))
            // Never give up: a manager that stopped retrying would lose its subscriptions.
            .set_number_of_retries(usize::MAX)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(1))
            .set_push_sender(pushes)
            .set_automatic_resubscription();
        let pubsub = tokio::time::timeout(
            options.connect_timeout,
            ConnectionManager::new_with_config(pubsub_client, pubsub_config),
        )
        .await
        .map_err(|_| StoreError(format!("cannot reach Redis at {url} for pub/sub")))?
        .map_err(unreachable)?;
        let (messages, _) = broadcast::channel(options.bus_buffer.max(1));
        let stop = CancellationToken::new();
        tokio::spawn({
            let (messages, stop) = (messages.clone(), stop.clone());
            async move {
                loop {
                    let push = tokio::select! {
                        () = stop.cancelled() => return,
                        push = pushed.recv() => push,
                    };
                    let Some(push) = push else { return };
                    if let Some(message) = Msg::from_push_info(push) {
                        let payload = String::from_utf8_lossy(message.get_payload_bytes()).into_owned();
                        let _ = messages.send((message.get_channel_name().to_owned(), payload));
                    }
                }
            }
        });
        tokio::spawn(heartbeat(commands.clone(), stop.clone()));
        tokio::spawn(heartbeat(pubsub.clone(), stop.clone()));
        let shared = Shared {
            commands,
            pubsub,
            messages,
            subscribed: Mutex::new(HashSet::new()),
            options,
            _stop: stop.drop_guard(),
        };
        Ok(Self { shared: Arc::new(shared) })
    }

    /// A handle that does not keep the connections open (for background work that should
    /// end with them).
    pub(crate) fn downgrade(&self) -> std::sync::Weak<Shared> {
        Arc::downgrade(&self.shared)
    }

    /// The connection `weak` came from, if it is still open.
    pub(crate) fn upgrade(weak: &std::sync::Weak<Shared>) -> Option<Self> {
        weak.upgrade().map(|shared| Self { shared })
    }

    /// The options it was made with.
    pub fn options(&self) -> &RedisOptions {
        &self.shared.options
    }

    /// The key (or channel) `parts` under the namespace: `modelctx:part:part`.
    pub(crate) fn key(&self, parts: &[&str]) -> String {
        let mut key = self.shared.options.namespace.clone();
        for part in parts {
            key.push(':');
            key.push_str(part);
        }
        key
    }

    fn bounded_error(&self, what: &str, error: RedisError) -> StoreError {
        if error.is_io_error() || error.is_connection_refusal() || error.is_connection_dropped() {
            StoreError(format!(
                "Redis is unreachable ({error}); {what} failed and can be retried once it is back"
            ))
        } else {
            StoreError(format!("Redis could not {what}: {error}"))
        }
    }

    fn timed_out(&self, what: &str) -> StoreError {
        StoreError(format!("Redis did not {what} within {:?}", self.shared.options.command_timeout))
    }

    /// Awaits `work`, bounded by the command timeout, with its error said for `what`.
    async fn bounded<T>(
        &self,
        what: &str,
        work: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, StoreError> {
        let ran = tokio::time::timeout(self.shared.options.command_timeout, work).await;
        ran.map_err(|_| self.timed_out(what))?.map_err(|e| self.bounded_error(what, e))
    }

    /// Runs `command`.
    pub(crate) async fn run<T: FromRedisValue>(
        &self,
        what: &str,
        command: &redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut connection = self.shared.commands.clone();
        self.bounded(what, command.query_async(&mut connection)).await
    }

    /// Runs `pipeline` (atomic when it says so).
    pub(crate) async fn pipeline<T: FromRedisValue>(
        &self,
        what: &str,
        pipeline: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        let mut connection = self.shared.commands.clone();
        self.bounded(what, pipeline.query_async(&mut connection)).await
    }

    /// Runs a script (loaded again by itself after Redis restarted and forgot it).
    pub(crate) async fn invoke<T: FromRedisValue>(
        &self,
        what: &str,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<T, StoreError> {
        let mut connection = self.shared.commands.clone();
        self.bounded(what, invocation.invoke_async(&mut connection)).await
    }

    /// The messages of `channel` from now on, subscribing to it first if needed.
    pub(crate) async fn subscribe(
        &self,
        channel: &str,
    ) -> Result<broadcast::Receiver<(String, String)>, StoreError> {
        let receiver = self.shared.messages.subscribe();
        let known = self.shared.subscribed.lock().unwrap_or_else(PoisonError::into_inner).contains(channel);
        if !known {
            let mut pubsub = self.shared.pubsub.clone();
            self.bounded("subscribe", pubsub.subscribe(channel)).await?;
            self.shared.subscribed.lock().unwrap_or_else(PoisonError::into_inner).insert(channel.to_owned());
        }
        Ok(receiver)
    }

    /// The legacy session store, sessions expiring after `idle` without use and at most
    /// `max` at once (the least recently used makes room).
    pub fn session_store(&self, idle: Duration, max: usize) -> RedisSessionStore {
        RedisSessionStore::new(self.clone(), idle, max)
    }

    /// The event log of legacy streams within `limits`.
    pub fn event_store(&self, limits: RedisEventLimits) -> RedisEventStore {
        RedisEventStore::new(self.clone(), limits)
    }

    /// The stores of an HTTP endpoint: sessions as [`Redis::session_store`], their event
    /// logs with [`EventLimits::default`]'s per-stream and per-session counts, kept as long as
    /// a session lives.
    pub fn http_stores(&self, idle: Duration, max_sessions: usize) -> HttpStores {
        let defaults = EventLimits::default();
        let limits = RedisEventLimits {
            per_stream: defaults.per_stream,
            streams: defaults.streams,
            ttl: idle,
            ..RedisEventLimits::default()
        };
        HttpStores {
            sessions: Arc::new(self.session_store(idle, max_sessions)),
            events: Arc::new(self.event_store(limits)),
        }
    }

    /// The task store.
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone())
    }

    /// The bus between instances, on Redis pub/sub.
    pub fn bus(&self) -> RedisBus {
        RedisBus::new(self.clone())
    }

    /// The store of what may be used only once.
    pub fn once_store(&self) -> RedisOnceStore {
        RedisOnceStore::new(self.clone())
    }

    /// The store of call budgets.
    pub fn rate_store(&self) -> crate::RedisRateStore {
        crate::RedisRateStore::new(self.clone())
    }
}

/// Pings `connection` while Redis is wanted, so it reconnects while idle and the first real
/// command after an outage finds it back.
async fn heartbeat(mut connection: ConnectionManager, stop: CancellationToken) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(HEARTBEAT) => {}
        }
        let ping = redis::cmd("PING");
        let _ = tokio::time::timeout(Duration::from_secs(1), ping.query_async::<()>(&mut connection)).await;
    }
}

/// A stream of the payloads of one channel out of every subscribed channel's messages.
pub(crate) fn payloads_of(
    channel: String,
    receiver: broadcast::Receiver<(String, String)>,
) -> futures::stream::BoxStream<'static, String> {
    futures::stream::unfold((channel, receiver), |(channel, mut receiver)| async move {
        loop {
            match receiver.recv().await {
                Ok((from, payload)) if from == channel => return Some((payload, (channel, receiver))),
                Ok(_) => continue,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, channel, "a bus subscriber fell behind and missed messages");
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
    .boxed()
}
