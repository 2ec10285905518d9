//! Where the HTTP endpoint keeps what outlives one request: the state of legacy sessions and
//! the events of their resumable streams. Both sit behind traits, so several instances of
//! one endpoint (behind a load balancer, or across a restart) can share them through a
//! database or a cache; the in-memory stores are the default.
//!
//! What cannot be shared stays with the instance that holds it: a running handler, a
//! server-to-client request awaiting its answer, a live connection. A client that resumes a
//! stream on another instance gets what was logged so far and, while the stream is still
//! running elsewhere, reconnects for the rest (its `retry` delay later).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::server::LegacySession;
use crate::store::{SessionTable, shrink_when_sparse};
pub use crate::store::{StoreError, StoreFuture};

/// The state of legacy sessions by `Mcp-Session-Id`: negotiated version, client
/// capabilities, log level, subscriptions.
pub trait SessionStore: Send + Sync + 'static {
    /// Stores a new session; refuses, with a message for the client, when it holds too many.
    fn create<'a>(&'a self, id: &'a str, session: LegacySession) -> StoreFuture<'a, ()>;
    /// The session `id`, or `None` when it does not exist or expired; refreshes its idle clock.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LegacySession>>;
    /// Replaces the state of session `id` (after `logging/setLevel`, `resources/subscribe`, …)
    /// with `session` if it is still `expected`, compare-and-set, so that instances sharing
    /// the store lose no change to each other: `Ok(false)` when another change came first
    /// (the caller reads the session again and redoes its change), an error when the session
    /// is gone.
    fn update<'a>(
        &'a self,
        id: &'a str,
        expected: &'a LegacySession,
        session: LegacySession,
    ) -> StoreFuture<'a, bool>;
    /// Forgets session `id`; it is unknown from then on.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()>;
}

/// The events of one request stream after some event, as a resuming client needs them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replay {
    /// `(event number, JSON-RPC message)` in order.
    pub events: Vec<(u64, String)>,
    /// Whether the stream carried its final response: nothing more will come.
    pub finished: bool,
}

/// The events of legacy sessions' request streams. A stream is named by its session and a
/// number; its events are numbered from 1, and the client sees `{stream}-{event}` as the SSE
/// event id.
pub trait EventStore: Send + Sync + 'static {
    /// Logs event `event` (its JSON-RPC `message`) of `stream` in `session`.
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        event: u64,
        message: String,
    ) -> StoreFuture<'a, ()>;
    /// Marks `stream` as finished: it carried its final response.
    fn finish<'a>(&'a self, session: &'a str, stream: u64) -> StoreFuture<'a, ()>;
    /// The events of `stream` after `event`; `None` when the store knows no such stream.
    fn replay<'a>(&'a self, session: &'a str, stream: u64, after: u64) -> StoreFuture<'a, Option<Replay>>;
    /// Forgets every stream of `session`.
    fn forget<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()>;
}

/// The stores of one endpoint; share one value between instances to share their sessions.
#[derive(Clone)]
pub struct HttpStores {
    /// Legacy session state.
    pub sessions: Arc<dyn SessionStore>,
    /// Events of resumable streams.
    pub events: Arc<dyn EventStore>,
}

impl fmt::Debug for HttpStores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpStores").finish_non_exhaustive()
    }
}

