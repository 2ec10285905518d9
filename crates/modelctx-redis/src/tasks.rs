//! Tasks in Redis: each one a JSON value expiring with its TTL, an index by expiry that
//! bounds how many are kept, and changes applied by compare-and-set.

use std::sync::LazyLock;

use modelctx::server::tasks::{TaskChange, TaskRecord, TaskStore};
use modelctx::store::{StoreError, StoreFuture};
use redis::Script;

use crate::Redis;
use crate::sessions::now_ms;

/// Keeps a new task if there is room. KEYS: task, index, the owner's index. ARGV: JSON,
/// expiry ms (empty for never), now, max, id, task key prefix, how many to read for an ended
/// one.
///
/// At the bound, the ended task that expires first makes room: the index is ordered by expiry,
/// and its first [`ENDED_SCAN`] entries are read for one that ended (only those: a store full of
/// working tasks refuses the new one after as many reads).
///
/// The owner's index (ids in lexicographic order, for listing) expires with the last of its
/// tasks, and sheds the ids of expired tasks once it holds more than can be alive (it used to
/// keep every id for ever: only `tasks/list`, which modern clients never call, trimmed it).
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
        if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
            local room = false
            for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[7]) - 1)) do
                local kept = redis.call('GET', ARGV[6] .. id)
                local status = kept and cjson.decode(kept).status
                if not kept or status == 'completed' or status == 'failed' or status == 'cancelled' then
                    redis.call('DEL', ARGV[6] .. id)
                    redis.call('ZREM', KEYS[2], id)
                    room = true
                    break
                end
            end
            if not room then return 0 end
        end
        redis.call('ZADD', KEYS[3], 0, ARGV[5])
        if redis.call('ZCARD', KEYS[3]) > tonumber(ARGV[4]) then
            for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
                if id ~= ARGV[5] and redis.call('EXISTS', ARGV[6] .. id) == 0 then
                    redis.call('ZREM', KEYS[3], id)
                end
            end
        end
        if ARGV[2] == '' then
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('ZADD', KEYS[2], '+inf', ARGV[5])
            redis.call('SET', KEYS[3] .. ':forever', 1)
            redis.call('PERSIST', KEYS[3])
        else
            redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
            redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
            if redis.call('EXISTS', KEYS[3] .. ':forever') == 0 then
                local left = redis.call('PTTL', KEYS[3])
                if left < 0 or tonumber(ARGV[3]) + left < tonumber(ARGV[2]) then
                    redis.call('PEXPIREAT', KEYS[3], ARGV[2])
                end
            end
        end
        return 1",
    )
});

/// How many of the tasks that expire first a full store reads for an ended one to forget.
const ENDED_SCAN: usize = 64;

/// Replaces a task if it is still as read. KEYS: task. ARGV: as read, new JSON.
static SWAP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
        return 1",
    )
});

/// How many times a change is tried again on a task another instance changed meanwhile.
const MAX_ATTEMPTS: usize = 64;

/// The tasks of every instance, in Redis.
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    redis: Redis,
}

impl RedisTaskStore {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self, id: &str) -> String {
        self.redis.key(&["task", id])
    }

    /// The index of `owner`'s task ids (lexicographic, score 0).
    fn owner_index(&self, owner: Option<&str>) -> String {
        match owner {
            Some(owner) => self.redis.key(&["tasks-of", &format!("p:{owner}")]),
            None => self.redis.key(&["tasks-of", "none"]),
        }
    }

    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, StoreError> {
        let value: Option<String> =
            self.redis.run("read a task", redis::cmd("GET").arg(self.key(id))).await?;
        value
            .map(|value| {
                let task = serde_json::from_str(&value).map_err(|e| {
                    StoreError(format!("task {id} in Redis is not one this version reads: {e}"))
                })?;
                Ok((value, task))
            })
            .transpose()
    }
}

fn encode(task: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(task).map_err(|e| StoreError(format!("a task could not be encoded: {e}")))
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, max: usize) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut invocation = CREATE.prepare_invoke();
            invocation
                .key(self.key(task.id()))
                .key(self.redis.key(&["tasks"]))
                .key(self.owner_index(task.owner()));
            invocation.arg(encode(task)?);
            invocation.arg(task.expires_ms().map(|at| at.to_string()).unwrap_or_default());
            invocation.arg(now_ms()).arg(max).arg(task.id()).arg(self.key("")).arg(ENDED_SCAN);
            Ok(self.redis.invoke::<i64>("keep a task", &invocation).await? == 1)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, task)| task)) })
    }

    fn modify<'a>(&'a self, id: &'a str, change: TaskChange<'a>) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            for _ in 0..MAX_ATTEMPTS {
                let Some((read, mut task)) = self.read(id).await? else { return Ok(None) };
                if !change(&mut task) {
                    return Ok(Some(task));
                }
                let mut invocation = SWAP.prepare_invoke();
                invocation.key(self.key(id)).arg(&read).arg(encode(&task)?);
                if self.redis.invoke::<i64>("change a task", &invocation).await? == 1 {
                    return Ok(Some(task));
                }
            }
            Err(StoreError(format!(
                "task {id} kept changing; the change was given up after {MAX_ATTEMPTS} attempts"
            )))
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        Box::pin(async move {
            let index = self.owner_index(owner);
            let mut listed = Vec::new();
            let mut from = after.map_or_else(|| "-".to_owned(), |after| format!("({after}"));
            while listed.len() < limit {
                let want = limit - listed.len();
                let mut range = redis::cmd("ZRANGEBYLEX");
                range.arg(&index).arg(&from).arg("+").arg("LIMIT").arg(0).arg(want);
                let ids: Vec<String> = self.redis.run("list tasks", &range).await?;
                let Some(last) = ids.last() else { break };
                from = format!("({last}");
                let mut read = redis::cmd("MGET");
                for id in &ids {
                    read.arg(self.key(id));
                }
                let values: Vec<Option<String>> = self.redis.run("list tasks", &read).await?;
                for (id, value) in ids.iter().zip(values) {
                    match value {
                        Some(value) => listed.push(serde_json::from_str(&value).map_err(|e| {
                            StoreError(format!("task {id} in Redis is not one this version reads: {e}"))
                        })?),
                        // Expired: its id leaves the owner's index.
                        None => {
                            let forget = redis::cmd("ZREM").arg(&index).arg(id).clone();
                            self.redis.run::<i64>("list tasks", &forget).await?;
                        }
                    }
                }
                if ids.len() < want {
                    break;
                }
            }
            Ok(listed)
        })
    }
}
