//! Interceptors (experimental): SEP-2624 "Interceptors for Model Context Protocol" (PR #2624
//! at `915f1b95`, 2026-07-17), with the value spellings of the `experimental-ext-interceptors`
//! repository. A server hosts interceptors — validators that judge a payload, mutators that
//! rewrite it — listed by `interceptors/list` and run by `interceptor/invoke`; an invoker (a
//! gateway, a client) runs a chain of them around its own requests and responses. Here are the
//! wire types, the event matching and the errors; the execution model is in `modelctx`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::JsonObject;
use crate::jsonrpc::{ErrorCode, ErrorObject};

/// The identifier in `capabilities.extensions`; its settings are `{"supportedEvents": [...]}`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/interceptors";

/// Lists a server's interceptors (`params.event` filters them).
pub const LIST: &str = "interceptors/list";

/// Runs one interceptor on a payload.
pub const INVOKE: &str = "interceptor/invoke";

/// The code of an invocation past its `timeoutMs`, as the draft gives it (in the range JSON-RPC
/// leaves to servers).
pub const TIMEOUT_CODE: i64 = -32000;

/// What an interceptor does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterceptorType {
    /// Judges a payload without changing it.
    Validation,
    /// Rewrites a payload.
    Mutation,
}

/// When an interceptor runs: on the way to the handler, or on the way back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The request.
    Request,
    /// The response.
    Response,
}

impl Phase {
    /// `request` or `response`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Request => "request",
            Self::Response => "response",
        }
    }
}

/// Whether an interceptor's outcome counts. The SEP spells the default `active`, the extension
/// repository and its SDKs `enforce`: both are read, `enforce` is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A validator's error blocks; a mutator's payload is used.
    #[default]
    #[serde(alias = "active")]
    Enforce,
    /// Never blocks: a validator's violations are logged, a mutator's payload is computed and
    /// dropped (a shadow mutation).
    Audit,
}

/// How serious a validation finding is; only `error` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// For the record.
    Info,
    /// Worth a look; does not block.
    Warn,
    /// Blocks the message (in enforce mode).
    Error,
}

/// A set of events an interceptor runs on, in one phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hook {
    /// The events: method names (`tools/call`), `*`, or a namespace glob (`tools/*`).
    pub events: Vec<String>,
    /// The phase.
    pub phase: Phase,
}

impl Hook {
    /// Whether this hook runs on `event` in `phase`.
    pub fn matches(&self, event: &str, phase: Phase) -> bool {
        self.phase == phase && self.events.iter().any(|pattern| event_matches(pattern, event))
    }
}

/// Whether the event pattern `pattern` (`*`, `tools/*`, or a name) covers `event`.
pub fn event_matches(pattern: &str, event: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some("") => true,
        Some(prefix) if prefix.ends_with('/') => event.starts_with(prefix),
        _ => pattern == event,
    }
}

/// The order of a mutator: lower runs first; the same for both phases or one per phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PriorityHint {
    /// Both phases.
    Both(i32),
    /// Per phase (a missing one is `0`).
    PerPhase {
        /// In the request phase.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<i32>,
        /// In the response phase.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<i32>,
    },
}

impl PriorityHint {
    /// The priority in `phase`.
    pub fn in_phase(self, phase: Phase) -> i32 {
        match self {
            Self::Both(priority) => priority,
            Self::PerPhase { request, response } => match phase {
                Phase::Request => request.unwrap_or(0),
                Phase::Response => response.unwrap_or(0),
            },
        }
    }
}

/// The protocol versions an interceptor works with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compat {
    /// The oldest.
    pub min_protocol: String,
    /// The newest, if bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_protocol: Option<String>,
}

