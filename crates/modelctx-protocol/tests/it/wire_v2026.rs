//! The 2026-07-28 wire, proven against the official schema and examples:
//! every definition has a Rust type; every example parses into the type its folder names and
//! serialises back to equal JSON that validates; and generated instances of every
//! definition (required members only, then every member) survive the same round trip.

use crate::support::{Entry, json_eq, schema, schema_errors};
use modelctx_protocol::jsonrpc::Message;
use modelctx_protocol::v2026::*;
use modelctx_protocol::{JsonObject, ProtocolVersion};
use serde_json::Value;

const REVISION: &str = "2026-07-28";

fn registry() -> Vec<Entry> {
    registry![
        "Annotations" => Annotations,
        "AudioContent" => AudioContent,
        "BaseMetadata" => BaseMetadata,
        "BlobResourceContents" => BlobResourceContents,
        "BooleanSchema" => BooleanSchema,
        "CacheableResult" => CacheableResult,
        "CallToolRequest" => CallToolRequest,
        "CallToolRequestParams" => CallToolRequestParams,
        "CallToolResult" => CallToolResult,
        "CallToolResultResponse" => CallToolResultResponse,
        "CancelledNotification" => CancelledNotification,
        "CancelledNotificationParams" => CancelledNotificationParams,
        "ClientCapabilities" => ClientCapabilities,
        "ClientNotification" => ClientNotification,
        "ClientRequest" => ClientRequest,
        "ClientResult" => ClientResult,
        "CompleteRequest" => CompleteRequest,
        "CompleteRequestParams" => CompleteRequestParams,
        "CompleteResult" => CompleteResult,
        "CompleteResultResponse" => CompleteResultResponse,
        "ContentBlock" => ContentBlock,
        "CreateMessageRequest" => CreateMessageRequest,
        "CreateMessageRequestParams" => CreateMessageRequestParams,
        "CreateMessageResult" => CreateMessageResult,
        "Cursor" => String,
        "DiscoverRequest" => DiscoverRequest,
        "DiscoverResult" => DiscoverResult,
        "DiscoverResultResponse" => DiscoverResultResponse,
        "ElicitRequest" => ElicitRequest,
        "ElicitRequestFormParams" => ElicitRequestFormParams,
        "ElicitRequestParams" => ElicitRequestParams,
        "ElicitRequestURLParams" => ElicitRequestURLParams,
        "ElicitResult" => ElicitResult,
        "EmbeddedResource" => EmbeddedResource,
        "EmptyResult" => EmptyResult,
        "EnumSchema" => EnumSchema,
        "Error" => Error,
        "GetPromptRequest" => GetPromptRequest,
        "GetPromptRequestParams" => GetPromptRequestParams,
        "GetPromptResult" => GetPromptResult,
        "GetPromptResultResponse" => GetPromptResultResponse,
        "HeaderMismatchError" => HeaderMismatchError,
        "Icon" => Icon,
        "Icons" => Icons,
        "ImageContent" => ImageContent,
        "Implementation" => Implementation,
        "InputRequest" => InputRequest,
        "InputRequests" => InputRequests,
        "InputRequiredResult" => InputRequiredResult,
        "InputResponse" => InputResponse,
        "InputResponseRequestParams" => InputResponseRequestParams,
        "InputResponses" => InputResponses,
        "InternalError" => InternalError,
        "InvalidParamsError" => InvalidParamsError,
        "InvalidRequestError" => InvalidRequestError,
        "JSONArray" => Vec<Value>,
        "JSONObject" => JsonObject,
        "JSONRPCErrorResponse" => Message,
        "JSONRPCMessage" => Message,
        "JSONRPCNotification" => Message,
        "JSONRPCRequest" => Message,
        "JSONRPCResponse" => Message,
        "JSONRPCResultResponse" => Message,
        "JSONValue" => Value,
        "LegacyTitledEnumSchema" => LegacyTitledEnumSchema,
        "ListPromptsRequest" => ListPromptsRequest,
        "ListPromptsResult" => ListPromptsResult,
        "ListPromptsResultResponse" => ListPromptsResultResponse,
        "ListResourceTemplatesRequest" => ListResourceTemplatesRequest,
        "ListResourceTemplatesResult" => ListResourceTemplatesResult,
        "ListResourceTemplatesResultResponse" => ListResourceTemplatesResultResponse,
        "ListResourcesRequest" => ListResourcesRequest,
        "ListResourcesResult" => ListResourcesResult,
        "ListResourcesResultResponse" => ListResourcesResultResponse,
        "ListRootsRequest" => ListRootsRequest,
        "ListRootsResult" => ListRootsResult,
        "ListToolsRequest" => ListToolsRequest,
        "ListToolsResult" => ListToolsResult,
        "ListToolsResultResponse" => ListToolsResultResponse,
        "LoggingLevel" => LoggingLevel,
        "LoggingMessageNotification" => LoggingMessageNotification,
        "LoggingMessageNotificationParams" => LoggingMessageNotificationParams,
        "MetaObject" => MetaObject,
        "MethodNotFoundError" => MethodNotFoundError,
        "MissingRequiredClientCapabilityError" => MissingRequiredClientCapabilityError,
        "ModelHint" => ModelHint,
        "ModelPreferences" => ModelPreferences,
        "MultiSelectEnumSchema" => MultiSelectEnumSchema,
        "Notification" => modelctx_protocol::jsonrpc::MethodAndParams,
        "NotificationMetaObject" => NotificationMetaObject,
        "NotificationParams" => NotificationParams,
        "NumberSchema" => NumberSchema,
        "PaginatedRequest" => PaginatedRequest,
        "PaginatedRequestParams" => PaginatedRequestParams,
        "PaginatedResult" => PaginatedResult,
        "ParseError" => ParseError,
        "PrimitiveSchemaDefinition" => PrimitiveSchemaDefinition,
        "ProgressNotification" => ProgressNotification,
        "ProgressNotificationParams" => ProgressNotificationParams,
        "ProgressToken" => ProgressToken,
        "Prompt" => Prompt,
        "PromptArgument" => PromptArgument,
        "PromptListChangedNotification" => PromptListChangedNotification,
        "PromptMessage" => PromptMessage,
        "PromptReference" => PromptReference,
        "ReadResourceRequest" => ReadResourceRequest,
        "ReadResourceRequestParams" => ReadResourceRequestParams,
        "ReadResourceResult" => ReadResourceResult,
        "ReadResourceResultResponse" => ReadResourceResultResponse,
        "Request" => modelctx_protocol::jsonrpc::MethodAndParams,
        "RequestId" => RequestId,
        "RequestMetaObject" => RequestMetaObject,
        "RequestParams" => RequestParams,
        "Resource" => Resource,
        "ResourceContents" => ResourceContents,
        "ResourceLink" => ResourceLink,
        "ResourceListChangedNotification" => ResourceListChangedNotification,
        "ResourceRequestParams" => ResourceRequestParams,
        "ResourceTemplate" => ResourceTemplate,
        "ResourceTemplateReference" => ResourceTemplateReference,
        "ResourceUpdatedNotification" => ResourceUpdatedNotification,
        "ResourceUpdatedNotificationParams" => ResourceUpdatedNotificationParams,
        "Result" => EmptyResult,
        "ResultMetaObject" => ResultMetaObject,
        "ResultType" => ResultType,
        "Role" => Role,
        "Root" => Root,
        "SamplingMessage" => SamplingMessage,
        "SamplingMessageContentBlock" => SamplingMessageContentBlock,
        "ServerCapabilities" => ServerCapabilities,
        "ServerNotification" => ServerNotification,
        "ServerResult" => ServerResult,
        "SingleSelectEnumSchema" => SingleSelectEnumSchema,
        "StringSchema" => StringSchema,
        "SubscriptionFilter" => SubscriptionFilter,
        "SubscriptionsAcknowledgedNotification" => SubscriptionsAcknowledgedNotification,
        "SubscriptionsAcknowledgedNotificationParams" => SubscriptionsAcknowledgedNotificationParams,
        "SubscriptionsListenRequest" => SubscriptionsListenRequest,
        "SubscriptionsListenRequestParams" => SubscriptionsListenRequestParams,
        "SubscriptionsListenResult" => SubscriptionsListenResult,
        "SubscriptionsListenResultMetaObject" => SubscriptionsListenResultMetaObject,
        "SubscriptionsListenResultResponse" => SubscriptionsListenResultResponse,
        "TextContent" => TextContent,
        "TextResourceContents" => TextResourceContents,
        "TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema,
        "TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema,
        "Tool" => Tool,
        "ToolAnnotations" => ToolAnnotations,
        "ToolChoice" => ToolChoice,
        "ToolListChangedNotification" => ToolListChangedNotification,
        "ToolResultContent" => ToolResultContent,
        "ToolUseContent" => ToolUseContent,
        "UnsupportedProtocolVersionError" => UnsupportedProtocolVersionError,
        "UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema,
        "UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema,
    ]
}

