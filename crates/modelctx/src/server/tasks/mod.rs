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
//! with `isError` completes the task; a JSON-RPC error fails it (TX-19). Tasks are kept per
//! server, bound to the principal that created them (TX-20), for their TTL.

mod clock;
mod run;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::tasks::Task;
use modelctx_protocol::types::TaskStatus;
use modelctx_protocol::v2026::InputRequest;
use serde_json::{Value, json};

use super::ServerEvent;
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use clock::now_ms;
pub(crate) use run::is_task_method;

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

/// The bounds of a server's tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskOptions {
    /// How long a task is kept after it is created (`ttlMs`); `None` for as long as the
    /// server runs. Default 1 hour.
    pub ttl: Option<Duration>,
    /// The polling interval suggested to clients (`pollIntervalMs`). Default 500 ms.
    pub poll_interval: Duration,
    /// Tasks kept at once; a task-creating call beyond that is refused with `-32603` saying
    /// the server is busy. Default 1024.
    pub max_tasks: usize,
    /// How long a task's work may run before it fails with `-32603`. Default 1 hour.
    pub max_duration: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Some(Duration::from_secs(3600)),
            poll_interval: Duration::from_millis(500),
            max_tasks: 1024,
            max_duration: Duration::from_secs(3600),
        }
    }
}

/// A question of a task, until the client answers it.
struct Outstanding {
    request: Value,
    answer: Option<oneshot::Sender<Value>>,
}

/// What a task is now.
struct TaskState {
    status: TaskStatus,
    message: Option<String>,
    updated_ms: u64,
    result: Option<JsonObject>,
    error: Option<ErrorObject>,
    outstanding: BTreeMap<String, Outstanding>,
    /// Automatic keys handed out so far, per kind (`elicit-0`, `elicit-1`, …).
    counters: HashMap<String, u32>,
    /// Every key used in the task's life, automatic or chosen, so that none is used twice
    /// (TX-10).
    used: HashSet<String>,
}

/// One task.
pub(crate) struct TaskEntry {
    id: String,
    owner: Option<String>,
    created_ms: u64,
    ttl_ms: Option<u64>,
    poll_ms: u64,
    /// Tripped by `tasks/cancel`: the work is dropped.
    pub(crate) cancelled: CancellationToken,
    state: Mutex<TaskState>,
    /// The server's events: every change is told, for `notifications/tasks`.
    events: broadcast::Sender<ServerEvent>,
}

/// The `-32602` of a task that is not there (or not the caller's: the same answer, so that
/// a task's existence does not leak).
fn not_found(id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Failed to retrieve task {id:?}: Task not found"))
}

impl TaskEntry {
    fn state(&self) -> MutexGuard<'_, TaskState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Tells listeners the task changed (no listener is no error).
    fn changed(&self) {
        let _ = self.events.send(ServerEvent::TaskChanged(self.id.clone()));
    }

    /// Whether `owner` may see the task.
    pub(crate) fn owned_by(&self, owner: Option<&str>) -> bool {
        self.owner.as_deref() == owner
    }

    /// The task as `notifications/tasks` carries it: the `DetailedTask` of `tasks/get`,
    /// without `resultType` (a notification is no result).
    pub(crate) fn notification(&self) -> JsonObject {
        let mut detailed = self.detailed();
        detailed.remove("resultType");
        detailed
    }

    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    fn expired(&self, now: u64) -> bool {
        self.ttl_ms.is_some_and(|ttl| now >= self.created_ms + ttl)
    }

    fn base(&self, state: &TaskState) -> JsonObject {
        let mut task = Task::new(
            &self.id,
            state.status,
            clock::rfc3339(self.created_ms),
            clock::rfc3339(state.updated_ms),
        );
        task.status_message = state.message.clone();
        task.ttl_ms = self.ttl_ms;
        task.poll_interval_ms = Some(self.poll_ms);
        match serde_json::to_value(task) {
            Ok(Value::Object(object)) => object,
            _ => JsonObject::new(),
        }
    }

    /// The `CreateTaskResult`: `resultType: "task"` and the task's own members only.
    pub(crate) fn created(&self) -> JsonObject {
        let mut object = self.base(&self.state());
        object.insert("resultType".into(), json!("task"));
        object
    }

