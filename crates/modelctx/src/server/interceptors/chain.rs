//! The invoker's side: a chain of interceptors, hosted here or on other servers, run on one
//! event and phase by the draft's execution model.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use modelctx_protocol::JsonObject;
use modelctx_protocol::interceptors::{
    Hook, Interceptor, InterceptorType, InvocationContext, InvokeParams, Mode, MutationResult, Phase,
    PriorityHint, Severity, ValidationResult, execution_failed, mutation_failed, timeout_error,
    validation_failed,
};
use modelctx_protocol::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::InterceptorDef;

/// Where an interceptor runs: `interceptor/invoke` answered in process, or by a server.
pub trait InterceptorHost: Send + Sync {
    /// Runs `params` and answers its raw result (a `ValidationResult` or `MutationResult`).
    fn invoke(&self, params: InvokeParams) -> BoxFuture<'_, Result<Value, ErrorObject>>;
}

impl InterceptorHost for InterceptorDef {
    fn invoke(&self, params: InvokeParams) -> BoxFuture<'_, Result<Value, ErrorObject>> {
        Box::pin(InterceptorDef::invoke(self, params))
    }
}

/// A server's interceptors, run there by `interceptor/invoke`.
#[cfg(feature = "client")]
impl InterceptorHost for crate::client::Client {
    fn invoke(&self, params: InvokeParams) -> BoxFuture<'_, Result<Value, ErrorObject>> {
        Box::pin(async move {
            let name = params.name.clone();
            let params = serde_json::to_value(params).map_err(|e| execution_failed(&name, &e.to_string()))?;
            let answered = self.request(modelctx_protocol::interceptors::INVOKE, params).await;
            answered.map(Value::Object).map_err(|e| {
                e.rpc_error().cloned().unwrap_or_else(|| execution_failed(&name, &e.to_string()))
            })
        })
    }
}

/// What an invoker sets for one interceptor in its deployment, over what the interceptor
/// suggests (`hooks` may only narrow the declared ones).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Overrides {
    /// Whether its failures let messages through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_open: Option<bool>,
    /// A mutator's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_hint: Option<PriorityHint>,
    /// Enforce or audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// How long one invocation may take; [`Chain::DEFAULT_TIMEOUT`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Only these of its hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<Vec<Hook>>,
}

/// One interceptor of a chain: its description, where it runs, the invoker's overrides and
/// the `config` it is invoked with.
#[derive(Clone)]
pub struct ChainEntry {
    interceptor: Interceptor,
    host: Arc<dyn InterceptorHost>,
    overrides: Overrides,
    config: Option<JsonObject>,
}

impl std::fmt::Debug for ChainEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainEntry")
            .field("interceptor", &self.interceptor)
            .field("overrides", &self.overrides)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ChainEntry {
    /// `interceptor` (as its server lists it), run by `host`.
    pub fn new(interceptor: Interceptor, host: Arc<dyn InterceptorHost>) -> Self {
        Self { interceptor, host, overrides: Overrides::default(), config: None }
    }

    /// A hosted interceptor, run in process.
    pub fn local(interceptor: InterceptorDef) -> Self {
        Self::new(interceptor.descriptor().clone(), Arc::new(interceptor))
    }

    /// With the invoker's `overrides`; refused when its hooks name an event or phase the
    /// interceptor does not declare (overrides only narrow).
    pub fn overrides(mut self, overrides: Overrides) -> Result<Self, String> {
        for hook in overrides.hooks.iter().flatten() {
            for event in &hook.events {
                let declared = self.interceptor.hooks.iter().any(|declared| {
                    declared.phase == hook.phase
                        && declared
                            .events
                            .iter()
                            .any(|pattern| modelctx_protocol::interceptors::event_matches(pattern, event))
                });
                if !declared {
                    return Err(format!(
                        "the overrides of interceptor {:?} name {event} in the {} phase, which it does not \
                         declare: overrides may only narrow its hooks",
                        self.interceptor.name,
                        hook.phase.as_str()
                    ));
                }
            }
        }
        self.overrides = overrides;
        Ok(self)
    }

    /// Invoked with `config`.
    pub fn config(mut self, config: JsonObject) -> Self {
        self.config = Some(config);
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.interceptor.name
    }

    fn mode(&self) -> Mode {
        self.overrides.mode.or(self.interceptor.mode).unwrap_or_default()
    }

    fn fail_open(&self) -> bool {
        self.overrides.fail_open.or(self.interceptor.fail_open).unwrap_or(false)
    }

    fn priority(&self, phase: Phase) -> i32 {
        self.overrides.priority_hint.or(self.interceptor.priority_hint).map_or(0, |hint| hint.in_phase(phase))
    }

    fn timeout(&self) -> Duration {
        self.overrides.timeout_ms.map_or(Chain::DEFAULT_TIMEOUT, Duration::from_millis)
    }

    /// Whether it runs on `event` in `phase`, its hooks narrowed by the overrides.
    fn runs_on(&self, event: &str, phase: Phase) -> bool {
        match &self.overrides.hooks {
            Some(hooks) => hooks.iter().any(|hook| hook.matches(event, phase)),
            None => self.interceptor.hooks_into(event, phase),
        }
    }

    /// Invokes it on `payload` within its timeout.
    async fn invoke(
        &self,
        event: &str,
        phase: Phase,
        payload: Value,
        context: Option<&InvocationContext>,
    ) -> Result<Value, ErrorObject> {
        let timeout = self.timeout();
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let params = InvokeParams {
            name: self.interceptor.name.clone(),
            event: event.to_owned(),
            phase,
            payload,
            config: self.config.clone(),
            timeout_ms: Some(timeout_ms),
            context: context.cloned(),
        };
        tokio::time::timeout(timeout, self.host.invoke(params))
            .await
            .unwrap_or_else(|_| Err(timeout_error(&self.interceptor.name, timeout_ms, phase)))
    }
}

