//! A task as a store keeps it, and the changes its life allows: every change is a plain
//! function of the record, so a store applies it atomically however it keeps the record
//! (under a lock in memory, by compare-and-set in a shared store).

use std::collections::{BTreeMap, BTreeSet};

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::tasks::Task;
use modelctx_protocol::types::TaskStatus;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::clock;

/// One task: its status, its outcome, its outstanding questions and the answers its work has
/// not taken yet. Serialised as JSON by shared stores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    id: String,
    owner: Option<String>,
    created_ms: u64,
    ttl_ms: Option<u64>,
    poll_ms: u64,
    status: TaskStatus,
    message: Option<String>,
    updated_ms: u64,
    result: Option<JsonObject>,
    error: Option<ErrorObject>,
    /// The questions awaiting an answer, by key (the `inputRequests`).
    questions: BTreeMap<String, Value>,
    /// Answers `tasks/update` delivered that the work has not taken yet, by key.
    answers: BTreeMap<String, Value>,
    /// Automatic keys handed out so far, per kind (`elicit-0`, `elicit-1`, …).
    counters: BTreeMap<String, u32>,
    /// Every key used in the task's life, automatic or chosen, so that none is used twice
    /// (TX-10).
    used: BTreeSet<String>,
    /// Until when the instance running the work vouches for it (ms since the epoch): past it
    /// with the task not ended, that instance is gone and the task has failed.
    lease_ms: u64,
}

/// The message of a task whose instance stopped before the work ended.
pub(crate) const LAPSED: &str = "the server instance running this task stopped before it ended";

