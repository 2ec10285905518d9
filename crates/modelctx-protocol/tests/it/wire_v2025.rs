//! The 2025-11-25 wire, proven against the official schema: every definition has a Rust
//! type; generated instances of every definition (required members only, then every member)
//! parse into it and serialise back to equal JSON that validates; and realistic messages of
//! both sides (the handshake, tasks, sampling with tools, URL-mode elicitation, the unions)
//! survive the same round trip.

use std::sync::OnceLock;

use crate::support::{Entry, json_eq, schema_errors};
use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::jsonrpc::{JsonRpcErrorResponse, JsonRpcResultResponse, RequestMethod};
use modelctx_protocol::v2025 as v;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const REVISION: &str = "2025-11-25";

fn registry() -> Vec<Entry> {
    registry![
        "Annotations" => v::Annotations,
        "AudioContent" => v::AudioContent,
        "BaseMetadata" => v::BaseMetadata,
        "BlobResourceContents" => v::BlobResourceContents,
        "BooleanSchema" => v::BooleanSchema,
        "CallToolRequest" => v::CallToolRequest,
        "CallToolRequestParams" => v::CallToolRequestParams,
        "CallToolResult" => v::CallToolResult,
        "CancelTaskRequest" => v::CancelTaskRequest,
        "CancelTaskResult" => v::CancelTaskResult,
        "CancelledNotification" => v::CancelledNotification,
        "CancelledNotificationParams" => v::CancelledNotificationParams,
        "ClientCapabilities" => v::ClientCapabilities,
        "ClientNotification" => v::ClientNotification,
        "ClientRequest" => v::ClientRequest,
        "ClientResult" => v::ClientResult,
        "CompleteRequest" => v::CompleteRequest,
        "CompleteRequestParams" => v::CompleteRequestParams,
        "CompleteResult" => v::CompleteResult,
        "ContentBlock" => v::ContentBlock,
        "CreateMessageRequest" => v::CreateMessageRequest,
        "CreateMessageRequestParams" => v::CreateMessageRequestParams,
        "CreateMessageResult" => v::CreateMessageResult,
        "CreateTaskResult" => v::CreateTaskResult,
        "Cursor" => v::Cursor,
        "ElicitRequest" => v::ElicitRequest,
        "ElicitRequestFormParams" => v::ElicitRequestFormParams,
        "ElicitRequestParams" => v::ElicitRequestParams,
        "ElicitRequestURLParams" => v::ElicitRequestURLParams,
        "ElicitResult" => v::ElicitResult,
        "ElicitationCompleteNotification" => v::ElicitationCompleteNotification,
        "EmbeddedResource" => v::EmbeddedResource,
        "EmptyResult" => v::EmptyResult,
        "EnumSchema" => v::EnumSchema,
        "Error" => v::Error,
        "GetPromptRequest" => v::GetPromptRequest,
        "GetPromptRequestParams" => v::GetPromptRequestParams,
        "GetPromptResult" => v::GetPromptResult,
        "GetTaskPayloadRequest" => v::GetTaskPayloadRequest,
        "GetTaskPayloadResult" => v::GetTaskPayloadResult,
        "GetTaskRequest" => v::GetTaskRequest,
        "GetTaskResult" => v::GetTaskResult,
        "Icon" => v::Icon,
        "Icons" => v::Icons,
        "ImageContent" => v::ImageContent,
        "Implementation" => v::Implementation,
        "InitializeRequest" => v::InitializeRequest,
        "InitializeRequestParams" => v::InitializeRequestParams,
        "InitializeResult" => v::InitializeResult,
        "InitializedNotification" => v::InitializedNotification,
        "JSONRPCErrorResponse" => v::JSONRPCErrorResponse,
        "JSONRPCMessage" => v::JSONRPCMessage,
        // `v::JSONRPCNotification` is the envelope's plain struct; it goes on the wire as a message.
        "JSONRPCNotification" => v::JSONRPCMessage,
        // `v::JSONRPCRequest` is the envelope's plain struct; it goes on the wire as a message.
        "JSONRPCRequest" => v::JSONRPCMessage,
        "JSONRPCResponse" => v::JSONRPCResponse,
        "JSONRPCResultResponse" => v::JSONRPCResultResponse,
        "LegacyTitledEnumSchema" => v::LegacyTitledEnumSchema,
        "ListPromptsRequest" => v::ListPromptsRequest,
        "ListPromptsResult" => v::ListPromptsResult,
        "ListResourceTemplatesRequest" => v::ListResourceTemplatesRequest,
        "ListResourceTemplatesResult" => v::ListResourceTemplatesResult,
        "ListResourcesRequest" => v::ListResourcesRequest,
        "ListResourcesResult" => v::ListResourcesResult,
        "ListRootsRequest" => v::ListRootsRequest,
        "ListRootsResult" => v::ListRootsResult,
        "ListTasksRequest" => v::ListTasksRequest,
        "ListTasksResult" => v::ListTasksResult,
        "ListToolsRequest" => v::ListToolsRequest,
        "ListToolsResult" => v::ListToolsResult,
        "LoggingLevel" => v::LoggingLevel,
        "LoggingMessageNotification" => v::LoggingMessageNotification,
        "LoggingMessageNotificationParams" => v::LoggingMessageNotificationParams,
        "ModelHint" => v::ModelHint,
        "ModelPreferences" => v::ModelPreferences,
        "MultiSelectEnumSchema" => v::MultiSelectEnumSchema,
        "Notification" => v::Notification,
        "NotificationParams" => v::NotificationParams,
        "NumberSchema" => v::NumberSchema,
        "PaginatedRequest" => v::PaginatedRequest,
        "PaginatedRequestParams" => v::PaginatedRequestParams,
        "PaginatedResult" => v::PaginatedResult,
        "PingRequest" => v::PingRequest,
        "PrimitiveSchemaDefinition" => v::PrimitiveSchemaDefinition,
        "ProgressNotification" => v::ProgressNotification,
        "ProgressNotificationParams" => v::ProgressNotificationParams,
        "ProgressToken" => v::ProgressToken,
        "Prompt" => v::Prompt,
        "PromptArgument" => v::PromptArgument,
        "PromptListChangedNotification" => v::PromptListChangedNotification,
        "PromptMessage" => v::PromptMessage,
        "PromptReference" => v::PromptReference,
        "ReadResourceRequest" => v::ReadResourceRequest,
        "ReadResourceRequestParams" => v::ReadResourceRequestParams,
        "ReadResourceResult" => v::ReadResourceResult,
        "RelatedTaskMetadata" => v::RelatedTaskMetadata,
        "Request" => v::Request,
        "RequestId" => v::RequestId,
        "RequestParams" => v::RequestParams,
        "Resource" => v::Resource,
        "ResourceContents" => v::ResourceContents,
        "ResourceLink" => v::ResourceLink,
        "ResourceListChangedNotification" => v::ResourceListChangedNotification,
        "ResourceRequestParams" => v::ResourceRequestParams,
        "ResourceTemplate" => v::ResourceTemplate,
        "ResourceTemplateReference" => v::ResourceTemplateReference,
        "ResourceUpdatedNotification" => v::ResourceUpdatedNotification,
        "ResourceUpdatedNotificationParams" => v::ResourceUpdatedNotificationParams,
        "Result" => v::Result,
        "Role" => v::Role,
        "Root" => v::Root,
        "RootsListChangedNotification" => v::RootsListChangedNotification,
        "SamplingMessage" => v::SamplingMessage,
        "SamplingMessageContentBlock" => v::SamplingMessageContentBlock,
        "ServerCapabilities" => v::ServerCapabilities,
        "ServerNotification" => v::ServerNotification,
        "ServerRequest" => v::ServerRequest,
        "ServerResult" => v::ServerResult,
        "SetLevelRequest" => v::SetLevelRequest,
        "SetLevelRequestParams" => v::SetLevelRequestParams,
        "SingleSelectEnumSchema" => v::SingleSelectEnumSchema,
        "StringSchema" => v::StringSchema,
        "SubscribeRequest" => v::SubscribeRequest,
        "SubscribeRequestParams" => v::SubscribeRequestParams,
        "Task" => v::Task,
        "TaskAugmentedRequestParams" => v::TaskAugmentedRequestParams,
        "TaskMetadata" => v::TaskMetadata,
        "TaskStatus" => v::TaskStatus,
        "TaskStatusNotification" => v::TaskStatusNotification,
        "TaskStatusNotificationParams" => v::TaskStatusNotificationParams,
        "TextContent" => v::TextContent,
        "TextResourceContents" => v::TextResourceContents,
        "TitledMultiSelectEnumSchema" => v::TitledMultiSelectEnumSchema,
        "TitledSingleSelectEnumSchema" => v::TitledSingleSelectEnumSchema,
        "Tool" => v::Tool,
        "ToolAnnotations" => v::ToolAnnotations,
        "ToolChoice" => v::ToolChoice,
        "ToolExecution" => v::ToolExecution,
        "ToolListChangedNotification" => v::ToolListChangedNotification,
        "ToolResultContent" => v::ToolResultContent,
        "ToolUseContent" => v::ToolUseContent,
        "URLElicitationRequiredError" => v::URLElicitationRequiredError,
        "UnsubscribeRequest" => v::UnsubscribeRequest,
        "UnsubscribeRequestParams" => v::UnsubscribeRequestParams,
        "UntitledMultiSelectEnumSchema" => v::UntitledMultiSelectEnumSchema,
        "UntitledSingleSelectEnumSchema" => v::UntitledSingleSelectEnumSchema,
    ]
}

