//! The event logs of legacy request streams in Redis: one list per stream, bounded in events
//! and bytes; the streams of a session, bounded in number; everything expiring with the
//! session.

use std::sync::LazyLock;
use std::time::Duration;

use modelctx::store::{StoreError, StoreFuture};
use modelctx::transport::http::{EventStore, Replay};
use redis::Script;

use crate::Redis;
use crate::sessions::now_ms;

/// Bounds of the Redis event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedisEventLimits {
    /// Events kept per stream; older ones go first. Default 256.
    pub per_stream: usize,
    /// Bytes of event data kept per stream; past it the oldest events go (the newest always
    /// stays). Default 1 MiB.
    pub stream_bytes: usize,
    /// Streams kept per session; the least recently written go first. Default 32. A
    /// session's log holds at most `streams × stream_bytes` bytes.
    pub streams: usize,
    /// How long a session's log outlives its last write. Default 30 minutes (the session
    /// idle timeout of `modelctx serve`).
    pub ttl: Duration,
}

impl Default for RedisEventLimits {
    fn default() -> Self {
        Self { per_stream: 256, stream_bytes: 1024 * 1024, streams: 32, ttl: Duration::from_secs(1800) }
    }
}

/// Logs one event. KEYS: stream list, its bytes, the session's streams, its done flag.
/// ARGV: entry, per stream, stream bytes, streams, ttl ms, stream number, now, the key
/// prefixes of a stream's list, bytes and done flag.
static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        local list, bytes, streams, done = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
        if not redis.call('ZSCORE', streams, ARGV[6]) then
            while redis.call('ZCARD', streams) >= tonumber(ARGV[4]) do
                local oldest = redis.call('ZRANGE', streams, 0, 0)[1]
                redis.call('ZREM', streams, oldest)
                redis.call('DEL', ARGV[8] .. oldest, ARGV[9] .. oldest, ARGV[10] .. oldest)
            end
        end
        redis.call('RPUSH', list, ARGV[1])
        local total = redis.call('INCRBY', bytes, string.len(ARGV[1]))
        local length = redis.call('LLEN', list)
        while length > tonumber(ARGV[2]) or (total > tonumber(ARGV[3]) and length > 1) do
            local old = redis.call('LPOP', list)
            total = redis.call('DECRBY', bytes, string.len(old))
            length = length - 1
        end
        redis.call('ZADD', streams, ARGV[7], ARGV[6])
        for _, key in ipairs({list, bytes, streams, done}) do
            redis.call('PEXPIRE', key, ARGV[5])
        end
        return 1",
    )
});

/// Marks a stream finished. KEYS: the session's streams, the done flag. ARGV: ttl, stream, now.
static FINISH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        redis.call('SET', KEYS[2], 1, 'PX', ARGV[1])
        redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
        redis.call('PEXPIRE', KEYS[1], ARGV[1])
        return 1",
    )
});

/// Lua defining `forget_events(streams, events, bytes, done)`: deletes a session's event
/// logs, given the key of its streams and the key prefixes of a stream's list, bytes and done
/// flag (the stream's number follows each). Shared by [`FORGET`] and the session store, which
/// forgets the logs of the sessions it evicts.
pub(crate) const FORGET_EVENTS_LUA: &str = r"
local function forget_events(streams, events, bytes, done)
    for _, stream in ipairs(redis.call('ZRANGE', streams, 0, -1)) do
        redis.call('DEL', events .. stream, bytes .. stream, done .. stream)
    end
    redis.call('DEL', streams)
end
";

/// Forgets a session's streams. KEYS: the session's streams. ARGV: the three key prefixes.
static FORGET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!("{FORGET_EVENTS_LUA} forget_events(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) return 1"))
});

