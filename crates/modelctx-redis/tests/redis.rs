//! The Redis stores against a real `redis-server` on a loopback port with its own data
//! directory (the Debian package; `scripts/test.sh` installs it): the store contract every
//! implementation keeps, then what a deployment needs of Redis — the stores outlive a Redis
//! restart (AOF), operations fail fast and say so while it is down, and the bus comes back.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use modelctx::server::LegacySession;
use modelctx::server::tasks::{TaskRecord, TaskStore as _};
use modelctx::store::{Bus, contract};
use modelctx::transport::http::SessionStore;
use modelctx_redis::{Redis, RedisEventLimits, RedisOptions, StateKeyRotation};

/// A `redis-server` of the test's own, killed when dropped.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start(dir: &Path, port: u16) -> Self {
        let binary = std::env::var("MODELCTX_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let child = Command::new(&binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "yes"])
            .args(["--appendfsync", "always", "--protected-mode", "yes"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{binary} could not start ({e}): install it (apt-get install redis-server) or run scripts/test.sh")
            });
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen on {port} within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Options with a namespace of their own, so runs never see each other's keys.
fn fresh_namespace() -> RedisOptions {
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    let namespace = format!("test-{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
    RedisOptions { namespace, ..RedisOptions::default() }
}

fn session() -> LegacySession {
    LegacySession {
        version: modelctx::protocol::ProtocolVersion::V2025_11_25,
        client: std::sync::Arc::new(modelctx::protocol::era::DeclaredClient {
            capabilities: Default::default(),
            info: Some(modelctx::protocol::types::Implementation::new("t", "1")),
        }),
        log_level: None,
        subscriptions: Default::default(),
        initialized: true,
        owner: None,
    }
}

#[tokio::test]
async fn the_redis_stores_keep_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisServer::start(dir.path(), free_port());
    let redis = Redis::connect(&server.url(), fresh_namespace()).await.unwrap();
    contract::session_store(&redis.session_store(Duration::from_secs(60), 16)).await;
    contract::event_store(&redis.event_store(RedisEventLimits::default())).await;
    contract::task_store(&redis.task_store()).await;
    contract::once_store(&redis.once_store()).await;
    let other = Redis::connect(&server.url(), redis.options().clone()).await.unwrap();
    contract::bus(&redis.bus(), &other.bus()).await;
}

#[tokio::test]
async fn redis_sessions_and_event_logs_stay_within_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisServer::start(dir.path(), free_port());
    let redis = Redis::connect(&server.url(), fresh_namespace()).await.unwrap();
    let sessions = redis.session_store(Duration::from_secs(60), 2);
    sessions.create("old", session()).await.unwrap();
    sessions.create("used", session()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(sessions.get("old").await.unwrap().is_some(), "used just now");
    sessions.create("new", session()).await.unwrap();
    assert!(sessions.get("used").await.unwrap().is_none(), "the least recently used made room");
    assert!(sessions.get("old").await.unwrap().is_some() && sessions.get("new").await.unwrap().is_some());
    let brief = redis.session_store(Duration::from_millis(200), 2);
    brief.create("brief", session()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(brief.get("brief").await.unwrap().is_none(), "expired when idle");

    use modelctx::transport::http::EventStore as _;
    let limits =
        RedisEventLimits { per_stream: 3, stream_bytes: 1000, streams: 2, ..RedisEventLimits::default() };
    let events = redis.event_store(limits);
    for n in 1..=5 {
        events.append("s", 1, n, format!("m{n}")).await.unwrap();
    }
    let kept: Vec<u64> =
        events.replay("s", 1, 0).await.unwrap().unwrap().events.iter().map(|(n, _)| *n).collect();
    assert_eq!(kept, [3, 4, 5], "the newest events of a stream");
    for n in 6..=8 {
        events.append("s", 1, n, "x".repeat(400)).await.unwrap();
    }
    let kept: Vec<u64> =
        events.replay("s", 1, 0).await.unwrap().unwrap().events.iter().map(|(n, _)| *n).collect();
    assert_eq!(kept, [7, 8], "the newest within the stream's bytes");
    events.append("s", 2, 1, "two".into()).await.unwrap();
    events.append("s", 3, 1, "three".into()).await.unwrap();
    assert_eq!(events.replay("s", 1, 0).await.unwrap(), None, "the least recently written stream made room");
    assert!(events.replay("s", 3, 0).await.unwrap().is_some());

    // A session evicted to make room takes its event logs with it (they stayed for their TTL).
    let bounded = redis.session_store(Duration::from_secs(60), 1);
    bounded.create("evicted", session()).await.unwrap();
    events.append("evicted", 1, 1, "logged".into()).await.unwrap();
    events.append("evicted", 2, 1, "logged".into()).await.unwrap();
    events.finish("evicted", 2).await.unwrap();
    bounded.create("newer", session()).await.unwrap();
    assert!(bounded.get("evicted").await.unwrap().is_none());
    for stream in [1, 2] {
        assert_eq!(events.replay("evicted", stream, 0).await.unwrap(), None, "stream {stream} forgotten");
    }
}

/// An owner's index of task ids expires with its last task, and sheds the ids of expired
/// tasks once it holds more than can be alive (it was kept for ever: only `tasks/list`
/// trimmed it).
#[tokio::test]
async fn an_owners_task_index_expires_with_its_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisServer::start(dir.path(), free_port());
    let options = fresh_namespace();
    let redis = Redis::connect(&server.url(), options.clone()).await.unwrap();
    let tasks = redis.task_store();
    let mut raw =
        redis::Client::open(server.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let index = format!("{}:tasks-of:p:alice", options.namespace);
    let task = |n: u32, ttl_ms: u64| {
        TaskRecord::new(format!("t{n}"), Some("alice".into()), Some(ttl_ms), 500, 10_000)
    };
    for n in 0..2 {
        assert!(tasks.create(&task(n, 200), 2).await.unwrap());
    }
    let left: i64 = redis::cmd("PTTL").arg(&index).query_async(&mut raw).await.unwrap();
    assert!(left > 0 && left <= 200, "the index expires with its tasks: {left} ms left");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(tasks.create(&task(2, 60_000), 2).await.unwrap(), "room again: the others expired");
    let ids: Vec<String> =
        redis::cmd("ZRANGE").arg(&index).arg(0).arg(-1).query_async(&mut raw).await.unwrap();
    assert_eq!(ids, ["t2"], "the expired tasks' ids were shed");
    let left: i64 = redis::cmd("PTTL").arg(&index).query_async(&mut raw).await.unwrap();
    assert!(left > 200, "extended to the newest task's expiry: {left} ms left");
}

/// With persistence on, a Redis restart loses no stored session or task; while Redis is down
/// an operation fails at once with an error that says so; after it the same connection
/// serves again and the bus delivers again, with no restart of the instance.
#[tokio::test]
async fn a_redis_restart_loses_nothing_stored_and_the_gap_fails_fast() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let server = RedisServer::start(dir.path(), port);
    let redis = Redis::connect(&server.url(), fresh_namespace()).await.unwrap();
    let sessions = redis.session_store(Duration::from_secs(60), 16);
    sessions.create("kept", session()).await.unwrap();
    let tasks = redis.task_store();
    let task = TaskRecord::new("kept-task".into(), None, Some(600_000), 500, 10_000);
    assert!(tasks.create(&task, 16).await.unwrap());
    let keys = modelctx_redis::state_keys(&redis, StateKeyRotation::default()).await.unwrap();
    let bus = redis.bus();
    let mut heard = bus.subscribe("restart").await.unwrap();

    server.stop();
    let started = Instant::now();
    let failed = sessions.get("kept").await.expect_err("Redis is down");
    assert!(started.elapsed() < Duration::from_secs(3), "failed fast: {:?}", started.elapsed());
    assert!(failed.0.contains("Redis"), "the error names Redis: {failed}");

    let server = RedisServer::start(dir.path(), port);
    let back = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            if let Ok(found) = sessions.get("kept").await {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the connection came back within 15 s");
    assert!(back.is_some(), "the session outlived the restart");
    assert_eq!(tasks.get("kept-task").await.unwrap().as_ref(), Some(&task), "the task outlived the restart");
    let again = modelctx_redis::state_keys(&redis, StateKeyRotation::default()).await.unwrap();
    assert_eq!(again.current_id(), keys.current_id(), "the same shared key after the restart");
    let delivered = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            bus.publish("restart", "again".into()).await.ok();
            if let Ok(Some(message)) = tokio::time::timeout(Duration::from_millis(200), heard.next()).await {
                return message;
            }
        }
    })
    .await
    .expect("the bus delivers again after the restart");
    assert_eq!(delivered, "again");
    drop(server);
}
