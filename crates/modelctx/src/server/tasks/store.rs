//! Where tasks are kept: behind [`TaskStore`], so that a task created on one instance is read,
//! answered and cancelled on any other; [`MemoryTaskStore`] is the default.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::clock::now_ms;
use super::record::TaskRecord;
use crate::store::StoreFuture;

/// A change to a task, applied by [`TaskStore::modify`]: it returns `false` when it changed
/// nothing (nothing is written then). It may run more than once (a shared store retries it on
/// a record changed meanwhile), so it must depend on the record alone.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// The tasks of every instance of a server. A store keeps a task at least until
/// [`TaskRecord::expires_ms`] and may forget it from then on.
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new task before its id is handed out (TX-05). With `max` tasks that have not
    /// expired kept already, the ended one that expires first (completed, failed or cancelled)
    /// is forgotten to make room — the spec lets a server shorten a task's TTL — and when every
    /// one is still working, `false`, keeping nothing.
    fn create<'a>(&'a self, task: &'a TaskRecord, max: usize) -> StoreFuture<'a, bool>;
    /// Task `id`, or `None` when there is none (or it expired).
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;
    /// Applies `change` to task `id` with no other change in between, and returns the task
    /// as it is after; `None` when there is no such task.
    fn modify<'a>(&'a self, id: &'a str, change: TaskChange<'a>) -> StoreFuture<'a, Option<TaskRecord>>;
    /// The tasks of `owner` whose ids sort after `after`, in id order, at most `limit`;
    /// expired ones left out (`tasks/list`).
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>>;
}

/// Tasks in this process's memory; expired ones are dropped as new ones are created.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, max: usize) -> StoreFuture<'a, bool> {
        let now = now_ms();
        let mut tasks = self.tasks();
        tasks.retain(|_, kept| !kept.expired(now));
        crate::store::shrink_when_sparse(&mut tasks);
        if tasks.len() >= max
            && let Some(ended) = tasks
                .values()
                .filter(|kept| kept.terminal())
                .min_by_key(|kept| kept.expires_ms().unwrap_or(u64::MAX))
                .map(|ended| ended.id().to_owned())
        {
            tasks.remove(&ended);
        }
        let kept = tasks.len() < max;
        if kept {
            tasks.insert(task.id().to_owned(), task.clone());
        }
        Box::pin(async move { Ok(kept) })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let task = self.tasks().get(id).filter(|task| !task.expired(now_ms())).cloned();
        Box::pin(async move { Ok(task) })
    }

    fn modify<'a>(&'a self, id: &'a str, change: TaskChange<'a>) -> StoreFuture<'a, Option<TaskRecord>> {
        let after = self.tasks().get_mut(id).filter(|task| !task.expired(now_ms())).map(|task| {
            change(task);
            task.clone()
        });
        Box::pin(async move { Ok(after) })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<TaskRecord>> {
        let now = now_ms();
        let mut owned: Vec<TaskRecord> = self
            .tasks()
            .values()
            .filter(|task| {
                task.owner() == owner && !task.expired(now) && after.is_none_or(|after| task.id() > after)
            })
            .cloned()
            .collect();
        owned.sort_by(|a, b| a.id().cmp(b.id()));
        owned.truncate(limit);
        Box::pin(async move { Ok(owned) })
    }
}
