//! What may be used only once, in Redis: a key per value digest, set if absent, expiring with
//! the value's lifetime.

use std::time::Duration;

use modelctx::store::{OnceStore, StoreFuture};
use sha2::{Digest, Sha256};

use crate::Redis;

/// Claims shared by every instance, in Redis.
#[derive(Clone, Debug)]
pub struct RedisOnceStore {
    redis: Redis,
}

impl RedisOnceStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl OnceStore for RedisOnceStore {
    fn claim<'a>(&'a self, value: &'a str, lifetime: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let digest: String =
                Sha256::digest(value.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
            let mut set = redis::cmd("SET");
            set.arg(self.redis.key(&["once", &digest]))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(lifetime.as_millis().max(1) as u64);
            let claimed: Option<String> = self.redis.run("claim a value", &set).await?;
            Ok(claimed.is_some())
        })
    }
}