/// An interceptor as `interceptors/list` describes it: what it can do (type, hooks,
/// `configSchema`) and the policy its author suggests (mode, `failOpen`, priority), which an
/// invoker may override.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interceptor {
    /// Its name, unique on its server.
    pub name: String,
    /// Its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What it does, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Validator or mutator.
    #[serde(rename = "type")]
    pub kind: InterceptorType,
    /// The events and phases it runs on.
    pub hooks: Vec<Hook>,
    /// Its mode (enforce when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Whether a failure (an error, a timeout) lets the message through (`false`, fail-closed,
    /// when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_open: Option<bool>,
    /// A mutator's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_hint: Option<PriorityHint>,
    /// The protocol versions it works with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Compat>,
    /// The JSON Schema of its `config`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_schema: Option<JsonObject>,
}

impl Interceptor {
    /// Whether it runs on `event` in `phase`.
    pub fn hooks_into(&self, event: &str, phase: Phase) -> bool {
        self.hooks.iter().any(|hook| hook.matches(event, phase))
    }
}

/// `interceptors/list` params.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListParams {
    /// Only the interceptors that run on this event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
}

/// `interceptors/list` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResult {
    /// The interceptors.
    pub interceptors: Vec<Interceptor>,
    /// The next page's cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Who a message is from, as an invoker tells an interceptor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Principal {
    /// `user`, `service` or `anonymous`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its verified claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<JsonObject>,
}

/// What an invoker tells an interceptor about the message's circumstances.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationContext {
    /// Who sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<Principal>,
    /// Its trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// Its span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// When (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Its legacy session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// `interceptor/invoke` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvokeParams {
    /// The interceptor.
    pub name: String,
    /// The event (`tools/call`).
    pub event: String,
    /// The phase.
    pub phase: Phase,
    /// What to judge or rewrite.
    pub payload: Value,
    /// Its configuration for this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<JsonObject>,
    /// How long it may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The circumstances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<InvocationContext>,
}

/// One finding of a validator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Where in the payload (a JSON path), if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What is wrong, for people.
    pub message: String,
    /// How serious.
    pub severity: Severity,
}

/// A correction a validator suggests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Where.
    pub path: String,
    /// The value it suggests there.
    pub value: Value,
}

/// What every interceptor's result says of its run; the server that ran it fills it in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// The interceptor's name.
    #[serde(default)]
    pub interceptor: String,
    /// The phase it ran in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// How long it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Whatever else it reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<JsonObject>,
}

/// What a validator answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationResult {
    /// Its run.
    #[serde(flatten)]
    pub run: RunReport,
    /// Whether the payload passed.
    pub valid: bool,
    /// The overall severity (an invalid payload with none counts as `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Finding>,
    /// Suggested corrections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Suggestion>,
}

impl ValidationResult {
    /// The payload passes.
    pub fn pass() -> Self {
        Self {
            run: RunReport::default(),
            valid: true,
            severity: None,
            messages: Vec::new(),
            suggestions: Vec::new(),
        }
    }

    /// The payload fails with `severity` for `message` (at `path`, if given).
    pub fn finding(severity: Severity, message: impl Into<String>, path: Option<String>) -> Self {
        let finding = Finding { path, message: message.into(), severity };
        Self {
            valid: severity != Severity::Error,
            severity: Some(severity),
            messages: vec![finding],
            ..Self::pass()
        }
    }

    /// The severity that decides: the overall one, else the worst finding's, else `error` for
    /// an invalid payload and none for a valid one.
    pub fn effective_severity(&self) -> Option<Severity> {
        self.severity
            .or_else(|| self.messages.iter().map(|m| m.severity).max())
            .or((!self.valid).then_some(Severity::Error))
    }

    /// Whether it blocks the message (in enforce mode): only an `error` does.
    pub fn blocks(&self) -> bool {
        self.effective_severity() == Some(Severity::Error)
    }
}

/// What a mutator answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MutationResult {
    /// Its run.
    #[serde(flatten)]
    pub run: RunReport,
    /// Whether it changed the payload.
    pub modified: bool,
    /// The payload, changed or not.
    pub payload: Value,
}

/// `-32602` for an interceptor this server does not host (as the extension's SDKs answer).
pub fn unknown_interceptor(name: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, format!("Interceptor '{name}' not found"))
}

