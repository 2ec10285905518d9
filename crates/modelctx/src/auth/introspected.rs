//! What RFC 7662 introspection said of tokens, kept for a short while, and the introspection
//! calls under way, bounded: a client sending its token with every request costs the
//! authorization server one call per token and cache lifetime, not one per request, and a
//! flood of made-up tokens at most [`MAX_CALLS`] calls at once. (Each request used to make
//! its own call, however many were under way.)

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::{Semaphore, SemaphorePermit};

use super::store::unix_now;

/// The most tokens whose answers are kept; past it (once the expired ones are gone) a new
/// answer is not kept.
pub const MAX_KEPT: usize = 10_000;

/// The most introspection calls under way at once; more wait for one to end.
pub const MAX_CALLS: usize = 32;

/// An active token's claims, and until when they are kept.
type Kept = (Map<String, Value>, Instant);

/// Answers of active tokens, by the token's SHA-256, each until its lifetime or its `exp`
/// ends, whichever is first; and the calls under way.
#[derive(Debug)]
pub(crate) struct Introspected {
    kept: Mutex<HashMap<[u8; 32], Kept>>,
    lifetime: Duration,
    calls: Semaphore,
}

impl Introspected {
    /// Answers kept for `lifetime` (zero: none kept).
    pub(crate) fn new(lifetime: Duration) -> Self {
        Self { kept: Mutex::default(), lifetime, calls: Semaphore::new(MAX_CALLS) }
    }

    /// Sets how long an answer is kept.
    pub(crate) fn set_lifetime(&mut self, lifetime: Duration) {
        self.lifetime = lifetime;
    }

    /// The kept answer for `token`, if it is still good.
    pub(crate) fn get(&self, token: &str) -> Option<Map<String, Value>> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let key = digest(token);
        match kept.get(&key) {
            Some((claims, until)) if *until > Instant::now() => Some(claims.clone()),
            Some(_) => {
                kept.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps the answer `claims` of an active `token`, until the lifetime or the token's
    /// `exp` ends.
    pub(crate) fn keep(&self, token: &str, claims: &Map<String, Value>) {
        let left = claims.get("exp").and_then(Value::as_u64).map(|exp| exp.saturating_sub(unix_now()));
        let keep_for = left.map_or(self.lifetime, |left| self.lifetime.min(Duration::from_secs(left)));
        if keep_for.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX_KEPT {
            kept.retain(|_, (_, until)| *until > now);
        }
        if kept.len() < MAX_KEPT {
            kept.insert(digest(token), (claims.clone(), now + keep_for));
        }
    }

    /// A place among the calls under way, waited for.
    pub(crate) async fn call(&self) -> SemaphorePermit<'_> {
        self.calls.acquire().await.expect("the semaphore is never closed")
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}