/// The keys of a session's event logs with the session left out, for a script to add it to:
/// its streams (`PREFIX .. session`), and a stream's list, bytes and done flag
/// (`PREFIX .. session .. ':' .. stream`).
pub(crate) fn session_prefixes(redis: &Redis) -> [String; 4] {
    ["event-streams", "events", "event-bytes", "event-done"].map(|kind| redis.key(&[kind, ""]))
}

/// The event logs of every instance's legacy streams, in Redis.
#[derive(Clone, Debug)]
pub struct RedisEventStore {
    redis: Redis,
    limits: RedisEventLimits,
}

impl RedisEventStore {
    pub(crate) fn new(redis: Redis, limits: RedisEventLimits) -> Self {
        Self { redis, limits }
    }

    /// The key prefixes of a stream's list, bytes and done flag in `session`.
    fn prefixes(&self, session: &str) -> [String; 3] {
        let [_, events, bytes, done] = session_prefixes(&self.redis);
        [events, bytes, done].map(|prefix| format!("{prefix}{session}:"))
    }

    fn streams(&self, session: &str) -> String {
        let [streams, ..] = session_prefixes(&self.redis);
        format!("{streams}{session}")
    }

    fn ttl_ms(&self) -> u64 {
        self.limits.ttl.as_millis().max(1) as u64
    }
}

/// A stream's entry: the event number, a space, the message.
fn parse_entry(entry: &str) -> Option<(u64, String)> {
    let (number, message) = entry.split_once(' ')?;
    Some((number.parse().ok()?, message.to_owned()))
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: u64,
        event: u64,
        message: String,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let [list, bytes, done] = self.prefixes(session).map(|prefix| format!("{prefix}{stream}"));
            let prefixes = self.prefixes(session);
            let mut invocation = APPEND.prepare_invoke();
            invocation.key(&list).key(&bytes).key(self.streams(session)).key(&done);
            invocation.arg(format!("{event} {message}")).arg(self.limits.per_stream.max(1));
            invocation.arg(self.limits.stream_bytes).arg(self.limits.streams.max(1)).arg(self.ttl_ms());
            invocation.arg(stream).arg(now_ms());
            for prefix in &prefixes {
                invocation.arg(prefix);
            }
            self.redis.invoke::<i64>("log an event", &invocation).await.map(drop)
        })
    }

    fn finish<'a>(&'a self, session: &'a str, stream: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let [_, _, done] = self.prefixes(session).map(|prefix| format!("{prefix}{stream}"));
            let mut invocation = FINISH.prepare_invoke();
            invocation.key(self.streams(session)).key(&done).arg(self.ttl_ms()).arg(stream).arg(now_ms());
            self.redis.invoke::<i64>("finish a stream", &invocation).await.map(drop)
        })
    }

    fn replay<'a>(&'a self, session: &'a str, stream: u64, after: u64) -> StoreFuture<'a, Option<Replay>> {
        Box::pin(async move {
            let [list, _, done] = self.prefixes(session).map(|prefix| format!("{prefix}{stream}"));
            let mut read = redis::pipe();
            read.lrange(&list, 0, -1).exists(&done).zscore(self.streams(session), stream);
            let (entries, finished, known): (Vec<String>, bool, Option<f64>) =
                self.redis.pipeline("read a stream's events", &read).await?;
            if known.is_none() && entries.is_empty() {
                return Ok(None);
            }
            let mut events = Vec::with_capacity(entries.len());
            for entry in entries {
                let (number, message) = parse_entry(&entry).ok_or_else(|| {
                    StoreError(format!("an event of stream {stream} in Redis is malformed"))
                })?;
                if number > after {
                    events.push((number, message));
                }
            }
            Ok(Some(Replay { events, finished }))
        })
    }

    fn forget<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut invocation = FORGET.prepare_invoke();
            invocation.key(self.streams(session));
            for prefix in &self.prefixes(session) {
                invocation.arg(prefix);
            }
            self.redis.invoke::<i64>("forget a session's events", &invocation).await.map(drop)
        })
    }
}
