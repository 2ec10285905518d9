//! Legacy sessions in Redis: each one a JSON value expiring when idle, and an index by last
//! use that bounds how many live at once.

use std::sync::LazyLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use modelctx::server::LegacySession;
use modelctx::store::{StoreError, StoreFuture};
use modelctx::transport::http::SessionStore;
use redis::Script;

use crate::{Redis, events};

/// Stores a session; past the bound, the least recently used sessions make room, their
/// event logs forgotten with them (they used to stay until their TTL).
/// KEYS: session, index. ARGV: JSON, idle ms, now ms, max, id, session key prefix, then the
/// event logs' key prefixes ([`events::session_prefixes`]).
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{}{}",
        events::FORGET_EVENTS_LUA,
        r"
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[2]))
        while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) do
            local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
            redis.call('ZREM', KEYS[2], oldest)
            redis.call('DEL', ARGV[6] .. oldest)
            local session = oldest .. ':'
            forget_events(ARGV[7] .. oldest, ARGV[8] .. session, ARGV[9] .. session, ARGV[10] .. session)
        end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
        return 1"
    ))
});

/// Reads a session and refreshes its idle clock. KEYS: session, index. ARGV: idle ms, now, id.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local value = redis.call('GET', KEYS[1])
        if value then
            redis.call('PEXPIRE', KEYS[1], ARGV[1])
            redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
        end
        return value",
    )
});

/// Replaces a session that still exists and is still as expected: 1 when replaced, 0 when
/// another change came first, -1 when it is gone. KEYS: session, index. ARGV: JSON, idle ms,
/// now, id, the expected JSON.
static UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local stored = redis.call('GET', KEYS[1])
        if not stored then return -1 end
        if stored ~= ARGV[5] then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
        return 1",
    )
});

pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The legacy sessions of every instance, in Redis.
#[derive(Clone, Debug)]
pub struct RedisSessionStore {
    redis: Redis,
    idle: Duration,
    max: usize,
}

impl RedisSessionStore {
    pub(crate) fn new(redis: Redis, idle: Duration, max: usize) -> Self {
        Self { redis, idle, max: max.max(1) }
    }

    fn keys(&self, id: &str) -> (String, String) {
        (self.redis.key(&["session", id]), self.redis.key(&["sessions"]))
    }

    fn idle_ms(&self) -> u64 {
        self.idle.as_millis().max(1) as u64
    }
}

fn encode(session: &LegacySession) -> Result<String, StoreError> {
    serde_json::to_string(session).map_err(|e| StoreError(format!("a session could not be encoded: {e}")))
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(&'a self, id: &'a str, session: LegacySession) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (key, index) = self.keys(id);
            let mut invocation = CREATE.prepare_invoke();
            invocation.key(&key).key(&index).arg(encode(&session)?).arg(self.idle_ms()).arg(now_ms());
            invocation.arg(self.max).arg(id).arg(self.redis.key(&["session", ""]));
            for prefix in events::session_prefixes(&self.redis) {
                invocation.arg(prefix);
            }
            self.redis.invoke::<i64>("store a session", &invocation).await.map(drop)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<LegacySession>> {
        Box::pin(async move {
            let (key, index) = self.keys(id);
            let mut invocation = GET.prepare_invoke();
            invocation.key(&key).key(&index).arg(self.idle_ms()).arg(now_ms()).arg(id);
            let value: Option<String> = self.redis.invoke("read a session", &invocation).await?;
            value
                .map(|value| serde_json::from_str(&value))
                .transpose()
                .map_err(|e| StoreError(format!("session {id} in Redis is not one this version reads: {e}")))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        expected: &'a LegacySession,
        session: LegacySession,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (key, index) = self.keys(id);
            let mut invocation = UPDATE.prepare_invoke();
            invocation.key(&key).key(&index).arg(encode(&session)?).arg(self.idle_ms()).arg(now_ms()).arg(id);
            // The same encoding as the stored copy's: a session read back encodes as it was
            // written (its maps keep their order).
            invocation.arg(encode(expected)?);
            match self.redis.invoke::<i64>("update a session", &invocation).await? {
                1 => Ok(true),
                0 => Ok(false),
                _ => Err(StoreError(format!("session {id} ended meanwhile"))),
            }
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (key, index) = self.keys(id);
            let mut both = redis::pipe();
            both.atomic().del(&key).ignore().zrem(&index, id).ignore();
            self.redis.pipeline("remove a session", &both).await
        })
    }
}
