//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28), server side: a
//! `tools/call` from a client that declared the extension may be answered with a task
//! (`resultType: "task"`) while the tool runs on; the client polls `tasks/get`, answers the
//! task's questions with `tasks/update` and may `tasks/cancel` it.
//!
//! A tool opts in with [`ToolDef::tasks`](super::ToolDef::tasks): `Optional` runs it as a task
//! for clients that declared the extension and plainly for the others; `Required` refuses the
//! others with `-32021`. The task starts before the handler runs, unless the tool is
//! [`ToolDef::task_starts_in_handler`](super::ToolDef::task_starts_in_handler): then the handler
//! runs as a plain call (its questions are multi-round-trip rounds, TX-06) until it calls
//! [`RequestContext::continue_as_task`](super::RequestContext::continue_as_task).
//!
//! Inside a task the handler's questions (`ctx.elicit`, `ctx.sample`, `ctx.list_roots`)
//! become the task's `inputRequests`, each under a key used once in the task's life (TX-10),
//! and its progress and log messages are dropped (TX-16: nothing carries them). A tool result
//! with `isError` completes the task; a JSON-RPC error fails it (TX-19). Tasks are kept in the
//! server's [`TaskStore`] (shared by instances), bound to the principal that created them
//! (TX-20), for their TTL; the work runs on the instance that created the task, which renews
//! a lease on it, so a task whose instance stopped is read as failed, never lost.

pub(crate) mod clock;
mod legacy;
mod record;
mod run;
mod store;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use modelctx_protocol::jsonrpc::ErrorObject;
use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::ServerEvent;
use super::announce::Announcer;
use crate::store::StoreError;
use clock::now_ms;
pub(crate) use legacy::{is_legacy_task_method, legacy_tasks_capability};
pub use record::TaskRecord;
pub(crate) use run::is_task_method;
pub use store::{MemoryTaskStore, TaskChange, TaskStore};

/// Whether a tool runs as a task for clients that declared the extension.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task for clients that declared the extension, a plain call for the others.
    Optional,
    /// Only as a task: a client that did not declare the extension is answered `-32021`.
    Required,
}

/// A 2025-11-25 listing's `execution.taskSupport`, as a definition's (a gateway serves its
/// backends' tools as they run there).
impl From<modelctx_protocol::v2025::TaskSupport> for TaskSupport {
    fn from(listed: modelctx_protocol::v2025::TaskSupport) -> Self {
        use modelctx_protocol::v2025::TaskSupport as Listed;
        match listed {
            Listed::Forbidden => Self::Forbidden,
            Listed::Optional => Self::Optional,
            Listed::Required => Self::Required,
        }
    }
}

/// The bounds of a server's tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskOptions {
    /// How long a task is kept after it is created (`ttlMs`); `None` for as long as the
    /// server runs. Default 1 hour.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients (`pollIntervalMs`). Default 500 ms.
    pub poll_interval: Duration,
    /// Tasks kept at once. At the bound, the ended task that expires first is forgotten to make
    /// room (its TTL cut short, as the spec allows); when every kept task is still working, a
    /// task-creating call is refused with `-32603` saying the server is busy. Default 1024.
    pub max_tasks: usize,
    /// How long a task's work may run before it fails with `-32603`. Default 1 hour.
    pub max_duration: Duration,
    /// How long the instance running a task vouches for it without renewing (it renews a
    /// third of the way): a task whose instance stopped fails this long after, at the latest,
    /// with a message saying so. Default 10 s.
    pub lease: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_tasks: 1024,
            max_duration: Duration::from_secs(3600),
            lease: Duration::from_secs(10),
        }
    }
}

/// A task whose work runs on this instance: what stops it, and what wakes it when the task
/// changed on any instance (an answer arrived, it was cancelled).
pub(crate) struct Running {
    pub(crate) id: String,
    /// Tripped when the task ends before its work does: the work is dropped.
    pub(crate) cancelled: CancellationToken,
    changes: watch::Sender<u64>,
}