impl HttpStores {
    /// In-memory stores: sessions idle longer than `idle` expire, at most `max_sessions` live,
    /// and the event log is bounded by [`MemoryEventStore::new`]'s defaults.
    pub fn in_memory(idle: Duration, max_sessions: usize) -> Self {
        Self {
            sessions: Arc::new(MemorySessionStore::new(idle, max_sessions)),
            events: Arc::new(MemoryEventStore::new(EventLimits {
                sessions: max_sessions,
                ..EventLimits::default()
            })),
        }
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sessions in this process's memory, expiring when idle.
pub struct MemorySessionStore {
    map: Mutex<SessionTable<(LegacySession, Instant)>>,
    idle: Duration,
    max: usize,
}

impl MemorySessionStore {
    /// A store whose sessions expire after `idle` without use, holding at most `max` (a new
    /// one past it evicts the least recently used).
    pub fn new(idle: Duration, max: usize) -> Self {
        Self { map: Mutex::new(SessionTable::default()), idle, max }
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(&'a self, id: &'a str, session: LegacySession) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut map = locked(&self.map);
            map.retain(|_, (_, seen)| seen.elapsed() <= self.idle);
            // At the bound the least recently used session makes room: its client gets 404
            // and opens a new one, as the spec has it, rather than every new client 503.
            while map.len() >= self.max.max(1) {
                let Some(oldest) = map.iter().min_by_key(|(_, (_, seen))| *seen).map(|(id, _)| id.clone())
                else {
                    break;
                };
                // No id: a session id is as good as the session to whoever reads the log.
                tracing::info!("evicting the least recently used session to make room");
                map.remove(&oldest);
            }
            shrink_when_sparse(&mut map);
            map.insert(id.to_owned(), (session, Instant::now()));
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LegacySession>> {
        Box::pin(async move {
            let mut map = locked(&self.map);
            let Some((session, seen)) = map.get_mut(id) else { return Ok(None) };
            if seen.elapsed() > self.idle {
                map.remove(id);
                return Ok(None);
            }
            *seen = Instant::now();
            Ok(Some(session.clone()))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        expected: &'a LegacySession,
        session: LegacySession,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            match locked(&self.map).get_mut(id) {
                Some((stored, _)) if stored != expected => Ok(false),
                Some(entry) => {
                    *entry = (session, Instant::now());
                    Ok(true)
                }
                None => Err(StoreError(format!("session {id} ended meanwhile"))),
            }
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut map = locked(&self.map);
            map.remove(id);
            shrink_when_sparse(&mut map);
            Ok(())
        })
    }
}

/// Bounds of the in-memory event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLimits {
    /// Events kept per stream; a resume past older ones starts at the oldest kept. Default 256.
    pub per_stream: usize,
    /// Streams kept per session; the oldest finished ones go first. Default 32.
    pub streams: usize,
    /// Sessions whose streams are kept; the least recently written go first. Default 1024.
    pub sessions: usize,
    /// Bytes of event data kept in all; past it the least recently written sessions' logs go
    /// first, then the oldest events of the stream being written (its newest always stays).
    /// Default 64 MiB.
    pub max_bytes: usize,
}

impl Default for EventLimits {
    fn default() -> Self {
        Self { per_stream: 256, streams: 32, sessions: 1024, max_bytes: 64 * 1024 * 1024 }
    }
}

#[derive(Default)]
struct StreamLog {
    events: VecDeque<(u64, String)>,
    finished: bool,
    /// The bytes of `events`' data.
    bytes: usize,
}

impl StreamLog {
    fn push(&mut self, event: u64, message: String) {
        self.bytes += message.len();
        self.events.push_back((event, message));
    }

    fn pop_oldest(&mut self) {
        if let Some((_, message)) = self.events.pop_front() {
            self.bytes -= message.len();
        }
    }
}

/// One session's streams.
type Streams = HashMap<u64, StreamLog>;

fn bytes_of(streams: &Streams) -> usize {
    streams.values().map(|log| log.bytes).sum()
}

/// Every session's streams, least recently written first, and their bytes in all.
#[derive(Default)]
struct Logs {
    sessions: VecDeque<(String, Streams)>,
    bytes: usize,
}

impl Logs {
    fn drop_oldest_session(&mut self) {
        if let Some((_, streams)) = self.sessions.pop_front() {
            self.bytes -= bytes_of(&streams);
        }
    }
}

/// Stream events in this process's memory, bounded by [`EventLimits`].
pub struct MemoryEventStore {
    logs: Mutex<Logs>,
    limits: EventLimits,
}

impl MemoryEventStore {
    /// An empty log within `limits`.
    pub fn new(limits: EventLimits) -> Self {
        Self { logs: Mutex::new(Logs::default()), limits }
    }

    /// Runs `write` on `session`'s streams, making it the most recently written session, then
    /// keeps the log within its bounds (`stream` is the one written).
    fn write(&self, session: &str, stream: u64, write: impl FnOnce(&mut Streams)) {
        let mut logs = locked(&self.logs);
        let mut streams = match logs.sessions.iter().position(|(id, _)| id == session) {
            Some(at) => logs.sessions.remove(at).map(|(_, streams)| streams).unwrap_or_default(),
            None => Streams::new(),
        };
        let before = bytes_of(&streams);
        write(&mut streams);
        logs.bytes = logs.bytes - before + bytes_of(&streams);
        if logs.sessions.len() >= self.limits.sessions.max(1) {
            logs.drop_oldest_session();
        }
        while logs.bytes > self.limits.max_bytes && !logs.sessions.is_empty() {
            logs.drop_oldest_session();
        }
        if let Some(log) = streams.get_mut(&stream) {
            while logs.bytes > self.limits.max_bytes && log.events.len() > 1 {
                let before = log.bytes;
                log.pop_oldest();
                logs.bytes -= before - log.bytes;
            }
        }
        logs.sessions.push_back((session.to_owned(), streams));
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        event: u64,
        message: String,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.write(session, stream, |streams| {
                if !streams.contains_key(&stream) && streams.len() >= self.limits.streams.max(1) {
                    let finished = streams.iter().filter(|(_, log)| log.finished).map(|(n, _)| *n).min();
                    if let Some(oldest) = finished.or_else(|| streams.keys().min().copied()) {
                        streams.remove(&oldest);
                    }
                }
                let log = streams.entry(stream).or_default();
                if log.events.len() >= self.limits.per_stream.max(1) {
                    log.pop_oldest();
                }
                log.push(event, message);
            });
            Ok(())
        })
    }

