//! What may be used only once, for as long as it could be used at all: a `requestState`
//! that must be redeemed at most once (MRTR-10), a DPoP proof's `jti`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::StoreFuture;

/// Remembers values for a while, so that a second use of one is told apart from the first.
pub trait OnceStore: Send + Sync + std::fmt::Debug + 'static {
    /// `true` the first time `value` is claimed within `lifetime` of its first claim, `false`
    /// every later time. Values are opaque; a store may keep a digest of them.
    fn claim<'a>(&'a self, value: &'a str, lifetime: Duration) -> StoreFuture<'a, bool>;
}

/// Claims in this process's memory, at most `max` at once: past it the claim that expires
/// first is forgotten early, so a store under attack stays bounded (a forgotten claim could
/// be used again, which the callers' own expiry checks bound).
#[derive(Debug)]
pub struct MemoryOnceStore {
    claims: Mutex<HashMap<String, Instant>>,
    max: usize,
}

impl MemoryOnceStore {
    /// A store holding at most `max` claims.
    pub fn new(max: usize) -> Self {
        Self { claims: Mutex::new(HashMap::new()), max: max.max(1) }
    }
}

impl Default for MemoryOnceStore {
    /// At most 100,000 claims.
    fn default() -> Self {
        Self::new(100_000)
    }
}

impl OnceStore for MemoryOnceStore {
    fn claim<'a>(&'a self, value: &'a str, lifetime: Duration) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let mut claims = self.claims.lock().unwrap_or_else(PoisonError::into_inner);
        let first = match claims.get(value) {
            Some(until) if *until > now => false,
            _ => {
                if claims.len() >= self.max {
                    claims.retain(|_, until| *until > now);
                }
                while claims.len() >= self.max {
                    let Some(soonest) =
                        claims.iter().min_by_key(|(_, until)| **until).map(|(v, _)| v.clone())
                    else {
                        break;
                    };
                    claims.remove(&soonest);
                }
                claims.insert(value.to_owned(), now + lifetime);
                true
            }
        };
        Box::pin(async move { Ok(first) })
    }
}
