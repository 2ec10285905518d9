//! What may be used only once, for as long as it could be used at all: a `requestState`
//! that must be redeemed at most once (MRTR-10), a DPoP proof's `jti`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::StoreFuture;

/// Remembers values for a while, so that a second use of one is told apart from the first.
pub trait OnceStore: Send + Sync + std::fmt::Debug + 'static {
    /// `true` the first time `value` is claimed within `lifetime` of its first claim, `false`
    /// every later time. Values are opaque; a store may keep a digest of them.
    fn claim<'a>(&'a self, value: &'a str, lifetime: Duration) -> StoreFuture<'a, bool>;
}

/// Claims in this process's memory, at most `max` at once: past it the oldest claim is
/// forgotten early (in constant time: claims are kept in the order they were made as well), so
/// a store under attack stays bounded and quick (a forgotten claim could be used again, which
/// the callers' own expiry checks bound; it used to scan every claim under its lock).
#[derive(Debug)]
pub struct MemoryOnceStore {
    claims: Mutex<Claims>,
    max: usize,
}

/// Each claimed value until when, and the claims in the order they were made.
#[derive(Debug, Default)]
struct Claims {
    until: HashMap<String, Instant>,
    made: VecDeque<(Instant, String)>,
}

impl Claims {
    /// Forgets the oldest claim; `false` when there is none.
    fn forget_oldest(&mut self) -> bool {
        let Some((until, value)) = self.made.pop_front() else { return false };
        // A value claimed again since has a newer entry: only this one's is removed.
        if self.until.get(&value) == Some(&until) {
            self.until.remove(&value);
        }
        true
    }
}

impl MemoryOnceStore {
    /// A store holding at most `max` claims.
    pub fn new(max: usize) -> Self {
        Self { claims: Mutex::new(Claims::default()), max: max.max(1) }
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
        let first = match claims.until.get(value) {
            Some(until) if *until > now => false,
            _ => {
                // The expired go first, oldest first (most lifetimes are alike), then as many
                // of the oldest as the bound needs.
                while claims.made.front().is_some_and(|(until, _)| *until <= now) && claims.forget_oldest() {}
                while (claims.until.len() >= self.max || claims.made.len() >= 2 * self.max)
                    && claims.forget_oldest()
                {}
                let until = now + lifetime;
                claims.until.insert(value.to_owned(), until);
                claims.made.push_back((until, value.to_owned()));
                true
            }
        };
        Box::pin(async move { Ok(first) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_value_is_claimed_once_and_the_oldest_make_room() {
        let store = MemoryOnceStore::new(2);
        let minute = Duration::from_secs(60);
        assert!(store.claim("a", minute).await.unwrap());
        assert!(!store.claim("a", minute).await.unwrap(), "claimed before");
        assert!(store.claim("b", minute).await.unwrap());
        assert!(store.claim("c", minute).await.unwrap(), "room made");
        assert!(store.claim("a", minute).await.unwrap(), "the oldest was forgotten");
        assert!(!store.claim("c", minute).await.unwrap(), "a newer one was kept");
        let claims = store.claims.lock().unwrap();
        assert!(claims.until.len() <= 2 && claims.made.len() <= 3, "bounded: {claims:?}");
    }

    #[tokio::test]
    async fn an_expired_claim_may_be_made_again() {
        let store = MemoryOnceStore::new(10);
        assert!(store.claim("a", Duration::ZERO).await.unwrap());
        assert!(store.claim("a", Duration::from_secs(60)).await.unwrap());
        assert!(!store.claim("a", Duration::from_secs(60)).await.unwrap());
    }
}