#[test]
fn every_schema_definition_has_a_rust_type() {
    crate::support::assert_registry_complete(&crate::support::schema(REVISION), &registry());
}

/// Examples that contradict `schema.ts`, with the spec-correct form we expect back instead.
/// Each fix must change its example, so a corrected spec makes this list fail loudly.
/// An example file, why it contradicts the schema, and the fix that makes it spec-correct.
type ExampleDefect = (&'static str, &'static str, fn(&mut Value));

const EXAMPLE_DEFECTS: &[ExampleDefect] = &[(
    "list-roots-request.json",
    "2026-07-28 input requests are `{method, params}` without a JSON-RPC id (schema.ts \
     `ListRootsRequest`); the example still carries the 2025-11-25 `id`",
    |example| {
        example.as_object_mut().unwrap().remove("id");
    },
)];

fn expected_round_trip(file: &std::path::Path, example: &Value) -> Value {
    let name = file.file_name().unwrap().to_string_lossy();
    let mut expected = example.clone();
    if let Some((_, why, fix)) = EXAMPLE_DEFECTS.iter().find(|(defect, _, _)| *defect == name) {
        fix(&mut expected);
        assert_ne!(
            &expected, example,
            "{name} no longer has the defect ({why}): drop it from EXAMPLE_DEFECTS"
        );
    }
    expected
}

