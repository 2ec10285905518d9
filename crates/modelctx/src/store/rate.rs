//! Call budgets that several instances can share: a [`RateStore`] takes one call from a
//! named budget, or says how long until it could. Each budget is a generic cell rate (GCRA): a
//! burst of `calls` at once, then one more every `per / calls`, so that no window of `per`
//! holds more than `calls` calls.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::{StoreError, StoreFuture};

/// A budget: at most `calls` calls in any `per`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rate {
    /// Calls allowed in any `per` (and at once).
    pub calls: NonZeroU32,
    /// The window.
    pub per: Duration,
}

impl Rate {
    /// At most `calls` (at least one) in any `per`.
    pub fn new(calls: u32, per: Duration) -> Self {
        Self { calls: NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN), per }
    }

    /// The time between two calls once a burst is spent: `per / calls` (at least 1 ns).
    pub fn interval(&self) -> Duration {
        (self.per / self.calls.get()).max(Duration::from_nanos(1))
    }

    /// The budget as `governor` counts it.
    pub(crate) fn quota(&self) -> Quota {
        Quota::with_period(self.interval())
            .expect("a period of at least one nanosecond")
            .allow_burst(self.calls)
    }
}

/// Budgets by name, kept where every instance sharing them sees the same counts.
pub trait RateStore: Send + Sync + std::fmt::Debug + 'static {
    /// Takes one call from the budget `key` of `rate`: `None` when it is within the budget,
    /// else how long until one more would be (and nothing is taken). Keys are opaque; a store
    /// may keep a digest of them.
    fn take<'a>(&'a self, key: &'a str, rate: Rate) -> StoreFuture<'a, Option<Duration>>;
}

/// Budgets in this process's memory (`governor`'s keyed limiters), at most `max` keys per rate:
/// past it, keys whose budgets are full again are forgotten, and if that is not enough `take`
/// answers a [`StoreError`] (the store is full) rather than track one more.
#[derive(Debug)]
pub struct MemoryRateStore {
    limiters: Mutex<HashMap<Rate, Arc<DefaultKeyedRateLimiter<String>>>>,
    max: usize,
}

impl MemoryRateStore {
    /// A store tracking at most `max` keys per rate.
    pub fn new(max: usize) -> Self {
        Self { limiters: Mutex::default(), max: max.max(1) }
    }
}

impl Default for MemoryRateStore {
    /// At most 10,000 keys per rate.
    fn default() -> Self {
        Self::new(10_000)
    }
}

impl RateStore for MemoryRateStore {
    fn take<'a>(&'a self, key: &'a str, rate: Rate) -> StoreFuture<'a, Option<Duration>> {
        let limiter = {
            let mut limiters = self.limiters.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(limiters.entry(rate).or_insert_with(|| Arc::new(RateLimiter::keyed(rate.quota()))))
        };
        let verdict = (|| {
            if limiter.len() >= self.max {
                limiter.retain_recent();
                if limiter.len() >= self.max {
                    return Err(StoreError(format!(
                        "the rate store tracks {} callers of this rate already",
                        self.max
                    )));
                }
            }
            Ok(limiter
                .check_key(&key.to_owned())
                .err()
                .map(|not_until| not_until.wait_time_from(DefaultClock::default().now())))
        })();
        Box::pin(std::future::ready(verdict))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_budget_is_per_key_and_says_how_long_to_wait() {
        let store = MemoryRateStore::default();
        let rate = Rate::new(2, Duration::from_secs(60));
        assert_eq!(store.take("a", rate).await.unwrap(), None);
        assert_eq!(store.take("a", rate).await.unwrap(), None);
        let wait = store.take("a", rate).await.unwrap().expect("the third call is over the budget");
        assert!(wait > Duration::from_secs(25) && wait <= Duration::from_secs(30), "{wait:?}");
        assert_eq!(store.take("b", rate).await.unwrap(), None, "another key has its own budget");
    }

    #[tokio::test]
    async fn past_its_bound_the_store_refuses_rather_than_grows() {
        let store = MemoryRateStore::new(1);
        let rate = Rate::new(1, Duration::from_secs(60));
        assert_eq!(store.take("a", rate).await.unwrap(), None);
        assert!(store.take("b", rate).await.is_err());
    }
}