/// Which way the message crosses the trust boundary at the invoker: a request it received
/// (validate, then mutate) or a message it is about to send (mutate, then validate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Validate, then mutate.
    Receiving,
    /// Mutate, then validate.
    Sending,
}

/// How a chain ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainStatus {
    /// The message goes on (its payload perhaps rewritten).
    Success,
    /// A validator refused it, or failed closed.
    ValidationFailed,
    /// A mutator failed closed; no mutation applies.
    MutationFailed,
    /// An interceptor or the whole chain ran out of time, failing closed.
    Timeout,
}

/// The validation findings of a chain, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ValidationSummary {
    /// `error`s.
    pub errors: usize,
    /// `warn`s.
    pub warnings: usize,
    /// `info`s.
    pub infos: usize,
}

/// Where a chain stopped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Aborted {
    /// The interceptor.
    pub interceptor: String,
    /// Why.
    pub reason: String,
    /// `validation`, `mutation` or `timeout`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// What a chain did (the draft's `ChainExecutionResult`).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainOutcome {
    /// How it ended.
    pub status: ChainStatus,
    /// The event.
    pub event: String,
    /// The phase.
    pub phase: Phase,
    /// Each interceptor's result (or failure) in the order they ran.
    pub results: Vec<Value>,
    /// The payload after the mutations, when the message goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_payload: Option<Value>,
    /// The findings, counted.
    pub validation_summary: ValidationSummary,
    /// How long it all took.
    pub total_duration_ms: u64,
    /// Where it stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted_at: Option<Aborted>,
    /// The error to answer when it stopped.
    #[serde(skip)]
    error: Option<ErrorObject>,
}

impl ChainOutcome {
    /// The payload to go on with, or the error that refuses the message.
    pub fn into_payload(self) -> Result<Value, ErrorObject> {
        match (self.error, self.final_payload) {
            (Some(error), _) => Err(error),
            (None, Some(payload)) => Ok(payload),
            (None, None) => Err(execution_failed("(chain)", "the chain ended with no payload")),
        }
    }

    fn stop(&mut self, status: ChainStatus, aborted: Aborted, error: ErrorObject) {
        self.status = status;
        self.aborted_at = Some(aborted);
        self.error = Some(error);
        self.final_payload = None;
    }
}

/// Interceptors run together on the events they hook into.
#[derive(Clone, Debug, Default)]
pub struct Chain {
    entries: Vec<ChainEntry>,
    timeout: Option<Duration>,
}

impl Chain {
    /// How long one invocation may take when its overrides say nothing.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

    /// A chain of `entries`.
    pub fn new(entries: Vec<ChainEntry>) -> Self {
        Self { entries, timeout: None }
    }

