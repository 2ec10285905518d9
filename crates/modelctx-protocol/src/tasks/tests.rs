//! The extension's types against its own document (`tasks.md`) and the 2026-07-28
//! `schema.json`. Test names carry the CHECKLIST row they prove where there is one.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::*;
use crate::JsonObject;
use crate::jsonrpc::{JsonRpcErrorResponse, MethodName, parse_message};
use crate::v2026::{
    CallToolResult, InputRequest, InputResponse, MultiRoundResult, ResultType, SubscriptionFilter,
};

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec")
}

/// The fenced blocks of `tasks.md` marked exactly `json` (the `jsonc`/`jsonl` ones carry
/// comments and elisions; the one complete message among them repeats a `json` block).
fn json_blocks() -> Vec<Value> {
    let path = spec_dir().join("extensions/tasks/tasks.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```json") => current = Some(String::new()),
            (Some(body), "```") => {
                blocks.push(serde_json::from_str(body).expect("a json block parses"));
                current = None;
            }
            (Some(body), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

fn schema() -> Value {
    let path = spec_dir().join("2026-07-28/schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("schema.json parses")
}

/// Panics with every error when `instance` does not validate against `definition`.
fn assert_valid(schema: &Value, definition: &str, instance: &Value) {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{definition}"),
        "$defs": schema["$defs"],
    });
    let validator = jsonschema::draft202012::new(&root).expect("validator builds");
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{definition}: {errors:?}\n{instance:#}");
}

fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> T {
    let typed: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{}: {e}\n{value:#}", std::any::type_name::<T>()));
    let back = serde_json::to_value(&typed).expect("serializes");
    assert_eq!(&back, value, "{} round trip", std::any::type_name::<T>());
    typed
}

fn task(status: TaskStatus) -> Task {
    let mut task = Task::new("t-1", status, "2026-07-28T10:30:00Z", "2026-07-28T10:31:00Z");
    task.ttl_ms = Some(60_000);
    task.poll_interval_ms = Some(5_000);
    task
}

#[test]
fn every_json_example_of_tasks_md_round_trips_and_validates() {
    let schema = schema();
    let blocks = json_blocks();
    assert_eq!(blocks.len(), 21, "tasks.md changed: review the new examples");
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for block in &blocks {
        assert_valid(&schema, "JSONRPCMessage", block);
        let kind = if let Some(method) = block.get("method").and_then(Value::as_str) {
            match method {
                "tools/call" => {
                    // A core request, shown without the `_meta` every 2026-07-28 request
                    // carries, so only the untyped envelope reads it.
                    let message = parse_message(block.to_string().as_bytes()).expect("parses");
                    let back: Value = serde_json::from_str(&message.to_json()).unwrap();
                    assert_eq!(&back, block);
                    "tools/call request"
                }
                "notifications/tasks" => {
                    let note: TaskStatusNotification = round_trip(block);
                    assert_valid(&schema, "NotificationParams", &block["params"]);
                    assert_eq!(note.params.task.status(), TaskStatus::Completed);
                    "notifications/tasks"
                }
                _ => {
                    let request: TaskRequest = round_trip(block);
                    if let TaskRequest::Update(update) = &request {
                        assert_valid(&schema, "InputResponses", &block["params"]["inputResponses"]);
                        assert!(matches!(update.params.input_responses["name"], InputResponse::Elicit(_)));
                    }
                    "tasks/* request"
                }
            }
        } else if block.get("error").is_some() {
            round_trip::<JsonRpcErrorResponse>(block);
            assert_valid(&schema, "Error", &block["error"]);
            "error response"
        } else {
            let result = &block["result"];
            assert_valid(&schema, "Result", result);
            match result["resultType"].as_str() {
                // §19 #7: the error-handling examples with a terminal status and
                // `resultType: "task"` are task handles with a terminal seed.
                Some("task") => {
                    let response: CreateTaskResultResponse = round_trip(block);
                    let detailed = response.result.detailed().expect("seed reads as a DetailedTask");
                    if let DetailedTask::Failed(failed) = &detailed {
                        assert_valid(&schema, "Error", &block["result"]["error"]);
                        assert_eq!(failed.error.code.0, -32603);
                    }
                    "CreateTaskResult"
                }
                Some("complete") if result.get("taskId").is_some() => {
                    let response: GetTaskResultResponse = round_trip(block);
                    match &response.result.task {
                        DetailedTask::InputRequired(t) => {
                            assert_valid(&schema, "InputRequests", &result["inputRequests"]);
                            assert!(matches!(t.input_requests["name"], InputRequest::Elicit(_)));
                        }
                        DetailedTask::Completed(t) => {
                            // The inlined result omits `resultType`, which the schema's
                            // `CallToolResult` requires; our type reads it as `complete`
                            // and writes it back.
                            let call: CallToolResult =
                                serde_json::from_value(Value::Object(t.result.clone())).unwrap();
                            let call = serde_json::to_value(call).unwrap();
                            assert_valid(&schema, "CallToolResult", &call);
                        }
                        _ => {}
                    }
                    "GetTaskResult"
                }
                Some("complete") => {
                    round_trip::<UpdateTaskResultResponse>(block);
                    "UpdateTaskResult"
                }
                other => panic!("unexpected resultType {other:?}"),
            }
        };
        *seen.entry(kind).or_default() += 1;
    }
    let expected = [
        ("CreateTaskResult", 4),
        ("GetTaskResult", 5),
        ("UpdateTaskResult", 1),
        ("error response", 3),
        ("notifications/tasks", 1),
        ("tasks/* request", 6),
        ("tools/call request", 1),
    ];
    let expected: std::collections::BTreeMap<&str, usize> = expected.into_iter().collect();
    assert_eq!(seen, expected);
}

#[test]
fn tx_08_get_task_results_validate_for_every_status() {
    let schema = schema();
    let variants: Vec<DetailedTask> = vec![
        WorkingTask::new(task(TaskStatus::Working)).into(),
        InputRequiredTask::new(
            task(TaskStatus::InputRequired),
            serde_json::from_value(json!({
                "roots": { "method": "roots/list" }
            }))
            .unwrap(),
        )
        .into(),
        CompletedTask::new(
            task(TaskStatus::Completed),
            json!({ "content": [], "isError": true }).as_object().unwrap().clone(),
        )
        .into(),
        FailedTask::new(task(TaskStatus::Failed), ErrorObject::internal("boom")).into(),
        CancelledTask::new(task(TaskStatus::Cancelled)).into(),
    ];
    for detailed in variants {
        let status = detailed.status();
        let value = serde_json::to_value(GetTaskResult::new(detailed.clone())).unwrap();
        assert_valid(&schema, "Result", &value);
        assert_eq!(value["resultType"], "complete", "§19 #7");
        assert_eq!(value["status"], status.as_str());
        assert_eq!(detailed.task().status, status);
        assert_eq!(detailed.task_id(), "t-1");
        let back: GetTaskResult = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back.task, detailed);
        // The same task is what a notification carries.
        let note = TaskStatusNotification::new(TaskStatusNotificationParams { task: detailed, meta: None });
        let note = serde_json::to_value(note).unwrap();
        assert_valid(&schema, "JSONRPCNotification", &note);
        assert_eq!(note["params"]["status"], status.as_str());
    }
}

#[test]
fn tx_08_get_task_result_refuses_another_result_type() {
    let mut value =
        serde_json::to_value(GetTaskResult::new(WorkingTask::new(task(TaskStatus::Working)))).unwrap();
    value["resultType"] = json!("task");
    assert!(serde_json::from_value::<GetTaskResult>(value.clone()).is_err());
    value.as_object_mut().unwrap().remove("resultType");
    let absent: GetTaskResult = serde_json::from_value(value).unwrap();
    assert_eq!(ResultType::from(absent.result_type), ResultType::Complete);
}

#[test]
fn tx_08_status_specific_members_are_required() {
    let mut value = serde_json::to_value(GetTaskResult::new(CompletedTask::new(
        task(TaskStatus::Completed),
        JsonObject::new(),
    )))
    .unwrap();
    value.as_object_mut().unwrap().remove("result");
    assert!(serde_json::from_value::<GetTaskResult>(value).is_err());
    let unknown = json!({ "resultType": "complete", "taskId": "t", "status": "paused",
        "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null });
    let error = serde_json::from_value::<GetTaskResult>(unknown).unwrap_err().to_string();
    assert!(error.contains("paused"), "{error}");
}

#[test]
fn tx_04_create_task_result_always_says_task() {
    let schema = schema();
    for status in [TaskStatus::Working, TaskStatus::Completed, TaskStatus::Failed] {
        let value = serde_json::to_value(CreateTaskResult::new(task(status))).unwrap();
        assert_valid(&schema, "Result", &value);
        assert_eq!(value["resultType"], "task");
    }
    let mut value = serde_json::to_value(CreateTaskResult::new(task(TaskStatus::Working))).unwrap();
    value["resultType"] = json!("complete");
    assert!(serde_json::from_value::<CreateTaskResult>(value.clone()).is_err());
    value.as_object_mut().unwrap().remove("resultType");
    assert!(serde_json::from_value::<CreateTaskResult>(value).is_err());
    assert_eq!(ResultType::from(TaskResultType), ResultType::Task);
}

#[test]
fn ttl_ms_is_written_as_null_and_must_be_present() {
    let mut unlimited = task(TaskStatus::Working);
    unlimited.ttl_ms = None;
    let value = serde_json::to_value(&unlimited).unwrap();
    assert_eq!(value.get("ttlMs"), Some(&Value::Null));
    assert_eq!(serde_json::from_value::<Task>(value.clone()).unwrap(), unlimited);
    let value = serde_json::to_value(CreateTaskResult::new(unlimited.clone())).unwrap();
    assert_eq!(value.get("ttlMs"), Some(&Value::Null));
    let value = serde_json::to_value(GetTaskResult::new(WorkingTask::new(unlimited))).unwrap();
    assert_eq!(value.get("ttlMs"), Some(&Value::Null));

    let mut missing = value;
    missing.as_object_mut().unwrap().remove("ttlMs");
    let error = serde_json::from_value::<GetTaskResult>(missing.clone()).unwrap_err().to_string();
    assert!(error.contains("ttlMs"), "{error}");
    assert!(serde_json::from_value::<Task>(missing.clone()).is_err());
    missing["resultType"] = json!("task");
    assert!(serde_json::from_value::<CreateTaskResult>(missing).is_err());
}

#[test]
fn tx_02_tool_call_answers_are_task_or_standard() {
    let handle = serde_json::to_value(CreateTaskResult::new(task(TaskStatus::Working))).unwrap();
    let parsed: CallToolTaskResult = serde_json::from_value(handle.clone()).unwrap();
    assert!(matches!(parsed, MaybeTask::Task(ref t) if t.task.task_id == "t-1"));
    assert_eq!(serde_json::to_value(&parsed).unwrap(), handle);

    let standard = json!({ "resultType": "complete", "content": [] });
    let parsed: CallToolTaskResult = serde_json::from_value(standard.clone()).unwrap();
    assert!(matches!(parsed, MaybeTask::Standard(MultiRoundResult::Complete(CallToolResult { .. }))));
    assert_eq!(serde_json::to_value(&parsed).unwrap(), standard);

    let input = json!({ "resultType": "input_required", "requestState": "s" });
    let parsed: CallToolTaskResult = serde_json::from_value(input).unwrap();
    assert!(matches!(parsed, MaybeTask::Standard(MultiRoundResult::InputRequired(_))));
}

#[test]
fn tx_12_tx_14_acknowledgements_are_complete() {
    let schema = schema();
    for value in [
        serde_json::to_value(UpdateTaskResult::default()).unwrap(),
        serde_json::to_value(CancelTaskResult::default()).unwrap(),
    ] {
        assert_eq!(value, json!({ "resultType": "complete" }));
        assert_valid(&schema, "Result", &value);
    }
    assert!(serde_json::from_value::<CancelTaskResult>(json!({ "resultType": "task" })).is_err());
}

#[test]
fn task_requests_carry_the_request_meta_when_sent() {
    let schema = schema();
    let request = json!({
        "jsonrpc": "2.0", "id": 9, "method": "tasks/cancel",
        "params": {
            "taskId": "t-1",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": { "extensions": { EXTENSION_ID: {} } }
            }
        }
    });
    assert_valid(&schema, "JSONRPCRequest", &request);
    let parsed: CancelTaskRequest = round_trip(&request);
    let meta = parsed.params.meta.expect("_meta");
    assert!(client_declares(&meta.client_capabilities));
    assert!(matches!(round_trip::<TaskRequest>(&request), TaskRequest::Cancel(_)));
    assert_eq!(TASK_REQUEST_METHODS, [GetTask::NAME, UpdateTask::NAME, CancelTask::NAME]);
    assert_eq!(TaskStatusChanged::NAME, "notifications/tasks");
}

#[test]
fn tx_18_tx_21_declaration_is_the_extension_key_only() {
    let mut caps = ClientCapabilities::default();
    assert!(!client_declares(&caps));
    caps.experimental = Some([("tasks".to_owned(), JsonObject::new())].into());
    assert!(!client_declares(&caps), "a legacy tasks capability does not count");
    caps.extensions = Some([(EXTENSION_ID.to_owned(), JsonObject::new())].into());
    assert!(client_declares(&caps));

    let mut server = ServerCapabilities::default();
    assert!(!server_declares(&server));
    let capability = serde_json::to_value(TasksExtensionCapability::default()).unwrap();
    assert_eq!(capability, json!({}));
    server.extensions = Some([(EXTENSION_ID.to_owned(), capability.as_object().unwrap().clone())].into());
    assert!(server_declares(&server));
}

#[test]
fn tx_03_tx_15_missing_capability_names_the_extension() {
    let schema = schema();
    let error = missing_capability_error();
    assert_eq!(error.code.0, -32021);
    assert_eq!(
        error.data,
        Some(json!({ "requiredCapabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } } }))
    );
    let response = JsonRpcErrorResponse::new(Some(12.into()), error);
    assert_valid(&schema, "MissingRequiredClientCapabilityError", &serde_json::to_value(response).unwrap());
}

#[test]
fn subscription_members_match_the_core_filter() {
    let ours = TaskSubscriptionNotifications { task_ids: Some(vec!["t-1".to_owned()]) };
    let value = serde_json::to_value(&ours).unwrap();
    assert_eq!(value, json!({ "taskIds": ["t-1"] }));
    let core: SubscriptionFilter = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(core.task_ids, ours.task_ids);
    let ack: TaskSubscriptionAcknowledgedNotifications = serde_json::from_value(value).unwrap();
    assert_eq!(ack.task_ids, ours.task_ids);
    assert_eq!(serde_json::to_value(TaskSubscriptionNotifications::default()).unwrap(), json!({}));
}

#[test]
fn status_follows_the_state_diagram() {
    use TaskStatus::*;
    let all = [Working, InputRequired, Completed, Failed, Cancelled];
    for from in all {
        for to in all {
            let allowed = from == to || matches!(from, Working | InputRequired);
            assert_eq!(from.can_transition_to(to), allowed, "{from} -> {to}");
        }
        assert_eq!(from.is_terminal(), !matches!(from, Working | InputRequired));
        assert_eq!(serde_json::to_value(from).unwrap(), json!(from.as_str()));
    }
}

#[test]
fn meta_08_notification_carries_the_subscription_id() {
    let schema = schema();
    let value = json!({
        "jsonrpc": "2.0",
        "method": "notifications/tasks",
        "params": {
            "taskId": "t-1", "status": "failed",
            "createdAt": "2026-07-28T10:30:00Z", "lastUpdatedAt": "2026-07-28T10:31:00Z",
            "ttlMs": null, "statusMessage": "rate limited",
            "error": { "code": -32603, "message": "API rate limit exceeded" },
            "_meta": { "io.modelcontextprotocol/subscriptionId": 7 }
        }
    });
    assert_valid(&schema, "JSONRPCNotification", &value);
    assert_valid(&schema, "NotificationParams", &value["params"]);
    let note: TaskStatusNotification = round_trip(&value);
    let meta = note.params.meta.expect("_meta");
    assert_eq!(meta.subscription_id, Some(7.into()));
    assert!(
        matches!(note.params.task, DetailedTask::Failed(ref f) if f.status_message.as_deref() == Some("rate limited"))
    );
}

#[test]
fn create_task_result_seed_reads_as_detailed_only_when_complete() {
    let working = CreateTaskResult::new(task(TaskStatus::Working));
    assert_eq!(working.detailed().unwrap(), WorkingTask::new(task(TaskStatus::Working)).into());
    let bare_completed = CreateTaskResult::new(task(TaskStatus::Completed));
    assert!(bare_completed.detailed().is_err(), "a completed seed needs its result");
    let mut completed = bare_completed;
    completed.other.insert("result".to_owned(), json!({ "content": [] }));
    assert!(matches!(completed.detailed().unwrap(), DetailedTask::Completed(_)));
}
