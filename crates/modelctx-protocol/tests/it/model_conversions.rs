//! The neutral model at the edge of each era: what changes, what is refused, and what never
//! crosses from one era to the other.

use crate::support::{schema, schema_errors};
use modelctx_protocol::jsonrpc::ErrorCode;
use modelctx_protocol::model::{self, CallToolResult, ClientCapabilities, ElicitRequest, ServerCapabilities};
use modelctx_protocol::types::{ContentBlock, Implementation, RequestedSchema, TaskStatus};
use modelctx_protocol::{Era, JsonObject, tasks, v2025, v2026};
use serde_json::{Value, json};

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().expect("an object")
}

#[test]
fn call_tool_result_gets_result_type_and_server_info_only_for_modern_peers() {
    let result = CallToolResult {
        content: vec![ContentBlock::text("42")],
        structured_content: Some(json!({"answer": 42})),
        ..Default::default()
    };
    let modern =
        serde_json::to_value(result.clone().into_modern(Some(Implementation::new("srv", "1.0")))).unwrap();
    assert_eq!(modern["resultType"], "complete");
    assert_eq!(modern["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "srv");
    assert_eq!(schema_errors(&schema("2026-07-28"), "CallToolResult", &modern), None);
    let legacy = serde_json::to_value(v2025::CallToolResult::try_from(result).unwrap()).unwrap();
    assert!(legacy.get("resultType").is_none());
    assert_eq!(schema_errors(&schema("2025-11-25"), "CallToolResult", &legacy), None);
}

#[test]
fn structured_content_may_be_any_json_for_modern_but_only_an_object_for_legacy() {
    let list = CallToolResult { structured_content: Some(json!([1, 2, 3])), ..Default::default() };
    let modern = serde_json::to_value(list.clone().into_modern(None)).unwrap();
    assert_eq!(schema_errors(&schema("2026-07-28"), "CallToolResult", &modern), None);
    let refused = v2025::CallToolResult::try_from(list).unwrap_err();
    assert_eq!(refused.0, json!([1, 2, 3]));
    // And back: a legacy object reads as neutral JSON.
    let legacy =
        v2025::CallToolResult { structured_content: Some(object(json!({"a": 1}))), ..Default::default() };
    assert_eq!(CallToolResult::from(legacy).structured_content, Some(json!({"a": 1})));
}

#[test]
fn resource_not_found_is_32002_for_legacy_and_32602_for_modern() {
    assert_eq!(model::resource_not_found(Era::Legacy, "file:///x").code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(model::resource_not_found(Era::Modern, "file:///x").code, ErrorCode::INVALID_PARAMS);
}

#[test]
fn legacy_tools_carry_task_support_modern_tools_do_not() {
    let tool = v2026::Tool {
        name: "slow".into(),
        input_schema: object(json!({"type": "object"})),
        ..Default::default()
    };
    let execution = v2025::ToolExecution { task_support: Some(v2025::TaskSupport::Optional) };
    let legacy = model::legacy_tool(tool.clone(), Some(execution));
    let value = serde_json::to_value(&legacy).unwrap();
    assert_eq!(value["execution"]["taskSupport"], "optional");
    assert_eq!(schema_errors(&schema("2025-11-25"), "Tool", &value), None);
    assert_eq!(v2026::Tool::from(legacy), tool);
}

#[test]
fn s10_1_extensions_across_eras_tasks_extension_never_applies_to_legacy_peers() {
    let mut extensions = std::collections::BTreeMap::new();
    extensions.insert(tasks::EXTENSION_ID.to_owned(), JsonObject::new());
    // A server offering the extension offers no tasks to a 2025-11-25 client…
    let server = ServerCapabilities { extensions: Some(extensions.clone()), ..Default::default() };
    let legacy = v2025::ServerCapabilities::from(server.clone());
    assert_eq!(legacy.tasks, None);
    assert_eq!(v2026::ServerCapabilities::from(server).extensions, Some(extensions));
    // …and a 2025-11-25 client's `tasks` capability never counts as the extension.
    let legacy_client: v2025::ClientCapabilities =
        serde_json::from_value(json!({"tasks": {"list": {}, "cancel": {}}})).unwrap();
    let neutral = ClientCapabilities::from(legacy_client);
    assert!(neutral.legacy_tasks.is_some());
    assert!(!neutral.has_extension(tasks::EXTENSION_ID));
    assert_eq!(v2026::ClientCapabilities::from(neutral).extensions, None);
}

#[test]
fn roots_list_changed_exists_only_in_legacy_capabilities() {
    let legacy: v2025::ClientCapabilities =
        serde_json::from_value(json!({"roots": {"listChanged": true}})).unwrap();
    let modern = v2026::ClientCapabilities::from(ClientCapabilities::from(legacy));
    assert_eq!(serde_json::to_value(&modern).unwrap(), json!({"roots": {}}));
}

#[test]
fn url_elicitation_needs_an_id_only_for_legacy_peers() {
    let ask = ElicitRequest::Url {
        message: "Sign in to continue".into(),
        url: "https://example.com/connect".into(),
        elicitation_id: None,
    };
    let modern = serde_json::to_value(v2026::ElicitRequestParams::from(ask.clone())).unwrap();
    assert_eq!(schema_errors(&schema("2026-07-28"), "ElicitRequestURLParams", &modern), None);
    assert_eq!(v2025::ElicitRequestParams::try_from(ask), Err(model::MissingElicitationId));
    let with_id = ElicitRequest::Url {
        message: "Sign in".into(),
        url: "https://example.com/connect".into(),
        elicitation_id: Some("e-1".into()),
    };
    let legacy =
        serde_json::to_value(v2025::ElicitRequestParams::try_from(with_id.clone()).unwrap()).unwrap();
    assert_eq!(legacy["elicitationId"], "e-1");
    assert_eq!(schema_errors(&schema("2025-11-25"), "ElicitRequestURLParams", &legacy), None);
    let back = ElicitRequest::from(serde_json::from_value::<v2025::ElicitRequestParams>(legacy).unwrap());
    assert_eq!(back, with_id);
    let form = ElicitRequest::Form {
        message: "Your name?".into(),
        requested_schema: serde_json::from_value::<RequestedSchema>(
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        )
        .unwrap(),
    };
    let legacy_form = v2025::ElicitRequestParams::try_from(form.clone()).unwrap();
    assert_eq!(ElicitRequest::from(legacy_form), form);
}

#[test]
fn tasks_convert_between_core_and_extension_shapes() {
    let legacy: v2025::Task = serde_json::from_value(json!({
        "taskId": "t-1", "status": "input_required", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:31:00Z", "ttl": null, "pollInterval": 500
    }))
    .unwrap();
    let modern = model::Task::from(legacy.clone());
    assert_eq!(
        (modern.status, modern.ttl_ms, modern.poll_interval_ms),
        (TaskStatus::InputRequired, None, Some(500))
    );
    let value = serde_json::to_value(&modern).unwrap();
    assert_eq!(value["ttlMs"], Value::Null);
    assert_eq!(v2025::Task::from(modern), legacy);
}