/// The schema, read once for the hand-written cases.
fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| crate::support::schema(REVISION))
}

/// Panics unless `instance` is valid against `$defs/<definition>`.
fn assert_valid(definition: &str, instance: &Value) {
    if let Some(errors) = schema_errors(schema(), definition, instance) {
        panic!("{definition} rejects {instance:#}:\n{errors}");
    }
}

/// Parses `wire` as `T`, serialises it back, requires equal JSON, and validates the output
/// against `$defs/<definition>`.
fn round_trip<T: Serialize + DeserializeOwned>(definition: &str, wire: Value) -> T {
    let typed: T = serde_json::from_value(wire.clone())
        .unwrap_or_else(|e| panic!("{definition}: cannot parse {wire:#}: {e}"));
    let back = serde_json::to_value(&typed).expect("serialises");
    assert!(json_eq(&back, &wire), "{definition} did not round-trip:\n  in:  {wire}\n  out: {back}");
    assert_valid(definition, &back);
    typed
}

fn sample_task(ttl: Value) -> Value {
    json!({
        "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
        "status": "working",
        "statusMessage": "The operation is now in progress.",
        "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:05Z",
        "ttl": ttl,
        "pollInterval": 5000
    })
}

#[test]
fn every_schema_definition_has_a_rust_type() {
    crate::support::assert_registry_complete(&crate::support::schema(REVISION), &registry());
}

