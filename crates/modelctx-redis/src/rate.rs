//! Call budgets in Redis, so that every instance sharing it keeps one budget: a GCRA in one
//! script, on Redis's own clock (instances' clocks may disagree; Redis's is one).

use std::sync::LazyLock;
use std::time::Duration;

use modelctx::store::{Rate, RateStore, StoreFuture};
use redis::Script;
use sha2::{Digest, Sha256};

use crate::Redis;

/// Takes one call from a budget. KEYS: the budget's theoretical arrival time (µs). ARGV: the
/// interval between calls and the burst tolerance, both in µs. Returns 0 when the call is
/// within the budget, else the µs to wait (and takes nothing).
static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
        local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
        local tat = tonumber(redis.call('GET', KEYS[1])) or now
        if tat < now then tat = now end
        if tat - tolerance > now then
            return tat - tolerance - now
        end
        local next = tat + interval
        redis.call('SET', KEYS[1], string.format('%d', next), 'PX', math.ceil((next - now) / 1000))
        return 0",
    )
});

/// Call budgets shared by every instance, in Redis.
#[derive(Clone, Debug)]
pub struct RedisRateStore {
    redis: Redis,
}

impl RedisRateStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl RateStore for RedisRateStore {
    fn take<'a>(&'a self, key: &'a str, rate: Rate) -> StoreFuture<'a, Option<Duration>> {
        Box::pin(async move {
            // Keys hold callers' names: a digest keeps them out of Redis and bounded.
            let digest: String = Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
            let interval = u64::try_from(rate.interval().as_micros()).unwrap_or(u64::MAX).max(1);
            let tolerance = interval.saturating_mul(u64::from(rate.calls.get() - 1));
            let mut invocation = TAKE.prepare_invoke();
            invocation.key(self.redis.key(&["rate", &digest])).arg(interval).arg(tolerance);
            let wait: u64 = self.redis.invoke("take from a rate budget", &invocation).await?;
            Ok((wait > 0).then(|| Duration::from_micros(wait)))
        })
    }
}
