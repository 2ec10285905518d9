//! Tools whose results the suite inspects: text, image, audio, embedded resources, mixed
//! content, log messages, progress, tool errors, JSON Schema 2020-12 keywords and an
//! `x-mcp-header` parameter.

use std::time::Duration;

use modelctx::protocol::JsonObject;
use modelctx::protocol::types::{ContentBlock, EmbeddedResource, EmbeddedResourceType, LoggingLevel};
use modelctx::server::{Args, RequestContext, ServerBuilder, ToolDef, text_contents};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{LOGGER, audio_block, image_block};

/// The pause between the notifications of the logging and progress tools, so a client sees
/// them arrive while the tool runs.
const STEP: Duration = Duration::from_millis(50);

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("test_simple_text", || async { "This is a simple text response for testing." })
                .description("Returns one text block (tools-call-simple-text)"),
        )
        .tool(
            ToolDef::new("test_image_content", || async { image_block() })
                .description("Returns a 1x1 red PNG as image content (tools-call-image)"),
        )
        .tool(
            ToolDef::new("test_audio_content", || async { audio_block() })
                .description("Returns a short silent WAV as audio content (tools-call-audio)"),
        )
        .tool(
            ToolDef::new("test_embedded_resource", || async {
                embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")
            })
            .description("Returns an embedded text resource (tools-call-embedded-resource)"),
        )
        .tool(
            ToolDef::new("test_multiple_content_types", || async {
                vec![
                    ContentBlock::text("Multiple content types test:"),
                    image_block(),
                    embedded(
                        "test://mixed-content-resource",
                        "application/json",
                        &json!({"test": "data", "value": 123}).to_string(),
                    ),
                ]
            })
            .description("Returns text, image and embedded resource content (tools-call-mixed-content)"),
        )
        .tool(
            ToolDef::new("test_tool_with_logging", with_logging)
                .description("Sends three info log messages while it runs (tools-call-with-logging)"),
        )
        .tool(
            ToolDef::new("test_tool_with_progress", with_progress)
                .description("Reports progress 0, 50 and 100 of 100 (tools-call-with-progress)"),
        )
        .tool(
            ToolDef::new("test_error_handling", || async {
                Err::<String, _>("This tool intentionally returns an error for testing")
            })
            .description("Always fails with a tool error, isError: true (tools-call-error)"),
        )
        .tool(
            ToolDef::new("json_schema_2020_12_tool", |Args(arguments): Args<JsonObject>| async move {
                format!("JSON Schema 2020-12 tool called with: {}", Value::Object(arguments))
            })
            .input_schema(json_schema_2020_12())
            .description("Tool with JSON Schema 2020-12 features (json-schema-2020-12)"),
        )
        .tool(
            ToolDef::new(
                "test_custom_header",
                |Args(CustomHeaderArgs { region }): Args<CustomHeaderArgs>| async move {
                    format!("Routed to region {region}")
                },
            )
            .description(
                "Takes a region an HTTP client mirrors into the Mcp-Param-Region header \
                 (x-mcp-header; http-custom-header-server-validation)",
            ),
        )
}

/// An embedded text resource.
fn embedded(uri: &str, mime_type: &str, text: &str) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        kind: EmbeddedResourceType,
        resource: text_contents(uri, Some(mime_type), text),
        annotations: None,
        meta: None,
    })
}

async fn with_logging(ctx: RequestContext) -> &'static str {
    let messages = ["Tool execution started", "Tool processing data", "Tool execution completed"];
    for (step, message) in messages.into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.log(LoggingLevel::Info, Some(LOGGER), json!(message)).await;
    }
    "Tool with logging executed successfully"
}

async fn with_progress(ctx: RequestContext) -> &'static str {
    for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(progress, Some(100.0), Some(format!("Completed step {progress} of 100"))).await;
    }
    "Progress reported: 0, 50 and 100 of 100"
}

/// The `inputSchema` the suite expects of `json_schema_2020_12_tool`: `$schema`, `$defs` with
/// an `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties`.
fn json_schema_2020_12() -> JsonObject {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    match schema {
        Value::Object(schema) => schema,
        _ => unreachable!("a literal object"),
    }
}

/// `test_custom_header` arguments.
#[derive(Deserialize, JsonSchema)]
struct CustomHeaderArgs {
    /// The region to route the call to.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}
