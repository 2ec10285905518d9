//! Results kept for as long as the server says they stay fresh (`ttlMs`, 2026-07-28): listing
//! pages and resource reads. A change notification makes the entries it concerns stale at
//! once. The cache belongs to one client, and each entry to the authorization context it was
//! fetched in (a digest of the credentials sent): a `cacheScope: private` entry answers only
//! the same context, so credentials that change never see another's results (CACHE-07).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use modelctx_protocol::JsonObject;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use serde_json::Value;
use tokio::sync::broadcast;

/// Entries kept at most; the soonest to expire go first.
const MAX_ENTRIES: usize = 1024;

/// An authorization context: the SHA-256 of the credentials a request carried.
pub(super) type Context = [u8; 32];

/// A kept result: when it expires, the authorization context it was fetched in, and whether
/// it may answer another (`cacheScope: public`).
struct Entry {
    expires: Instant,
    context: Context,
    public: bool,
    result: JsonObject,
}

struct State {
    entries: HashMap<String, Entry>,
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

    /// The fresh result under `key` for authorization `context`, if any.
    pub(super) fn get(&self, key: &str, context: Context) -> Option<JsonObject> {
        let mut state = self.state();
        state.forget_changed();
        match state.entries.get(key) {
            Some(entry) if entry.expires <= Instant::now() => {
                state.entries.remove(key);
                None
            }
            Some(entry) if entry.public || entry.context == context => Some(entry.result.clone()),
            _ => None,
        }
    }

    /// Keeps `result`, fetched in authorization `context`, under `key` for its `ttlMs`, if it
    /// has a positive one.
    pub(super) fn keep(&self, key: String, context: Context, result: &JsonObject) {
        let Some(ttl) = result.get("ttlMs").and_then(Value::as_u64).filter(|ttl| *ttl > 0) else { return };
        let public = result.get("cacheScope").and_then(Value::as_str) == Some("public");
        let mut state = self.state();
        if state.entries.len() >= MAX_ENTRIES {
            let soonest = state.entries.iter().min_by_key(|(_, entry)| entry.expires).map(|(k, _)| k.clone());
            if let Some(soonest) = soonest {
                state.entries.remove(&soonest);
            }
        }
        let expires = Instant::now() + Duration::from_millis(ttl);
        state.entries.insert(key, Entry { expires, context, public, result: result.clone() });
    }
}

impl Cache {
    /// Forgets every result of `method` (its pages, its reads).
    #[cfg(feature = "experimental")]
    pub(super) fn forget_method(&self, method: &modelctx_protocol::Method) {
        let prefix = format!("{method} ");
        self.state().entries.retain(|key, _| !key.starts_with(&prefix));
    }
}

impl State {
    /// Drops the entries that notifications since the last look made stale; everything when
    /// notifications were missed.
    fn forget_changed(&mut self) {
        loop {
            let stale_prefix = match self.changes.try_recv() {
                Ok(note) => match note.method {
                    Method::ToolListChanged => "tools/list ".to_owned(),
                    Method::PromptListChanged => "prompts/list ".to_owned(),
                    Method::ResourceListChanged => "resources/".to_owned(),
                    Method::ResourceUpdated => {
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