    /// Bounds the whole chain (each run of it) to `timeout`, failing closed past it.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Its entries.
    pub fn entries(&self) -> &[ChainEntry] {
        &self.entries
    }

    /// Whether any of its interceptors runs on `event` in `phase`.
    pub fn runs_on(&self, event: &str, phase: Phase) -> bool {
        self.entries.iter().any(|entry| entry.runs_on(event, phase))
    }

    /// Runs the interceptors that hook into `event` and `phase` on `payload`, in the order
    /// `direction` asks.
    pub async fn execute(
        &self,
        event: &str,
        phase: Phase,
        direction: Direction,
        payload: Value,
        context: Option<&InvocationContext>,
    ) -> ChainOutcome {
        let started = Instant::now();
        let mut outcome = ChainOutcome {
            status: ChainStatus::Success,
            event: event.to_owned(),
            phase,
            results: Vec::new(),
            final_payload: None,
            validation_summary: ValidationSummary::default(),
            total_duration_ms: 0,
            aborted_at: None,
            error: None,
        };
        let run = Run { event, phase, context, entries: &self.entries };
        let ran = async {
            let mut payload = payload;
            for step in direction.steps() {
                payload = match step {
                    InterceptorType::Validation => run.validate(payload, &mut outcome).await?,
                    InterceptorType::Mutation => run.mutate(payload, &mut outcome).await?,
                };
            }
            Some(payload)
        };
        let finished = match self.timeout {
            Some(limit) => tokio::time::timeout(limit, ran).await,
            None => Ok(ran.await),
        };
        match finished {
            Ok(Some(payload)) => outcome.final_payload = Some(payload),
            Ok(None) => {}
            Err(_) => {
                let ms = self.timeout.map_or(0, |limit| u64::try_from(limit.as_millis()).unwrap_or(u64::MAX));
                let aborted = Aborted {
                    interceptor: "(chain)".into(),
                    reason: format!("the chain took over {ms} ms"),
                    kind: "timeout",
                };
                outcome.stop(ChainStatus::Timeout, aborted, timeout_error("(chain)", ms, phase));
            }
        }
        outcome.total_duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        outcome
    }
}

impl Direction {
    /// Validators and mutators, in the order this direction runs them.
    fn steps(self) -> [InterceptorType; 2] {
        match self {
            Self::Receiving => [InterceptorType::Validation, InterceptorType::Mutation],
            Self::Sending => [InterceptorType::Mutation, InterceptorType::Validation],
        }
    }
}

/// One run of a chain.
struct Run<'a> {
    event: &'a str,
    phase: Phase,
    context: Option<&'a InvocationContext>,
    entries: &'a [ChainEntry],
}