#[test]
fn generated_instances_of_every_definition_round_trip_and_validate() {
    crate::support::assert_generated_instances_round_trip(
        &crate::support::schema(REVISION),
        &registry(),
        REVISION,
    );
}

// Requests of both sides, typed and as unions.

#[test]
fn initialize_request_carries_version_capabilities_and_client_info() {
    let request: v::InitializeRequest = round_trip(
        "InitializeRequest",
        json!({
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "_meta": { "progressToken": "init-1", "com.example/trace": "4bf92f35" },
                "protocolVersion": "2025-11-25",
                "capabilities": {
                    "roots": { "listChanged": true },
                    "sampling": { "tools": {} },
                    "elicitation": { "form": {}, "url": {} },
                    "tasks": {
                        "list": {},
                        "cancel": {},
                        "requests": {
                            "sampling": { "createMessage": {} },
                            "elicitation": { "create": {} }
                        }
                    }
                },
                "clientInfo": {
                    "name": "example-client",
                    "title": "Example Client",
                    "version": "1.4.0",
                    "websiteUrl": "https://example.com",
                    "icons": [{ "src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"] }]
                }
            }
        }),
    );
    let params = &request.params;
    assert_eq!(params.version(), Some(ProtocolVersion::V2025_11_25));
    assert_eq!(params.meta.as_ref().unwrap().progress_token, Some(v::ProgressToken::from("init-1")));
    assert_eq!(params.capabilities.roots.unwrap().list_changed, Some(true));
    let tasks = params.capabilities.tasks.as_ref().unwrap();
    assert!(tasks.requests.as_ref().unwrap().sampling.as_ref().unwrap().create_message.is_some());
    let union: v::ClientRequest = round_trip("ClientRequest", serde_json::to_value(&request).unwrap());
    assert!(matches!(union, v::ClientRequest::Initialize(_)));
}

