//! Results kept for as long as the server says they stay fresh (`ttlMs`, 2026-07-28): listing
//! pages and resource reads. A change notification makes the entries it concerns stale at
//! once. The cache belongs to one client, so one authorization context: `cacheScope: private`
//! entries are never shared.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::Notification;
use serde_json::Value;
use tokio::sync::broadcast;

/// Entries kept at most; the soonest to expire go first.
const MAX_ENTRIES: usize = 1024;

struct State {
    entries: HashMap<String, (Instant, JsonObject)>,
    /// The server's notifications, read before each lookup.
    changes: broadcast::Receiver<Notification>,
}

/// A client's cache, keyed by `"{method} {params}"`.
pub(super) struct Cache {
    state: Mutex<State>,
}

impl Cache {
    /// An empty cache that watches `changes` for list and resource changes.
    pub(super) fn new(changes: broadcast::Receiver<Notification>) -> Self {
        Self { state: Mutex::new(State { entries: HashMap::new(), changes }) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The fresh result under `key`, if any.
    pub(super) fn get(&self, key: &str) -> Option<JsonObject> {
        let mut state = self.state();
        state.forget_changed();
        match state.entries.get(key) {
            Some((expires, result)) if *expires > Instant::now() => Some(result.clone()),
            Some(_) => {
                state.entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` under `key` for its `ttlMs`, if it has a positive one.
    pub(super) fn keep(&self, key: String, result: &JsonObject) {
        let Some(ttl) = result.get("ttlMs").and_then(Value::as_u64).filter(|ttl| *ttl > 0) else { return };
        let mut state = self.state();
        if state.entries.len() >= MAX_ENTRIES {
            let soonest =
                state.entries.iter().min_by_key(|(_, (expires, _))| *expires).map(|(k, _)| k.clone());
            if let Some(soonest) = soonest {
                state.entries.remove(&soonest);
            }
        }
        state.entries.insert(key, (Instant::now() + Duration::from_millis(ttl), result.clone()));
    }
}

impl State {
    /// Drops the entries that notifications since the last look made stale; everything when
    /// notifications were missed.
    fn forget_changed(&mut self) {
        loop {
            let stale_prefix = match self.changes.try_recv() {
                Ok(note) => match note.method.as_str() {
                    "notifications/tools/list_changed" => "tools/list ".to_owned(),
                    "notifications/prompts/list_changed" => "prompts/list ".to_owned(),
                    "notifications/resources/list_changed" => "resources/".to_owned(),
                    "notifications/resources/updated" => {
                        let uri =
                            note.params.as_ref().and_then(|p| p.get("uri")).cloned().unwrap_or_default();
                        format!("resources/read {}", serde_json::json!({"uri": uri}))
                    }
                    _ => continue,
                },
                Err(broadcast::error::TryRecvError::Lagged(_)) => String::new(),
                Err(_) => return,
            };
            self.entries.retain(|key, _| !key.starts_with(&stale_prefix));
        }
    }
}