impl TaskRecord {
    /// A new `working` task of `owner`, created now, kept `ttl_ms` (`None`: for as long as
    /// the server runs), its instance vouching for it `lease_ms` ahead. The runtime makes
    /// tasks itself; this is for store implementations and their tests.
    pub fn new(id: String, owner: Option<String>, ttl_ms: Option<u64>, poll_ms: u64, lease_ms: u64) -> Self {
        let now = clock::now_ms();
        Self {
            id,
            owner,
            created_ms: now,
            ttl_ms,
            poll_ms,
            status: TaskStatus::Working,
            message: None,
            updated_ms: now,
            result: None,
            error: None,
            questions: BTreeMap::new(),
            answers: BTreeMap::new(),
            counters: BTreeMap::new(),
            used: BTreeSet::new(),
            lease_ms: now + lease_ms,
        }
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The task's status.
    pub fn status(&self) -> TaskStatus {
        self.status
    }

    /// The principal (or legacy session) the task is bound to; `None` for a server with no
    /// authentication over stdio.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// When the task may be forgotten (ms since the Unix epoch), `None` for never: a store
    /// keeps it at least until then (its TTL never ends early).
    pub fn expires_ms(&self) -> Option<u64> {
        self.ttl_ms.map(|ttl| self.created_ms.saturating_add(ttl))
    }

    pub(crate) fn expired(&self, now: u64) -> bool {
        self.expires_ms().is_some_and(|at| now >= at)
    }

    pub(crate) fn owned_by(&self, owner: Option<&str>) -> bool {
        self.owner.as_deref() == owner
    }

    pub(crate) fn terminal(&self) -> bool {
        matches!(self.status, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// Whether the instance running the work stopped vouching for it while it ran.
    pub(crate) fn lapsed(&self, now: u64) -> bool {
        !self.terminal() && now > self.lease_ms
    }

    fn touch(&mut self) {
        self.updated_ms = clock::now_ms();
    }

    fn base(&self) -> JsonObject {
        let mut task = Task::new(
            &self.id,
            self.status,
            clock::rfc3339(self.created_ms),
            clock::rfc3339(self.updated_ms),
        );
        task.status_message = self.message.clone();
        task.ttl_ms = self.ttl_ms;
        task.poll_interval_ms = Some(self.poll_ms);
        match serde_json::to_value(task) {
            Ok(Value::Object(object)) => object,
            _ => JsonObject::new(),
        }
    }

    /// The task as 2025-11-25 shows it (`Task`: `ttl` and `pollInterval`, in milliseconds).
    pub(crate) fn legacy(&self) -> modelctx_protocol::v2025::Task {
        modelctx_protocol::v2025::Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.message.clone(),
            created_at: clock::rfc3339(self.created_ms),
            last_updated_at: clock::rfc3339(self.updated_ms),
            ttl: self.ttl_ms,
            poll_interval: Some(self.poll_ms),
        }
    }

    /// The outcome as the original request would have had it: its result, or its error.
    /// `None` while the task runs.
    pub(crate) fn outcome(&self) -> Option<Result<JsonObject, ErrorObject>> {
        match self.status {
            TaskStatus::Completed => Some(Ok(self.result.clone().unwrap_or_default())),
            TaskStatus::Failed => {
                Some(Err(self.error.clone().unwrap_or_else(|| ErrorObject::internal("the task failed"))))
            }
            TaskStatus::Cancelled => {
                Some(Err(ErrorObject::internal("the task was cancelled before it ended")))
            }
            TaskStatus::Working | TaskStatus::InputRequired => None,
        }
    }

    /// The questions outstanding, by key, as `{method, params}`.
    pub(crate) fn questions(&self) -> &BTreeMap<String, Value> {
        &self.questions
    }

    /// The `CreateTaskResult`: `resultType: "task"` and the task's own members only.
    pub(crate) fn created(&self) -> JsonObject {
        let mut object = self.base();
        object.insert("resultType".into(), json!("task"));
        object
    }

    /// The `DetailedTask` of `tasks/get` (`resultType: "complete"`): what the status carries
    /// — the outstanding questions, the result or the error (TX-08).
    pub(crate) fn detailed(&self) -> JsonObject {
        let mut object = self.base();
        object.insert("resultType".into(), json!("complete"));
        match self.status {
            TaskStatus::InputRequired => {
                let requests: JsonObject =
                    self.questions.iter().map(|(key, asked)| (key.clone(), asked.clone())).collect();
                object.insert("inputRequests".into(), Value::Object(requests));
            }
            TaskStatus::Completed => {
                object.insert("result".into(), Value::Object(self.result.clone().unwrap_or_default()));
            }
            TaskStatus::Failed => {
                let error = self.error.clone().unwrap_or_else(|| ErrorObject::internal("the task failed"));
                object.insert("error".into(), serde_json::to_value(error).unwrap_or_default());
            }
            _ => {}
        }
        object
    }

    /// The task as `notifications/tasks` carries it: the `DetailedTask` of `tasks/get`,
    /// without `resultType` (a notification is no result).
    pub(crate) fn notification(&self) -> JsonObject {
        let mut detailed = self.detailed();
        detailed.remove("resultType");
        detailed
    }

    /// Records the work's outcome, unless the task ended already (cancelled: its late
    /// outcome is dropped). `false` when nothing changed.
    pub(crate) fn finish(&mut self, outcome: &Result<JsonObject, ErrorObject>) -> bool {
        if self.terminal() {
            return false;
        }
        match outcome {
            Ok(result) => {
                self.status = TaskStatus::Completed;
                self.result = Some(result.clone());
            }
            Err(error) => {
                self.status = TaskStatus::Failed;
                self.message = Some(error.message.clone());
                self.error = Some(error.clone());
            }
        }
        self.questions.clear();
        self.answers.clear();
        self.touch();
        true
    }

    /// `tasks/cancel`: a task still running is cancelled; an ended one stays as it is.
    pub(crate) fn cancel(&mut self) -> bool {
        if self.terminal() {
            return false;
        }
        self.status = TaskStatus::Cancelled;
        self.message = Some("cancelled by the client".into());
        self.questions.clear();
        self.answers.clear();
        self.touch();
        true
    }

    /// Extends the running instance's lease to `until` (ms since the epoch).
    pub(crate) fn renew(&mut self, until: u64) -> bool {
        if self.terminal() {
            return false;
        }
        self.lease_ms = until;
        true
    }

    /// Registers a question of the work under a fresh key (or `key`, when it was never
    /// used); the task is `input_required` until every question is answered. Returns the key.
    pub(crate) fn ask(&mut self, kind: &str, key: Option<&str>, request: Value) -> Result<String, String> {
        if self.terminal() {
            return Err("the task has ended".into());
        }
        let key = match key {
            Some(key) if self.used.contains(key) => {
                return Err(format!("the question key {key:?} was used before in this task"));
            }
            Some(key) => key.to_owned(),
            // The next automatic key no question has used, chosen keys included.
            None => loop {
                let n = self.counters.entry(kind.to_owned()).or_default();
                let key = format!("{kind}-{n}");
                *n += 1;
                if !self.used.contains(&key) {
                    break key;
                }
            },
        };
        self.used.insert(key.clone());
        self.questions.insert(key.clone(), request);
        self.status = TaskStatus::InputRequired;
        self.touch();
        Ok(key)
    }

    /// `tasks/update`: keeps the answers to outstanding questions for the work and passes
    /// over any other key (TX-12: not outstanding, answered before, never issued). The
    /// answered keys are no longer asked, and the task is `working` again once none is left.
    pub(crate) fn update(&mut self, responses: &JsonObject) -> bool {
        let mut delivered = false;
        for (key, response) in responses {
            if self.questions.remove(key).is_some() {
                self.answers.insert(key.clone(), response.clone());
                delivered = true;
            }
        }
        if delivered {
            if self.questions.is_empty() && self.status == TaskStatus::InputRequired {
                self.status = TaskStatus::Working;
            }
            self.touch();
        }
        delivered
    }

    /// The answer to the question `key`, taken once by the work.
    pub(crate) fn take_answer(&mut self, key: &str) -> Option<Value> {
        self.answers.remove(key)
    }

    /// Fails a task whose instance stopped before the work ended.
    pub(crate) fn fail_lapsed(&mut self) -> bool {
        self.lapsed(clock::now_ms()) && self.finish(&Err(ErrorObject::internal(LAPSED)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelctx_protocol::Method;

    fn roots() -> Value {
        json!({"method": Method::ListRoots})
    }

    #[test]
    fn tx_10_question_keys_are_never_reused_and_partial_answers_keep_the_rest() {
        let mut task = TaskRecord::new("t".into(), None, None, 500, 10_000);
        task.ask("roots", None, roots()).unwrap();
        task.ask("roots", None, roots()).unwrap();
        assert_eq!(task.detailed()["status"], "input_required");
        assert_eq!(task.detailed()["inputRequests"].as_object().unwrap().len(), 2);
        task.update(json!({"roots-0": {"roots": []}, "never-issued": 1}).as_object().unwrap());
        let detailed = task.detailed();
        assert_eq!(detailed["status"], "input_required");
        assert!(
            detailed["inputRequests"].get("roots-0").is_none()
                && detailed["inputRequests"].get("roots-1").is_some()
        );
        assert_eq!(task.take_answer("roots-0"), Some(json!({"roots": []})));
        assert_eq!(task.take_answer("roots-0"), None, "an answer is taken once");
        task.update(json!({"roots-1": {"roots": []}}).as_object().unwrap());
        assert_eq!(task.detailed()["status"], "working");
        assert_eq!(task.ask("roots", None, roots()).unwrap(), "roots-2", "a new key, never an old one");
        assert!(task.ask("x", Some("roots-0"), roots()).is_err());
        // A key chosen by the handler is never handed out again as an automatic one.
        task.ask("roots", Some("roots-3"), roots()).unwrap();
        assert_eq!(task.ask("roots", None, roots()).unwrap(), "roots-4");
    }

    #[test]
    fn tx_19_terminal_states_stay_and_a_late_outcome_is_dropped() {
        let mut task = TaskRecord::new("t".into(), Some("alice".into()), None, 500, 10_000);
        assert!(task.cancel());
        assert!(!task.finish(&Ok(JsonObject::new())));
        assert_eq!(task.detailed()["status"], "cancelled");
        assert!(!task.owned_by(Some("bob")) && task.owned_by(Some("alice")));
        let mut failed = TaskRecord::new("u".into(), None, None, 500, 10_000);
        failed.finish(&Err(ErrorObject::internal("boom")));
        let detailed = failed.detailed();
        assert_eq!(detailed["status"], "failed");
        assert_eq!(detailed["error"]["code"], -32603);
        assert!(detailed.get("result").is_none());
    }

    #[test]
    fn a_task_whose_instance_stopped_fails_and_an_ended_one_never_lapses() {
        let mut task = TaskRecord::new("t".into(), None, None, 500, 0);
        let later = clock::now_ms() + 1;
        assert!(task.lapsed(later));
        task.lease_ms = 0;
        assert!(task.fail_lapsed());
        assert!(task.detailed()["error"]["message"].as_str().unwrap().ends_with(LAPSED));
        assert!(!task.lapsed(later + 1_000_000), "an ended task has no lease to lapse");
    }
}