#[test]
fn tool_call_with_task_metadata_round_trips() {
    let request: v::CallToolRequest = round_trip(
        "CallToolRequest",
        json!({
            "jsonrpc": "2.0",
            "id": "call-7",
            "method": "tools/call",
            "params": {
                "_meta": { "progressToken": 7 },
                "name": "build_report",
                "arguments": { "quarter": "Q3", "regions": ["emea", "apac"] },
                "task": { "ttl": 60000 }
            }
        }),
    );
    assert_eq!(request.id, v::RequestId::from("call-7"));
    assert_eq!(request.params.task, Some(v::TaskMetadata { ttl: Some(60000) }));
    assert_eq!(request.params.meta.as_ref().unwrap().progress_token, Some(v::ProgressToken::Number(7)));
    let union: v::ClientRequest = round_trip("ClientRequest", serde_json::to_value(&request).unwrap());
    assert!(matches!(union, v::ClientRequest::CallTool(_)));
}

#[test]
fn sampling_request_with_tools_and_its_tool_use_answer_round_trip() {
    let request: v::CreateMessageRequest = round_trip(
        "CreateMessageRequest",
        json!({
            "jsonrpc": "2.0",
            "id": 3,
            "method": "sampling/createMessage",
            "params": {
                "messages": [
                    { "role": "user", "content": { "type": "text", "text": "What's the weather in Paris?" } },
                    { "role": "assistant", "content": [
                        { "type": "tool_use", "id": "call_1", "name": "get_weather", "input": { "city": "Paris" } }
                    ] },
                    { "role": "user", "content": [
                        {
                            "type": "tool_result",
                            "toolUseId": "call_1",
                            "content": [{ "type": "text", "text": "18°C, cloudy" }],
                            "structuredContent": { "temperature": 18, "conditions": "cloudy" }
                        }
                    ] }
                ],
                "tools": [{
                    "name": "get_weather",
                    "description": "Current weather for a city",
                    "inputSchema": {
                        "type": "object",
                        "properties": { "city": { "type": "string" } },
                        "required": ["city"]
                    },
                    "execution": { "taskSupport": "forbidden" }
                }],
                "toolChoice": { "mode": "auto" },
                "modelPreferences": { "hints": [{ "name": "claude-3-sonnet" }], "intelligencePriority": 0.8, "speedPriority": 0.5 },
                "systemPrompt": "You are a helpful assistant.",
                "includeContext": "none",
                "temperature": 0.7,
                "maxTokens": 1000,
                "stopSequences": ["\n\nHuman:"],
                "task": { "ttl": 30000 }
            }
        }),
    );
    let params = &request.params;
    assert_eq!(params.messages.len(), 3);
    let tool = &params.tools.as_ref().unwrap()[0];
    assert_eq!(tool.execution.unwrap().task_support, Some(v::TaskSupport::Forbidden));
    let union: v::ServerRequest = round_trip("ServerRequest", serde_json::to_value(&request).unwrap());
    assert!(matches!(union, v::ServerRequest::CreateMessage(_)));
    let answer: v::ClientResult = round_trip(
        "ClientResult",
        json!({
            "role": "assistant",
            "content": [{ "type": "tool_use", "id": "call_2", "name": "get_weather", "input": { "city": "Lyon" } }],
            "model": "claude-3-sonnet-20240307",
            "stopReason": "toolUse"
        }),
    );
    assert!(matches!(
        answer,
        v::ClientResult::CreateMessage(v::CreateMessageResult {
            stop_reason: Some(v::StopReason::ToolUse),
            ..
        })
    ));
}