    fn finish<'a>(&'a self, session: &'a str, stream: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.write(session, stream, |streams| streams.entry(stream).or_default().finished = true);
            Ok(())
        })
    }

    fn replay<'a>(&'a self, session: &'a str, stream: u64, after: u64) -> StoreFuture<'a, Option<Replay>> {
        Box::pin(async move {
            let logs = locked(&self.logs);
            let log = logs
                .sessions
                .iter()
                .find(|(id, _)| id == session)
                .and_then(|(_, streams)| streams.get(&stream));
            Ok(log.map(|log| Replay {
                events: log.events.iter().filter(|(n, _)| *n > after).cloned().collect(),
                finished: log.finished,
            }))
        })
    }

    fn forget<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut logs = locked(&self.logs);
            if let Some(at) = logs.sessions.iter().position(|(id, _)| id == session)
                && let Some((_, streams)) = logs.sessions.remove(at)
            {
                logs.bytes -= bytes_of(&streams);
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn http_54_55_a_replay_holds_only_what_that_stream_missed() {
        let store = MemoryEventStore::new(EventLimits::default());
        for n in 1..=3 {
            store.append("s", 7, n, format!("m{n}")).await.unwrap();
        }
        store.append("s", 8, 1, "other".into()).await.unwrap();
        let replay = store.replay("s", 7, 1).await.unwrap().expect("a known stream");
        assert_eq!(replay.events, vec![(2, "m2".into()), (3, "m3".into())]);
        assert!(!replay.finished);
        store.finish("s", 7).await.unwrap();
        assert!(store.replay("s", 7, 3).await.unwrap().unwrap().finished);
        assert_eq!(store.replay("s", 9, 0).await.unwrap(), None, "an unknown stream");
        assert_eq!(store.replay("t", 7, 0).await.unwrap(), None, "another session's stream");
        store.forget("s").await.unwrap();
        assert_eq!(store.replay("s", 8, 0).await.unwrap(), None);
    }

    #[tokio::test]
    async fn the_event_log_stays_within_its_limits() {
        let store = MemoryEventStore::new(EventLimits {
            per_stream: 2,
            streams: 2,
            sessions: 2,
            ..EventLimits::default()
        });
        for n in 1..=5 {
            store.append("s", 1, n, format!("m{n}")).await.unwrap();
        }
        let kept = store.replay("s", 1, 0).await.unwrap().unwrap().events;
        assert_eq!(kept, vec![(4, "m4".into()), (5, "m5".into())], "the newest events stay");
        store.finish("s", 1).await.unwrap();
        store.append("s", 2, 1, "x".into()).await.unwrap();
        store.append("s", 3, 1, "y".into()).await.unwrap();
        assert_eq!(store.replay("s", 1, 0).await.unwrap(), None, "the finished stream went first");
        store.append("t", 1, 1, "x".into()).await.unwrap();
        store.append("u", 1, 1, "x".into()).await.unwrap();
        assert_eq!(store.replay("s", 2, 0).await.unwrap(), None, "the least recently written session went");
    }

    fn session() -> LegacySession {
        LegacySession {
            version: crate::protocol::ProtocolVersion::V2025_11_25,
            client: std::sync::Arc::new(crate::protocol::era::DeclaredClient {
                capabilities: Default::default(),
                info: Some(crate::protocol::types::Implementation::new("c", "1")),
            }),
            log_level: None,
            subscriptions: Default::default(),
            initialized: true,
            owner: None,
        }
    }

    #[tokio::test]
    async fn sessions_expire_when_idle_and_stay_within_the_limit() {
        let store = MemorySessionStore::new(Duration::from_millis(30), 1);
        store.create("a", session()).await.unwrap();
        assert!(store.get("a").await.unwrap().is_some());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(store.get("a").await.unwrap().is_none(), "expired");
        store.create("b", session()).await.unwrap();
        assert!(store.update("a", &session(), session()).await.is_err(), "an ended session is not revived");
        store.remove("b").await.unwrap();
        assert!(store.get("b").await.unwrap().is_none());
    }

    /// At the bound the least recently used session makes room (new clients used to get 503
    /// for as long as the idle ones lived, so idle sessions could lock every legacy client out).
    #[tokio::test]
    async fn a_new_session_past_the_bound_evicts_the_least_recently_used() {
        let store = MemorySessionStore::new(Duration::from_secs(60), 2);
        store.create("old", session()).await.unwrap();
        store.create("used", session()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(store.get("old").await.unwrap().is_some(), "used just now");
        store.create("new", session()).await.unwrap();
        assert!(store.get("used").await.unwrap().is_none(), "the least recently used made room");
        assert!(store.get("old").await.unwrap().is_some());
        assert!(store.get("new").await.unwrap().is_some());
    }

    /// The log is bounded in bytes, not only in events (it used to keep 256 events per stream
    /// of any size, for every stream of every session).
    #[tokio::test]
    async fn the_event_log_stays_within_its_bytes() {
        let store = MemoryEventStore::new(EventLimits { max_bytes: 1000, ..EventLimits::default() });
        store.append("old", 1, 1, "o".repeat(600)).await.unwrap();
        store.append("new", 1, 1, "n".repeat(300)).await.unwrap();
        assert!(store.replay("old", 1, 0).await.unwrap().is_some(), "900 bytes fit");
        store.append("new", 1, 2, "n".repeat(300)).await.unwrap();
        assert_eq!(store.replay("old", 1, 0).await.unwrap(), None, "the least recently written went");
        for n in 3..=6 {
            store.append("new", 1, n, "n".repeat(300)).await.unwrap();
        }
        let kept = store.replay("new", 1, 0).await.unwrap().unwrap().events;
        assert_eq!(
            kept.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            [4, 5, 6],
            "the newest within 1000 bytes"
        );
        store.append("new", 1, 7, "n".repeat(5000)).await.unwrap();
        let kept = store.replay("new", 1, 0).await.unwrap().unwrap().events;
        assert_eq!(kept.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [7], "the newest always stays");
        store.forget("new").await.unwrap();
        store.append("again", 1, 1, "a".repeat(900)).await.unwrap();
        assert!(store.replay("again", 1, 0).await.unwrap().is_some(), "forgetting returned the bytes");
    }
}