impl Running {
    /// Wakes on every change of the task from now on.
    pub(crate) fn changes(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn poke(&self) {
        self.changes.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// The `-32602` of a task that is not there (or not the caller's: the same answer, so that
/// a task's existence does not leak).
fn not_found(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Failed to retrieve task {id:?}: Task not found (or expired)"))
}

fn store_failed(error: &StoreError) -> ErrorObject {
    ErrorObject::internal(format!("the task store failed: {error}"))
}

type RunningMap = Mutex<HashMap<String, Arc<Running>>>;

fn lock(running: &RunningMap) -> MutexGuard<'_, HashMap<String, Arc<Running>>> {
    running.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tasks of one server: the store that keeps them, and the work running here.
pub(crate) struct Tasks {
    options: TaskOptions,
    store: Arc<dyn TaskStore>,
    running: Arc<RunningMap>,
    /// Whether the changes of tasks are watched for the work running here (started once).
    watching: AtomicBool,
}

impl Tasks {
    pub(crate) fn new(options: TaskOptions, store: Arc<dyn TaskStore>) -> Self {
        Self { options, store, running: Arc::default(), watching: AtomicBool::new(false) }
    }

    pub(crate) fn options(&self) -> TaskOptions {
        self.options
    }

    fn lease_until(&self) -> u64 {
        now_ms() + self.options.lease.as_millis() as u64
    }

    /// A new task of `owner`, kept in the store before its id is returned (TX-05: a
    /// `tasks/get` right after the answer finds it, on any instance); a full store is
    /// `-32603`. Its work runs here.
    pub(crate) async fn create(
        &self,
        owner: Option<String>,
        announcer: &Announcer,
    ) -> Result<(TaskRecord, Arc<Running>), ErrorObject> {
        let ttl_ms = self.options.ttl.map(|ttl| ttl.as_millis() as u64);
        self.create_with_ttl(owner, ttl_ms, announcer).await
    }

    /// Like [`Tasks::create`], kept `ttl_ms` (`None`: as long as the server runs).
    pub(crate) async fn create_with_ttl(
        &self,
        owner: Option<String>,
        ttl_ms: Option<u64>,
        announcer: &Announcer,
    ) -> Result<(TaskRecord, Arc<Running>), ErrorObject> {
        self.watch(announcer);
        let mut id = [0u8; 16];
        getrandom::fill(&mut id)
            .map_err(|e| ErrorObject::internal(format!("no randomness for a task id: {e}")))?;
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let poll_ms = self.options.poll_interval.as_millis() as u64;
        let record =
            TaskRecord::new(id.clone(), owner, ttl_ms, poll_ms, self.options.lease.as_millis() as u64);
        if !self.store.create(&record, self.options.max_tasks).await.map_err(|e| store_failed(&e))? {
            return Err(ErrorObject::internal(format!(
                "server busy: {} tasks are working already; try again later",
                self.options.max_tasks
            )));
        }
        let running = Arc::new(Running {
            id: id.clone(),
            cancelled: CancellationToken::new(),
            changes: watch::channel(0).0,
        });
        lock(&self.running).insert(id, running.clone());
        Ok((record, running))
    }

    /// The tasks of `owner` after the id `after`, at most `limit` (`tasks/list`).
    pub(crate) async fn list(
        &self,
        owner: Option<&str>,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<TaskRecord>, ErrorObject> {
        self.store.list(owner, after, limit).await.map_err(|e| store_failed(&e))
    }

    /// The work of task `id` ended here.
    pub(crate) fn ended(&self, id: &str) {
        lock(&self.running).remove(id);
    }

    /// Task `id` of `owner`, or `-32602` when there is none (or it expired, or is another
    /// principal's). A task whose instance stopped is failed first.
    pub(crate) async fn get(
        &self,
        id: &str,
        owner: Option<&str>,
        announcer: &Announcer,
    ) -> Result<TaskRecord, ErrorObject> {
        let task = self.store.get(id).await.map_err(|e| store_failed(&e))?;
        let Some(task) = task.filter(|task| task.owned_by(owner)) else { return Err(not_found(id)) };
        if !task.lapsed(now_ms()) {
            return Ok(task);
        }
        tracing::warn!(task = id, "the instance running this task stopped; the task has failed");
        let failed = self.change(id, &TaskRecord::fail_lapsed, announcer).await?;
        failed.ok_or_else(|| not_found(id))
    }

    /// Applies `change` to task `id` in the store and, when it changed something, tells every
    /// instance (the work waiting for it, `notifications/tasks` listeners). `None` when the
    /// task is gone.
    pub(crate) async fn change(
        &self,
        id: &str,
        change: TaskChange<'_>,
        announcer: &Announcer,
    ) -> Result<Option<TaskRecord>, ErrorObject> {
        let changed = AtomicBool::new(false);
        let tracked = |task: &mut TaskRecord| {
            let did = change(task);
            changed.store(did, Ordering::Relaxed);
            did
        };
        let after = self.store.modify(id, &tracked).await.map_err(|e| store_failed(&e))?;
        if changed.load(Ordering::Relaxed) {
            announcer.announce(ServerEvent::TaskChanged(id.to_owned()));
        }
        Ok(after)
    }

    /// `tasks/cancel`: the task is cancelled in the store, and its work dropped wherever it
    /// runs (here at once).
    pub(crate) async fn cancel(&self, id: &str, announcer: &Announcer) -> Result<(), ErrorObject> {
        self.change(id, &TaskRecord::cancel, announcer).await?;
        if let Some(running) = lock(&self.running).get(id) {
            running.cancelled.cancel();
        }
        Ok(())
    }

    /// A question of the work of `running`, among the task's `inputRequests` until a
    /// `tasks/update` on any instance answers it; returns the answer.
    pub(crate) async fn ask(
        &self,
        running: &Running,
        kind: &str,
        key: Option<&str>,
        request: Value,
        announcer: &Announcer,
    ) -> Result<Value, super::InputError> {
        use super::InputError;
        let mut changes = running.changes();
        let chosen = Mutex::new(Err(String::new()));
        let ask = |task: &mut TaskRecord| {
            let asked = task.ask(kind, key, request.clone());
            let did = asked.is_ok();
            *chosen.lock().unwrap_or_else(PoisonError::into_inner) = asked;
            did
        };
        let asked = self.change(&running.id, &ask, announcer).await;
        asked.map_err(|e| InputError::Store(e.message))?.ok_or(InputError::TaskEnded)?;
        let key =
            chosen.into_inner().unwrap_or_else(PoisonError::into_inner).map_err(InputError::Malformed)?;
        loop {
            let answer = Mutex::new(None);
            let take = |task: &mut TaskRecord| {
                let taken = task.take_answer(&key);
                let did = taken.is_some();
                *answer.lock().unwrap_or_else(PoisonError::into_inner) =
                    taken.map(Ok).or_else(|| task.terminal().then_some(Err(InputError::TaskEnded)));
                did
            };
            let taken = self.store.modify(&running.id, &take).await;
            taken.map_err(|e| InputError::Store(e.to_string()))?.ok_or(InputError::TaskEnded)?;
            if let Some(answer) = answer.into_inner().unwrap_or_else(PoisonError::into_inner) {
                return answer;
            }
            tokio::select! {
                changed = changes.changed() => changed.map_err(|_| InputError::TaskEnded)?,
                () = running.cancelled.cancelled() => return Err(InputError::TaskEnded),
            }
        }
    }

    /// Wakes the work of the tasks running here when their task changes on any instance;
    /// started once, it stops with the server.
    fn watch(&self, announcer: &Announcer) {
        if self.watching.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.watching.store(false, Ordering::Release);
            return;
        };
        let (mut events, running) = (announcer.subscribe(), Arc::downgrade(&self.running));
        runtime.spawn(async move {
            loop {
                let event = events.recv().await;
                let Some(running) = Weak::upgrade(&running) else { return };
                let running = lock(&running);
                match event {
                    Ok(ServerEvent::TaskChanged(id)) => running.get(&id).into_iter().for_each(|r| r.poke()),
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => running.values().for_each(|r| r.poke()),
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tx_20_a_task_is_its_owners_and_one_whose_instance_stopped_reads_as_failed() {
        let announcer = Announcer::new(None, "i".into());
        let options = TaskOptions { lease: Duration::from_millis(20), ..TaskOptions::default() };
        let tasks = Tasks::new(options, Arc::new(MemoryTaskStore::new()));
        let (task, _running) = tasks.create(Some("alice".into()), &announcer).await.unwrap();
        assert!(tasks.get(task.id(), Some("bob"), &announcer).await.is_err(), "another's task is not found");
        assert!(tasks.get(task.id(), None, &announcer).await.is_err());
        let seen = tasks.get(task.id(), Some("alice"), &announcer).await.unwrap();
        assert_eq!(seen.detailed()["status"], "working");
        // Nobody renews the lease here: the instance is as good as gone.
        tokio::time::sleep(Duration::from_millis(40)).await;
        let failed = tasks.get(task.id(), Some("alice"), &announcer).await.unwrap();
        assert_eq!(failed.detailed()["status"], "failed");
        assert!(failed.detailed()["error"]["message"].as_str().unwrap().ends_with(record::LAPSED));
    }
}