impl Run<'_> {
    fn of_kind(&self, kind: InterceptorType) -> impl Iterator<Item = &ChainEntry> {
        self.entries
            .iter()
            .filter(move |entry| entry.interceptor.kind == kind && entry.runs_on(self.event, self.phase))
    }

    /// The validators at once; `None` when one refuses (or fails closed).
    async fn validate(&self, payload: Value, outcome: &mut ChainOutcome) -> Option<Value> {
        let validators: Vec<&ChainEntry> = self.of_kind(InterceptorType::Validation).collect();
        let invoked = validators
            .iter()
            .map(|entry| entry.invoke(self.event, self.phase, payload.clone(), self.context));
        let answers = futures::future::join_all(invoked).await;
        let mut refusals = Vec::new();
        let mut failure = None;
        for (entry, answer) in validators.into_iter().zip(answers) {
            let audit = entry.mode() == Mode::Audit;
            let judged = answer.and_then(|value| {
                serde_json::from_value::<ValidationResult>(value).map_err(|e| {
                    execution_failed(entry.name(), &format!("it answered no ValidationResult: {e}"))
                })
            });
            match judged {
                Ok(result) => {
                    match result.effective_severity() {
                        Some(Severity::Error) => outcome.validation_summary.errors += 1,
                        Some(Severity::Warn) => outcome.validation_summary.warnings += 1,
                        Some(Severity::Info) => outcome.validation_summary.infos += 1,
                        None => {}
                    }
                    if result.blocks() && !audit {
                        let message = result
                            .messages
                            .first()
                            .map_or("the payload is not valid", |m| m.message.as_str());
                        refusals.push(
                            json!({"interceptor": entry.name(), "severity": "error", "message": message}),
                        );
                    } else if result.blocks() {
                        tracing::info!(target: "modelctx::interceptors", interceptor = entry.name(), event = self.event, "audit: the validator would have refused");
                    }
                    outcome.results.push(recorded(serde_json::to_value(&result).ok(), "validation", audit));
                }
                Err(error) => {
                    outcome.results.push(failed(entry.name(), "validation", &error, audit));
                    if !audit && !entry.fail_open() && failure.is_none() {
                        failure = Some((entry.name().to_owned(), error));
                    } else {
                        tracing::warn!(target: "modelctx::interceptors", interceptor = entry.name(), error = %error.message, "an interceptor failed; the message goes on");
                    }
                }
            }
        }
        if let Some((interceptor, error)) = failure {
            let (status, kind) = timed_out(&error, ChainStatus::ValidationFailed, "validation");
            outcome.stop(status, Aborted { interceptor, reason: error.message.clone(), kind }, error);
            return None;
        }
        if let Some(first) = refusals.first() {
            let interceptor = first["interceptor"].as_str().unwrap_or_default().to_owned();
            let reason = first["message"].as_str().unwrap_or_default().to_owned();
            outcome.stop(
                ChainStatus::ValidationFailed,
                Aborted { interceptor, reason, kind: "validation" },
                validation_failed(refusals),
            );
            return None;
        }
        Some(payload)
    }

    /// The mutators one after another by priority (then name), each on the last one's
    /// payload; `None` when one fails closed, and then none applies.
    async fn mutate(&self, payload: Value, outcome: &mut ChainOutcome) -> Option<Value> {
        let mut mutators: Vec<&ChainEntry> = self.of_kind(InterceptorType::Mutation).collect();
        mutators.sort_by(|a, b| (a.priority(self.phase), a.name()).cmp(&(b.priority(self.phase), b.name())));
        let mut current = payload;
        for entry in mutators {
            let audit = entry.mode() == Mode::Audit;
            let answer =
                entry.invoke(self.event, self.phase, current.clone(), self.context).await.and_then(|value| {
                    serde_json::from_value::<MutationResult>(value).map_err(|e| {
                        execution_failed(entry.name(), &format!("it answered no MutationResult: {e}"))
                    })
                });
            match answer {
                Ok(result) => {
                    outcome.results.push(recorded(serde_json::to_value(&result).ok(), "mutation", audit));
                    // A shadow mutation in audit mode is computed, not applied.
                    if result.modified && !audit {
                        current = result.payload;
                    }
                }
                Err(error) => {
                    outcome.results.push(failed(entry.name(), "mutation", &error, audit));
                    if audit || entry.fail_open() {
                        tracing::warn!(target: "modelctx::interceptors", interceptor = entry.name(), error = %error.message, "an interceptor failed; the message goes on");
                        continue;
                    }
                    let (status, kind) = timed_out(&error, ChainStatus::MutationFailed, "mutation");
                    let refusal = if kind == "timeout" {
                        error.clone()
                    } else {
                        mutation_failed(entry.name(), &error.message)
                    };
                    let aborted =
                        Aborted { interceptor: entry.name().to_owned(), reason: error.message, kind };
                    outcome.stop(status, aborted, refusal);
                    return None;
                }
            }
        }
        Some(current)
    }
}

/// The status and abort kind of a failure: a timeout's own, else `otherwise`.
fn timed_out(error: &ErrorObject, otherwise: ChainStatus, kind: &'static str) -> (ChainStatus, &'static str) {
    if error.code.0 == modelctx_protocol::interceptors::TIMEOUT_CODE {
        (ChainStatus::Timeout, "timeout")
    } else {
        (otherwise, kind)
    }
}

/// A result as the chain records it (`type` set; `mode: audit` when it did not count).
fn recorded(result: Option<Value>, kind: &str, audit: bool) -> Value {
    let mut result = result.unwrap_or_default();
    if let Value::Object(object) = &mut result {
        object.insert("type".into(), json!(kind));
        if audit {
            object.insert("mode".into(), json!("audit"));
        }
    }
    result
}

/// A failed invocation as the chain records it.
fn failed(interceptor: &str, kind: &str, error: &ErrorObject, audit: bool) -> Value {
    let mut result = json!({"interceptor": interceptor, "type": kind, "error": {"code": error.code.0, "message": error.message}});
    if audit {
        result["mode"] = json!("audit");
    }
    result
}