fn url_elicitation_request() -> v::ElicitRequest {
    round_trip(
        "ElicitRequest",
        json!({
            "jsonrpc": "2.0",
            "id": 4,
            "method": "elicitation/create",
            "params": {
                "mode": "url",
                "elicitationId": "550e8400-e29b-41d4-a716-446655440000",
                "url": "https://mcp.example.com/ui/set_api_key",
                "message": "Please provide your API key to continue."
            }
        }),
    )
}

#[test]
fn url_mode_elicitation_request_round_trips() {
    let request = url_elicitation_request();
    let v::ElicitRequestParams::Url(params) = &request.params else { panic!("not URL mode: {request:?}") };
    assert_eq!(params.elicitation_id, "550e8400-e29b-41d4-a716-446655440000");
    round_trip::<v::ServerRequest>("ServerRequest", serde_json::to_value(&request).unwrap());
}

#[test]
fn elicitation_params_without_mode_are_form_mode() {
    let form: v::ElicitRequestParams = round_trip(
        "ElicitRequestParams",
        json!({
            "message": "Your GitHub username?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] }
        }),
    );
    assert!(matches!(form, v::ElicitRequestParams::Form(_)));
}

#[test]
fn url_elicitation_required_error_lists_the_pending_elicitation() {
    let request = url_elicitation_request();
    let v::ElicitRequestParams::Url(params) = &request.params else { panic!("not URL mode: {request:?}") };
    // The error a request answers with when it needs the URL elicitation first.
    let error = JsonRpcErrorResponse::new(
        Some(v::RequestId::Number(2)),
        v::url_elicitation_required(std::slice::from_ref(params)),
    );
    round_trip::<v::URLElicitationRequiredError>(
        "URLElicitationRequiredError",
        serde_json::to_value(&error).unwrap(),
    );
}

#[test]
fn elicitation_complete_notification_is_a_server_notification() {
    let done: v::ServerNotification = round_trip(
        "ServerNotification",
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/elicitation/complete",
            "params": { "elicitationId": "550e8400-e29b-41d4-a716-446655440000" }
        }),
    );
    assert!(matches!(done, v::ServerNotification::ElicitationComplete(_)));
}

#[test]
fn client_request_union_picks_the_variant_by_method() {
    let cases = [
        (json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }), "Ping"),
        (json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }), "ListTools"),
        (
            json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": { "cursor": "2" } }),
            "ListTools",
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/subscribe", "params": { "uri": "file:///a.txt" } }),
            "Subscribe",
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": { "level": "warning" } }),
            "SetLevel",
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 6, "method": "tasks/result", "params": { "taskId": "t1" } }),
            "GetTaskPayload",
        ),
        (json!({ "jsonrpc": "2.0", "id": 7, "method": "tasks/list", "params": {} }), "ListTasks"),
        (
            json!({ "jsonrpc": "2.0", "id": 8, "method": "completion/complete", "params": {
                "ref": { "type": "ref/prompt", "name": "code_review" },
                "argument": { "name": "language", "value": "py" },
                "context": { "arguments": { "framework": "flask" } }
            } }),
            "Complete",
        ),
        (
            json!({ "jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": { "name": "review", "arguments": { "code": "x=1" } } }),
            "GetPrompt",
        ),
    ];
    for (wire, expected) in cases {
        let request: v::ClientRequest = round_trip("ClientRequest", wire);
        let variant = format!("{request:?}");
        assert!(variant.starts_with(expected), "expected {expected}, got {variant}");
    }
}

#[test]
fn client_request_union_rejects_unknown_methods_and_knows_every_listed_one() {
    let unknown = serde_json::from_value::<v::ClientRequest>(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover" }),
    );
    assert!(unknown.is_err());
    for method in v::CLIENT_REQUEST_METHODS {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": {} });
        let error = serde_json::from_value::<v::ClientRequest>(request)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(!error.contains("unknown \"method\""), "{method} is not in ClientRequest");
    }
}

