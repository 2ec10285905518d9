//! The contract every store implementation keeps, as tests to run against it: the in-memory
//! stores run them in this crate, and a shared store (Redis, a database) runs the same ones
//! against its own. Each function panics, saying what broke, when the store breaks the
//! contract; ids are random, so runs against a shared server do not collide.
//!
//! Enabled by the `store-contract` feature, for the test suites of store crates.

use std::time::Duration;

use futures::StreamExt as _;
use modelctx_protocol::Method;
use serde_json::json;

use super::{Bus, OnceStore};
use crate::server::LegacySession;
use crate::server::tasks::{TaskRecord, TaskStore};
use crate::transport::http::{EventStore, SessionStore};

fn unique(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the system random source works");
    format!("{prefix}-{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

fn session(level: Option<&str>) -> LegacySession {
    LegacySession {
        version: crate::protocol::ProtocolVersion::V2025_11_25,
        client: std::sync::Arc::new(crate::protocol::era::DeclaredClient {
            capabilities: Default::default(),
            info: Some(crate::protocol::types::Implementation::new("contract", "1")),
        }),
        log_level: level.map(|level| serde_json::from_value(json!(level)).expect("a log level")),
        subscriptions: ["file:///watched".to_owned()].into_iter().collect(),
        initialized: true,
        owner: Some("alice".into()),
    }
}

/// A [`SessionStore`]: a session reads back as it was stored and as it was updated; an update
/// from a copy that is no longer the stored one changes nothing (compare-and-set); an update
/// of a session that is gone fails; a removed session is unknown.
pub async fn session_store(store: &dyn SessionStore) {
    let id = unique("session");
    assert_eq!(store.get(&id).await.unwrap(), None, "an unknown session is none");
    store.create(&id, session(None)).await.expect("a new session is kept");
    assert_eq!(store.get(&id).await.unwrap(), Some(session(None)), "a session reads back as stored");
    let read = store.get(&id).await.unwrap().expect("the session");
    assert!(store.update(&id, &read, session(Some("debug"))).await.expect("an update"), "an update is kept");
    assert_eq!(store.get(&id).await.unwrap(), Some(session(Some("debug"))), "the update reads back");
    let stale = store.update(&id, &read, session(Some("error"))).await.expect("an update");
    assert!(!stale, "an update from a copy changed meanwhile is refused");
    assert_eq!(store.get(&id).await.unwrap(), Some(session(Some("debug"))), "and changes nothing");
    store.remove(&id).await.unwrap();
    assert_eq!(store.get(&id).await.unwrap(), None, "a removed session is unknown");
    let debug = session(Some("debug"));
    assert!(store.update(&id, &debug, session(None)).await.is_err(), "a removed session is not revived");
}

/// An [`EventStore`] (HTTP-54, HTTP-55): a replay holds exactly what one stream logged after
/// the event asked for, in order; a finished stream says so; another stream's or session's
/// events never show; a forgotten session's streams are unknown.
pub async fn event_store(store: &dyn EventStore) {
    let (session, other) = (unique("events"), unique("events"));
    for n in 1..=3 {
        store.append(&session, 7, n, format!("m{n}")).await.unwrap();
    }
    store.append(&session, 8, 1, "other stream".into()).await.unwrap();
    store.append(&other, 7, 1, "other session".into()).await.unwrap();
    let replay = store.replay(&session, 7, 1).await.unwrap().expect("a known stream");
    assert_eq!(replay.events, vec![(2, "m2".into()), (3, "m3".into())], "only what came after, in order");
    assert!(!replay.finished, "not finished yet");
    assert_eq!(store.replay(&session, 7, 3).await.unwrap().map(|r| r.events.len()), Some(0));
    store.finish(&session, 7).await.unwrap();
    assert!(store.replay(&session, 7, 3).await.unwrap().expect("still known").finished);
    assert_eq!(store.replay(&session, 9, 0).await.unwrap(), None, "an unknown stream");
    store.forget(&session).await.unwrap();
    assert_eq!(store.replay(&session, 8, 0).await.unwrap(), None, "a forgotten session's stream");
    assert_eq!(store.replay(&other, 7, 0).await.unwrap().expect("untouched").events.len(), 1);
    store.forget(&other).await.unwrap();
}

/// A [`TaskStore`], which must hold no other task (a fresh one, or a fresh namespace): a task
/// reads back as created; `max` bounds the tasks kept, and at it the ended task that expires
/// first makes room (none while every task works); concurrent changes are all applied
/// (none lost to another); an owner lists its own tasks only, in id order; a task is gone (and
/// unlisted) once it expired, and never before.
pub async fn task_store(store: &dyn TaskStore) {
    let task = TaskRecord::new(unique("task"), Some("alice".into()), Some(60_000), 500, 10_000);
    assert!(store.create(&task, 2).await.unwrap(), "room for a task");
    assert_eq!(store.get(task.id()).await.unwrap().as_ref(), Some(&task), "a task reads back as created");
    let second = TaskRecord::new(unique("task"), None, Some(60_000), 500, 10_000);
    assert!(store.create(&second, 2).await.unwrap());
    let third = TaskRecord::new(unique("task"), None, Some(120_000), 500, 10_000);
    assert!(!store.create(&third, 2).await.unwrap(), "no room past max");
    assert_eq!(store.get(third.id()).await.unwrap(), None, "a refused task is not kept");

    // Twenty questions asked at once: each gets its own key, none is lost.
    let id = task.id();
    let asks = (0..20).map(|_| {
        let ask = |task: &mut TaskRecord| task.ask("elicit", None, json!({"method": Method::Elicit})).is_ok();
        async move { store.modify(id, &ask).await.unwrap().expect("the task is there") }
    });
    futures::future::join_all(asks).await;
    let asked = store.get(task.id()).await.unwrap().expect("the task is there");
    let questions = asked.detailed()["inputRequests"].as_object().map_or(0, |q| q.len());
    assert_eq!(questions, 20, "every concurrent change was applied");
    let unchanged = store.modify(task.id(), &|_: &mut TaskRecord| false).await.unwrap();
    assert_eq!(unchanged.as_ref(), Some(&asked), "a change that changes nothing writes nothing");
    assert_eq!(store.modify(&unique("task"), &TaskRecord::cancel).await.unwrap(), None, "no such task");

    let listed = store.list(Some("alice"), None, 10).await.unwrap();
    assert_eq!(listed.iter().map(TaskRecord::id).collect::<Vec<_>>(), [task.id()], "only the owner's tasks");
    assert_eq!(store.list(None, None, 10).await.unwrap().len(), 1, "the task with no owner");
    assert!(store.list(Some("bob"), None, 10).await.unwrap().is_empty());
    assert!(store.list(Some("alice"), Some(task.id()), 10).await.unwrap().is_empty(), "after the last id");

    let brief = TaskRecord::new(unique("task"), None, Some(300), 500, 10_000);
    assert!(store.create(&brief, 3).await.unwrap());
    assert!(store.get(brief.id()).await.unwrap().is_some(), "not expired yet");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(store.get(brief.id()).await.unwrap(), None, "gone once expired");
    let unowned = store.list(None, None, 10).await.unwrap();
    assert_eq!(
        unowned.iter().map(TaskRecord::id).collect::<Vec<_>>(),
        [second.id()],
        "an expired task is not listed"
    );
    assert!(store.create(&third, 3).await.unwrap(), "an expired task makes room");

    // At the bound, the ended task that expires first makes room; a working one never does.
    let fourth = TaskRecord::new(unique("task"), None, Some(60_000), 500, 10_000);
    assert!(!store.create(&fourth, 3).await.unwrap(), "no room while every task works");
    store.modify(third.id(), &TaskRecord::cancel).await.unwrap().expect("the task is there");
    store.modify(second.id(), &TaskRecord::cancel).await.unwrap().expect("the task is there");
    assert!(store.create(&fourth, 3).await.unwrap(), "an ended task makes room");
    assert_eq!(store.get(second.id()).await.unwrap(), None, "the ended task that expired first is gone");
    assert!(store.get(third.id()).await.unwrap().is_some(), "one ended task made room, not two");
    assert!(store.get(task.id()).await.unwrap().is_some(), "a working task stays");
}

/// A [`Bus`] seen from two instances: a message published on one reaches the subscribers of
/// its topic on the other (and on itself), not those of another topic.
pub async fn bus(one: &dyn Bus, other: &dyn Bus) {
    let (topic, elsewhere) = (unique("topic"), unique("topic"));
    let mut heard = other.subscribe(&topic).await.expect("a subscription");
    let mut own = one.subscribe(&topic).await.expect("a subscription");
    let mut unrelated = other.subscribe(&elsewhere).await.expect("a subscription");
    // A subscription may take effect a moment after it is made: publish until heard.
    let first = async {
        loop {
            one.publish(&topic, "hello".into()).await.expect("published");
            if let Ok(Some(message)) = tokio::time::timeout(Duration::from_millis(200), heard.next()).await {
                break message;
            }
        }
    };
    let message = tokio::time::timeout(Duration::from_secs(10), first).await.expect("heard within 10 s");
    assert_eq!(message, "hello");
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(5), own.next()).await.ok().flatten().as_deref(),
        Some("hello")
    );
    one.publish(&topic, "second".into()).await.unwrap();
    let next = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match heard.next().await.as_deref() {
                Some("hello") => continue,
                other => break other.map(str::to_owned),
            }
        }
    });
    assert_eq!(next.await.ok().flatten().as_deref(), Some("second"), "messages keep coming, in order");
    let stray = tokio::time::timeout(Duration::from_millis(200), unrelated.next()).await;
    assert!(stray.is_err(), "another topic's subscriber hears nothing");
}

/// A [`OnceStore`]: a value is claimed once within its lifetime, and may be again after it.
pub async fn once_store(store: &dyn OnceStore) {
    let (value, other) = (unique("once"), unique("once"));
    let lifetime = Duration::from_millis(300);
    assert!(store.claim(&value, lifetime).await.unwrap(), "the first claim");
    assert!(!store.claim(&value, lifetime).await.unwrap(), "a second claim is refused");
    assert!(store.claim(&other, lifetime).await.unwrap(), "another value is its own");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(store.claim(&value, lifetime).await.unwrap(), "claimable again after its lifetime");
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::server::tasks::MemoryTaskStore;
    use crate::store::{LocalBus, MemoryOnceStore};
    use crate::transport::http::{EventLimits, MemoryEventStore, MemorySessionStore};

    #[tokio::test]
    async fn the_memory_stores_keep_the_contract() {
        super::session_store(&MemorySessionStore::new(Duration::from_secs(60), 16)).await;
        super::event_store(&MemoryEventStore::new(EventLimits::default())).await;
        super::task_store(&MemoryTaskStore::new()).await;
        super::once_store(&MemoryOnceStore::default()).await;
        let bus = LocalBus::new();
        super::bus(&bus, &bus.clone()).await;
    }
}