/// The draft's timeout error: `-32000` with the interceptor, its limit and the phase.
pub fn timeout_error(interceptor: &str, timeout_ms: u64, phase: Phase) -> ErrorObject {
    ErrorObject::new(ErrorCode(TIMEOUT_CODE), "Interceptor execution timeout")
        .with_data(json!({"interceptor": interceptor, "timeoutMs": timeout_ms, "phase": phase}))
}

/// `-32603`: the interceptor failed (`reason` says how).
pub fn execution_failed(interceptor: &str, reason: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, "Interceptor execution failed")
        .with_data(json!({"interceptor": interceptor, "reason": reason}))
}

/// `-32602`: validators refused the message; `errors` name each (`interceptor`, `severity`,
/// `message`).
pub fn validation_failed(errors: Vec<Value>) -> ErrorObject {
    let names: Vec<&str> = errors.iter().filter_map(|e| e["interceptor"].as_str()).collect();
    let message = format!("Interceptor validation failed: refused by {}", names.join(", "));
    ErrorObject::new(ErrorCode::INVALID_PARAMS, message).with_data(json!({"validationErrors": errors}))
}

/// `-32603`: a mutator failed and the chain stopped (no mutation applies).
pub fn mutation_failed(interceptor: &str, reason: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        format!("Interceptor mutation failed: {interceptor}: {reason}"),
    )
    .with_data(json!({"failedInterceptor": interceptor, "reason": reason}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_match_by_name_star_and_namespace() {
        assert!(event_matches("*", "tools/call"));
        assert!(event_matches("tools/*", "tools/call") && !event_matches("tools/*", "prompts/get"));
        assert!(event_matches("tools/call", "tools/call") && !event_matches("tools/call", "tools/list"));
        assert!(!event_matches("tools*", "tools/call"), "a glob is a whole namespace");
    }

    #[test]
    fn the_mode_reads_both_spellings_and_writes_enforce() {
        assert_eq!(serde_json::from_value::<Mode>(json!("active")).unwrap(), Mode::Enforce);
        assert_eq!(serde_json::from_value::<Mode>(json!("enforce")).unwrap(), Mode::Enforce);
        assert_eq!(serde_json::to_value(Mode::Enforce).unwrap(), json!("enforce"));
    }

    #[test]
    fn priorities_resolve_per_phase() {
        let hint: PriorityHint = serde_json::from_value(json!({"request": -1000})).unwrap();
        assert_eq!((hint.in_phase(Phase::Request), hint.in_phase(Phase::Response)), (-1000, 0));
        let hint: PriorityHint = serde_json::from_value(json!(-500)).unwrap();
        assert_eq!((hint.in_phase(Phase::Request), hint.in_phase(Phase::Response)), (-500, -500));
    }

    #[test]
    fn only_an_error_blocks() {
        let invalid: ValidationResult = serde_json::from_value(json!({"valid": false})).unwrap();
        assert!(invalid.blocks(), "invalid with no severity is an error");
        assert!(!ValidationResult::finding(Severity::Warn, "hm", None).blocks());
        assert!(ValidationResult::finding(Severity::Error, "no", None).blocks());
        assert!(!ValidationResult::pass().blocks());
    }

    #[test]
    fn the_sep_example_descriptor_reads() {
        let listed = json!({"name": "pii-redactor", "version": "2.1.0", "type": "mutation",
            "hooks": [{"events": ["tools/call", "llm/completion"], "phase": "request"},
                      {"events": ["tools/call", "llm/completion"], "phase": "response"}],
            "failOpen": false, "priorityHint": {"request": -1000, "response": 1000},
            "compat": {"minProtocol": "2024-11-05"}});
        let interceptor: Interceptor = serde_json::from_value(listed.clone()).unwrap();
        assert!(interceptor.hooks_into("tools/call", Phase::Response));
        assert!(!interceptor.hooks_into("prompts/get", Phase::Request));
        assert_eq!(serde_json::to_value(&interceptor).unwrap(), listed);
    }
}