#[test]
fn list_requests_may_omit_params() {
    let wire = json!({ "jsonrpc": "2.0", "id": 1, "method": "tasks/list" });
    let request: v::PaginatedRequest = round_trip("PaginatedRequest", wire.clone());
    assert_eq!(request.params, None);
    let request: v::ListTasksRequest = round_trip("ListTasksRequest", wire);
    assert_eq!(request.params, None);
}

#[test]
fn hand_built_paginated_request_without_params_omits_params() {
    let request = v::PaginatedRequest {
        jsonrpc: Default::default(),
        id: v::RequestId::Number(1),
        method: "resources/list".into(),
        params: None,
    };
    let value = serde_json::to_value(&request).unwrap();
    assert!(value.get("params").is_none(), "params written: {value}");
    assert_valid("PaginatedRequest", &value);
    assert_valid("ListResourcesRequest", &value);
}

// Results and notifications, typed and as unions; the task shapes.

#[test]
fn initialize_result_round_trips_alone_in_the_union_and_in_a_response() {
    let wire = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "experimental": { "com.example/batching": { "maxBatch": 8 } },
            "logging": {},
            "completions": {},
            "prompts": { "listChanged": true },
            "resources": { "subscribe": true, "listChanged": true },
            "tools": { "listChanged": true },
            "tasks": { "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }
        },
        "serverInfo": { "name": "example-server", "title": "Example Server", "version": "2.0.1" },
        "instructions": "Call search before fetch.",
        "_meta": { "com.example/region": "eu-west-1" }
    });
    let result: v::InitializeResult = round_trip("InitializeResult", wire.clone());
    assert_eq!(result.server_info.name, "example-server");
    let tasks = result.capabilities.tasks.unwrap();
    assert!(tasks.requests.unwrap().tools.unwrap().call.is_some());
    let union: v::ServerResult = round_trip("ServerResult", wire.clone());
    assert!(matches!(union, v::ServerResult::Initialize(_)));
    let response: JsonRpcResultResponse<<v::Initialize as RequestMethod>::Result> =
        serde_json::from_value(json!({ "jsonrpc": "2.0", "id": 0, "result": wire })).unwrap();
    assert_valid("JSONRPCResultResponse", &serde_json::to_value(&response).unwrap());
}

#[test]
fn create_task_result_answers_a_task_augmented_request() {
    let wire = json!({
        "task": sample_task(json!(60000)),
        "_meta": { "io.modelcontextprotocol/model-immediate-response": "The report is being built." }
    });
    let result: v::CreateTaskResult = round_trip("CreateTaskResult", wire.clone());
    assert_eq!(result.task.status, v::TaskStatus::Working);
    assert_eq!(result.task.ttl, Some(60000));
    assert_eq!(result.task.poll_interval, Some(5000));
    // What a task-augmented `tools/call` answers, and what the result unions make of it.
    let answer: <v::CallTool as RequestMethod>::Result = serde_json::from_value(wire.clone()).unwrap();
    assert!(matches!(answer, v::TaskAugmentedResult::Task(_)));
    assert!(json_eq(&serde_json::to_value(&answer).unwrap(), &wire));
    assert!(matches!(serde_json::from_value(wire.clone()).unwrap(), v::ServerResult::CreateTask(_)));
    assert!(matches!(serde_json::from_value(wire).unwrap(), v::ClientResult::CreateTask(_)));
    let plain =
        json!({ "content": [{ "type": "text", "text": "done" }], "structuredContent": { "rows": 3 } });
    let answer: <v::CallTool as RequestMethod>::Result = serde_json::from_value(plain).unwrap();
    assert!(matches!(answer, v::TaskAugmentedResult::Complete(v::CallToolResult { .. })));
}