#[test]
fn every_example_round_trips_to_equal_json_that_validates() {
    let schema = schema(REVISION);
    let registry = registry();
    let examples = crate::support::examples();
    assert_eq!(examples.len(), 129, "the spec ships 129 examples");
    let mut failures = Vec::new();
    for (definition, file, value) in &examples {
        let entry = crate::support::entry(&registry, definition);
        let expected = expected_round_trip(file, value);
        match (entry.roundtrip)(value.clone()) {
            Ok(back) if json_eq(&back, &expected) => {
                if let Some(errors) = schema_errors(&schema, definition, &back) {
                    failures.push(format!("{}: serialised output invalid: {errors}", file.display()));
                }
            }
            Ok(back) => failures.push(format!(
                "{} as {}: changed in the round trip:\n  in:  {value}\n  out: {back}",
                file.display(),
                entry.rust_type
            )),
            Err(e) => failures.push(format!("{} as {}: {e}", file.display(), entry.rust_type)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_instances_of_every_definition_round_trip_and_validate() {
    crate::support::assert_generated_instances_round_trip(
        &crate::support::schema(REVISION),
        &registry(),
        REVISION,
    );
}

#[test]
fn typed_constructors_serialise_to_valid_messages() {
    let schema = schema(REVISION);
    let meta = RequestMetaObject::new(ProtocolVersion::V2026_07_28, ClientCapabilities::default());
    let request = CallToolRequest::new(
        7,
        CallToolRequestParams {
            meta,
            name: "echo".into(),
            arguments: Some(serde_json::from_str(r#"{"text":"hi"}"#).unwrap()),
            input_responses: None,
            request_state: None,
        },
    );
    let value = serde_json::to_value(&request).unwrap();
    assert_eq!(schema_errors(&schema, "CallToolRequest", &value), None);
    assert_eq!(value["method"], "tools/call");
    let result = CallToolResultResponse::new(
        7,
        MultiRoundResult::Complete(CallToolResult {
            content: vec![ContentBlock::text("hi")],
            ..Default::default()
        }),
    );
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(value["result"]["resultType"], "complete");
    assert_eq!(schema_errors(&schema, "CallToolResultResponse", &value), None);
}