    /// The `DetailedTask` of `tasks/get` (`resultType: "complete"`): what the status carries
    /// — the outstanding questions, the result or the error (TX-08).
    pub(crate) fn detailed(&self) -> JsonObject {
        let state = self.state();
        let mut object = self.base(&state);
        object.insert("resultType".into(), json!("complete"));
        match state.status {
            TaskStatus::InputRequired => {
                let requests: JsonObject = state
                    .outstanding
                    .iter()
                    .map(|(key, asked)| (key.clone(), asked.request.clone()))
                    .collect();
                object.insert("inputRequests".into(), Value::Object(requests));
            }
            TaskStatus::Completed => {
                object.insert("result".into(), Value::Object(state.result.clone().unwrap_or_default()));
            }
            TaskStatus::Failed => {
                let error = state.error.clone().unwrap_or_else(|| ErrorObject::internal("the task failed"));
                object.insert("error".into(), serde_json::to_value(error).unwrap_or_default());
            }
            _ => {}
        }
        object
    }

    fn terminal(status: TaskStatus) -> bool {
        matches!(status, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// Records the work's outcome, unless the task ended already (cancelled: its late
    /// outcome is dropped).
    pub(crate) fn finish(&self, outcome: Result<JsonObject, ErrorObject>) {
        let mut state = self.state();
        if Self::terminal(state.status) {
            return;
        }
        match outcome {
            Ok(result) => {
                state.status = TaskStatus::Completed;
                state.result = Some(result);
            }
            Err(error) => {
                state.status = TaskStatus::Failed;
                state.message = Some(error.message.clone());
                state.error = Some(error);
            }
        }
        state.outstanding.clear();
        state.updated_ms = now_ms();
        drop(state);
        self.changed();
    }

    /// `tasks/cancel`: a task still running is cancelled at once and its work dropped; an
    /// ended one stays as it is (the ack is the same).
    pub(crate) fn cancel(&self) {
        let mut state = self.state();
        if !Self::terminal(state.status) {
            state.status = TaskStatus::Cancelled;
            state.message = Some("cancelled by the client".into());
            state.outstanding.clear();
            state.updated_ms = now_ms();
            drop(state);
            self.changed();
        }
        self.cancelled.cancel();
    }

    /// A question of the task's work: registered under a fresh key (or `key`, when it was
    /// never used), the task `input_required` until every question is answered. The answer
    /// arrives through [`TaskEntry::update`].
    pub(crate) fn ask(
        &self,
        kind: &str,
        key: Option<&str>,
        request: InputRequest,
    ) -> Result<oneshot::Receiver<Value>, String> {
        let mut state = self.state();
        if Self::terminal(state.status) {
            return Err("the task has ended".into());
        }
        let key = match key {
            Some(key) if state.used.contains(key) => {
                return Err(format!("the question key {key:?} was used before in this task"));
            }
            Some(key) => key.to_owned(),
            // The next automatic key no question has used, chosen keys included.
            None => loop {
                let n = state.counters.entry(kind.to_owned()).or_default();
                let key = format!("{kind}-{n}");
                *n += 1;
                if !state.used.contains(&key) {
                    break key;
                }
            },
        };
        state.used.insert(key.clone());
        let (answer, asked) = oneshot::channel();
        let request = serde_json::to_value(request).map_err(|e| e.to_string())?;
        state.outstanding.insert(key, Outstanding { request, answer: Some(answer) });
        state.status = TaskStatus::InputRequired;
        state.updated_ms = now_ms();
        drop(state);
        self.changed();
        Ok(asked)
    }

    /// `tasks/update`: delivers the answers to outstanding questions and passes over any
    /// other key (TX-12: not outstanding, answered before, never issued). The answered keys
    /// are gone, and the task `working` again once none is left, before this returns.
    pub(crate) fn update(&self, responses: &JsonObject) {
        let mut state = self.state();
        let mut delivered = false;
        for (key, response) in responses {
            if let Some(mut asked) = state.outstanding.remove(key) {
                if let Some(answer) = asked.answer.take() {
                    let _ = answer.send(response.clone());
                }
                delivered = true;
            }
        }
        if delivered {
            if state.outstanding.is_empty() && state.status == TaskStatus::InputRequired {
                state.status = TaskStatus::Working;
            }
            state.updated_ms = now_ms();
            drop(state);
            self.changed();
        }
    }
}

/// The tasks of one server.
pub(crate) struct Tasks {
    options: TaskOptions,
    entries: Mutex<HashMap<String, Arc<TaskEntry>>>,
    events: broadcast::Sender<ServerEvent>,
}

impl Tasks {
    pub(crate) fn new(options: TaskOptions, events: broadcast::Sender<ServerEvent>) -> Self {
        Self { options, entries: Mutex::new(HashMap::new()), events }
    }

    pub(crate) fn options(&self) -> TaskOptions {
        self.options
    }

    fn entries(&self) -> MutexGuard<'_, HashMap<String, Arc<TaskEntry>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new task of `owner`, kept before its id is returned (TX-05: a `tasks/get` right
    /// after the answer finds it). Expired tasks are dropped first; a full table is `-32603`.
    pub(crate) fn create(&self, owner: Option<String>) -> Result<Arc<TaskEntry>, ErrorObject> {
        let now = now_ms();
        let mut entries = self.entries();
        entries.retain(|_, entry| {
            let expired = entry.expired(now);
            if expired {
                entry.cancelled.cancel();
            }
            !expired
        });
        if entries.len() >= self.options.max_tasks {
            return Err(ErrorObject::internal(format!(
                "server busy: {} tasks are kept already; try again later",
                self.options.max_tasks
            )));
        }
        let mut id = [0u8; 16];
        getrandom::fill(&mut id)
            .map_err(|e| ErrorObject::internal(format!("no randomness for a task id: {e}")))?;
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let entry = Arc::new(TaskEntry {
            id: id.clone(),
            owner,
            created_ms: now,
            ttl_ms: self.options.ttl.map(|ttl| ttl.as_millis() as u64),
            poll_ms: self.options.poll_interval.as_millis() as u64,
            cancelled: CancellationToken::new(),
            state: Mutex::new(TaskState {
                status: TaskStatus::Working,
                message: None,
                updated_ms: now,
                result: None,
                error: None,
                outstanding: BTreeMap::new(),
                counters: HashMap::new(),
                used: HashSet::new(),
            }),
            events: self.events.clone(),
        });
        entries.insert(id, entry.clone());
        Ok(entry)
    }

    /// Task `id` of `owner`, or `-32602` when there is none (or it expired, or is another
    /// principal's).
    pub(crate) fn get(&self, id: &str, owner: Option<&str>) -> Result<Arc<TaskEntry>, ErrorObject> {
        let mut entries = self.entries();
        let Some(entry) = entries.get(id).cloned() else { return Err(not_found(id)) };
        if entry.expired(now_ms()) {
            entries.remove(id);
            entry.cancelled.cancel();
            return Err(ErrorObject::invalid_params(format!(
                "Failed to retrieve task {id:?}: Task has expired"
            )));
        }
        if !entry.owned_by(owner) {
            return Err(not_found(id));
        }
        Ok(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelctx_protocol::jsonrpc::MethodCall;
    use modelctx_protocol::v2026::ListRootsRequestParams;

    fn roots() -> InputRequest {
        InputRequest::ListRoots(MethodCall::new(None::<ListRootsRequestParams>))
    }

    #[test]
    fn tx_10_question_keys_are_never_reused_and_partial_answers_keep_the_rest() {
        let tasks = Tasks::new(TaskOptions::default(), broadcast::channel(4).0);
        let task = tasks.create(None).unwrap();
        let _first = task.ask("roots", None, roots()).unwrap();
        let _second = task.ask("roots", None, roots()).unwrap();
        assert_eq!(task.detailed()["status"], "input_required");
        assert_eq!(task.detailed()["inputRequests"].as_object().unwrap().len(), 2);
        task.update(json!({"roots-0": {"roots": []}, "never-issued": 1}).as_object().unwrap());
        let detailed = task.detailed();
        assert_eq!(detailed["status"], "input_required");
        assert!(
            detailed["inputRequests"].get("roots-0").is_none()
                && detailed["inputRequests"].get("roots-1").is_some()
        );
        task.update(json!({"roots-1": {"roots": []}}).as_object().unwrap());
        assert_eq!(task.detailed()["status"], "working");
        let _third = task.ask("roots", None, roots()).unwrap();
        assert!(task.detailed()["inputRequests"].get("roots-2").is_some(), "a new key, never an old one");
        assert!(task.ask("x", Some("roots-0"), roots()).is_err());
        // A key chosen by the handler is never handed out again as an automatic one.
        let _chosen = task.ask("roots", Some("roots-3"), roots()).unwrap();
        let _fourth = task.ask("roots", None, roots()).unwrap();
        assert!(task.detailed()["inputRequests"].get("roots-4").is_some());
    }

    #[test]
    fn tx_19_20_terminal_states_stay_a_late_outcome_is_dropped_and_tasks_are_their_owners() {
        let tasks = Tasks::new(TaskOptions::default(), broadcast::channel(4).0);
        let task = tasks.create(Some("alice".into())).unwrap();
        task.cancel();
        task.finish(Ok(JsonObject::new()));
        assert_eq!(task.detailed()["status"], "cancelled");
        assert!(tasks.get(task.id(), Some("bob")).is_err(), "another principal's task is not found");
        assert!(tasks.get(task.id(), Some("alice")).is_ok());
        let failed = tasks.create(None).unwrap();
        failed.finish(Err(ErrorObject::internal("boom")));
        let detailed = failed.detailed();
        assert_eq!(detailed["status"], "failed");
        assert_eq!(detailed["error"]["code"], -32603);
        assert!(detailed.get("result").is_none());
    }
}