#[test]
fn get_task_result_writes_unlimited_ttl_as_null_and_requires_it() {
    let mut wire = sample_task(Value::Null);
    wire["status"] = json!("completed");
    wire["_meta"] = json!({ "io.modelcontextprotocol/related-task": { "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840" } });
    let result: v::GetTaskResult = round_trip("GetTaskResult", wire.clone());
    assert_eq!(result.task.ttl, None);
    assert!(result.task.status.is_terminal());
    // `null` is written, never skipped.
    assert_eq!(serde_json::to_value(&result).unwrap()["ttl"], Value::Null);
    round_trip::<v::CancelTaskResult>("CancelTaskResult", wire.clone());
    let related = result.meta.as_ref().unwrap()[modelctx_protocol::meta::RELATED_TASK].clone();
    round_trip::<v::RelatedTaskMetadata>("RelatedTaskMetadata", related);
    assert!(matches!(serde_json::from_value(wire.clone()).unwrap(), v::ServerResult::GetTask(_)));
    // `ttl` is required.
    wire.as_object_mut().unwrap().remove("ttl");
    let error = serde_json::from_value::<v::GetTaskResult>(wire).unwrap_err();
    assert!(error.to_string().contains("ttl"), "{error}");
}

#[test]
fn a_task_without_ttl_does_not_validate() {
    let mut task = sample_task(json!(null));
    assert_eq!(schema_errors(schema(), "Task", &task), None);
    task.as_object_mut().unwrap().remove("ttl");
    assert!(schema_errors(schema(), "Task", &task).is_some(), "a task without ttl must not validate");
}

#[test]
fn server_result_union_tells_results_apart_by_their_members() {
    let cases = [
        (json!({}), "Empty"),
        (json!({ "_meta": { "com.example/x": 1 } }), "Empty"),
        (
            json!({ "tools": [{ "name": "search", "inputSchema": { "type": "object" } }], "nextCursor": "2" }),
            "ListTools",
        ),
        (json!({ "content": [{ "type": "text", "text": "ok" }], "isError": false }), "CallTool"),
        (
            json!({ "contents": [{ "uri": "file:///a.txt", "text": "hi", "mimeType": "text/plain" }] }),
            "ReadResource",
        ),
        (json!({ "resources": [{ "uri": "file:///a.txt", "name": "a" }] }), "ListResources"),
        (
            json!({ "resourceTemplates": [{ "uriTemplate": "file:///{path}", "name": "files" }] }),
            "ListResourceTemplates",
        ),
        (
            json!({ "prompts": [{ "name": "review", "arguments": [{ "name": "code", "required": true }] }] }),
            "ListPrompts",
        ),
        (
            json!({ "description": "Review", "messages": [{ "role": "user", "content": { "type": "text", "text": "Review this" } }] }),
            "GetPrompt",
        ),
        (
            json!({ "completion": { "values": ["python", "pytorch"], "total": 10, "hasMore": true } }),
            "Complete",
        ),
        (json!({ "tasks": [sample_task(json!(null))], "nextCursor": "next" }), "ListTasks"),
        (json!({ "weather": "sunny", "_meta": {} }), "Other"),
    ];
    for (wire, expected) in cases {
        let result: v::ServerResult = round_trip("ServerResult", wire);
        let variant = format!("{result:?}");
        assert!(variant.starts_with(expected), "expected {expected}, got {variant}");
    }
}

#[test]
fn client_and_server_notifications_round_trip() {
    let client = [
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "reason": "user closed the dialog" } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": 7, "progress": 0.5, "total": 2.5 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/tasks/status", "params": sample_task(json!(null)) }),
    ];
    for wire in client {
        round_trip::<v::ClientNotification>("ClientNotification", wire);
    }
    round_trip::<v::ServerNotification>(
        "ServerNotification",
        json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "error", "logger": "db", "data": { "error": "timeout" } } }),
    );
}

#[test]
fn client_result_union_tells_results_apart_by_their_members() {
    let results = [
        (
            json!({ "action": "accept", "content": { "name": "octocat", "stars": 3, "tags": ["a"] }, "_meta": {} }),
            "Elicit",
        ),
        (
            json!({ "roots": [{ "uri": "file:///home/user/project", "name": "project" }], "_meta": { "k": "v" } }),
            "ListRoots",
        ),
        (json!({}), "Empty"),
    ];
    for (wire, expected) in results {
        let result: v::ClientResult = round_trip("ClientResult", wire);
        let variant = format!("{result:?}");
        assert!(variant.starts_with(expected), "expected {expected}, got {variant}");
    }
}
