//! `everything`: a reference server that exercises every feature modelctx serves, for
//! trying clients and for the demo and tests.

use std::time::Duration;

use modelctx::protocol::apps::Visibility;
use modelctx::protocol::types::{
    ContentBlock, ImageContent, ImageType, Implementation, LoggingLevel, PromptMessage, Role, ToolAnnotations,
};
use modelctx::server::apps::AppResource;
use modelctx::server::{
    Args, CompletionRequest, Json, PromptDef, PromptError, PromptRequest, RequestContext, ResourceDef,
    ResourceError, ResourceRequest, ResourceTemplateDef, Server, ServerBuilder, ToolDef, blob_contents,
    text_contents,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::conformance;

/// A 1×1 transparent PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00,
    0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01,
    0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The clock app (MCP Apps): shows the time a `clock` call returned, and asks the host for
/// `clock_refresh` when its button is pressed.
const CLOCK_APP: &str = "ui://everything/clock.html";

/// The clock app's document.
const CLOCK_HTML: &str = r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Clock</title></head>
<body>
<p>Server time: <output id="time">waiting for the tool result</output></p>
<button id="refresh" type="button">Refresh</button>
<script>
const time = document.getElementById("time");
let next = 1;
function show(result) {
  const text = result && result.content && result.content.find(c => c.type === "text");
  if (text) time.textContent = text.text;
}
window.addEventListener("message", event => {
  const message = event.data || {};
  if (message.method === "ui/notifications/tool-result") show(message.params);
  else if (message.result) show(message.result);
});
document.getElementById("refresh").addEventListener("click", () => {
  window.parent.postMessage({jsonrpc: "2.0", id: next++, method: "tools/call",
    params: {name: "clock_refresh", arguments: {}}}, "*");
});
</script>
</body>
</html>
"#;

/// The server's clock, as text: seconds since the Unix epoch.
async fn clock_now() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format!("{} seconds since the Unix epoch", now.as_secs())
}

/// `echo` arguments.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The message to send back.
    message: String,
}

/// `add` arguments.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
}

/// `add` output.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

/// `long_running_operation` arguments.
#[derive(Deserialize, JsonSchema)]
struct LongRunningArgs {
    /// How many steps to report.
    #[serde(default = "default_steps")]
    steps: u32,
    /// Milliseconds per step.
    #[serde(default = "default_step_ms")]
    step_ms: u64,
}

fn default_steps() -> u32 {
    5
}

fn default_step_ms() -> u64 {
    50
}

async fn long_running(ctx: RequestContext, Args(args): Args<LongRunningArgs>) -> String {
    let steps = args.steps.min(1000);
    // Cancellation drops this future at its next await; nothing to clean up.
    for step in 1..=steps {
        tokio::time::sleep(Duration::from_millis(args.step_ms.min(10_000))).await;
        ctx.progress(f64::from(step), Some(f64::from(steps)), Some(format!("step {step} of {steps}"))).await;
        ctx.log(LoggingLevel::Info, Some("everything"), json!({"step": step, "of": steps})).await;
    }
    format!("finished {steps} steps")
}

fn image() -> ContentBlock {
    use base64::Engine;
    ContentBlock::Image(ImageContent {
        kind: ImageType,
        data: base64::engine::general_purpose::STANDARD.encode(PIXEL_PNG),
        mime_type: "image/png".into(),
        annotations: None,
        meta: None,
    })
}

const COLORS: [&str; 6] = ["red", "orange", "yellow", "green", "blue", "violet"];

async fn complete_color(request: CompletionRequest) -> Vec<String> {
    COLORS.iter().filter(|c| c.starts_with(&request.value)).map(|c| (*c).to_owned()).collect()
}

async fn greeting(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let name = request.arguments.get("name").cloned().unwrap_or_default();
    if name.trim().is_empty() {
        return Err(PromptError::InvalidArguments("name must not be empty".into()));
    }
    let color =
        request.arguments.get("color").map_or(String::new(), |c| format!(" Your favourite colour is {c}."));
    Ok(vec![PromptMessage {
        role: Role::User,
        content: ContentBlock::text(format!("Please greet {name} warmly.{color}")),
    }])
}

async fn item(request: ResourceRequest) -> Result<Vec<modelctx::protocol::types::TextOrBlob>, ResourceError> {
    let id: u32 = request.variable("id")?;
    if id > 1000 {
        return Err(ResourceError::NotFound);
    }
    let item = json!({"id": id, "name": format!("item {id}")});
    Ok(vec![text_contents(request.uri.clone(), Some("application/json"), item.to_string())])
}

/// A tool that only reads and reaches nothing outside the server.
fn pure() -> ToolAnnotations {
    ToolAnnotations { read_only_hint: Some(true), open_world_hint: Some(false), ..Default::default() }
}

// ANCHOR: tools
/// `echo`: returns the message it is given.
pub fn echo() -> ToolDef {
    ToolDef::new("echo", |Args(EchoArgs { message }): Args<EchoArgs>| async move { message })
        .title("Echo")
        .description("Returns the message it is given")
        .annotations(pure())
}

/// `add`: the sum of two numbers, as text and as structured content.
pub fn add() -> ToolDef {
    ToolDef::new("add", |Args(AddArgs { a, b }): Args<AddArgs>| async move { Json(Sum { sum: a + b }) })
        .title("Add")
        .description("Adds two numbers; the sum comes as text and as structured content")
        .annotations(pure())
}
// ANCHOR_END: tools

/// The `everything` server, not yet built: modelctx's own definitions and the conformance
/// suite's fixtures. The caller may set more (such as the `requestState` keys) before
/// `build()`.
pub fn builder() -> ServerBuilder {
    conformance::register(own_definitions())
}

/// The tools, resources and prompts of the `everything` server that are modelctx's own.
fn own_definitions() -> ServerBuilder {
    Server::with_info(Implementation {
        title: Some("modelctx everything".into()),
        description: Some("A reference server that exercises every feature modelctx serves".into()),
        ..Implementation::new("modelctx-everything", env!("CARGO_PKG_VERSION"))
    })
    .instructions(
        "Try echo and add first; long_running_operation reports progress and logs. \
         The test_* tools, resources and prompts are the fixtures of the MCP conformance suite.",
    )
    .tool(echo())
    .tool(add())
    .tool(
        ToolDef::new("long_running_operation", long_running)
            .description("Takes a number of steps, reporting progress and log messages; can be cancelled"),
    )
    .tool(
        ToolDef::new("get_image", || async { vec![ContentBlock::text("A 1×1 transparent PNG:"), image()] })
            .description("Returns a small image")
            .annotations(pure()),
    )
    .tool(
        ToolDef::new("fail", || async {
            Err::<String, _>("this tool always fails, as a tool error the model sees")
        })
        .description("Always fails with a tool error (isError: true)"),
    )
    .app(AppResource::new(CLOCK_APP, "clock", CLOCK_HTML).description("Shows the server's clock"))
    .tool(
        ToolDef::new("clock", clock_now)
            .description("The server's time, with an app (MCP Apps) that shows it")
            .annotations(pure())
            .ui(CLOCK_APP)
            .visibility(&[Visibility::Model]),
    )
    .tool(
        ToolDef::new("clock_refresh", clock_now)
            .description("The clock app's refresh button; only the app calls it")
            .annotations(pure())
            .ui(CLOCK_APP)
            .visibility(&[Visibility::App]),
    )
    .resource(
        ResourceDef::text("everything://readme", "readme", "This is the everything server of modelctx.")
            .title("Read me")
            .description("A plain text resource"),
    )
    .resource(
        ResourceDef::new("everything://pixel.png", "pixel", |request: ResourceRequest| async move {
            Ok(vec![blob_contents(request.uri, Some("image/png"), PIXEL_PNG)])
        })
        .mime_type("image/png")
        .description("A binary resource"),
    )
    .resource_template(
        ResourceTemplateDef::new("everything://items/{id}", "item", item)
            .mime_type("application/json")
            .description("Items 0 to 1000")
            .complete("id", |request: CompletionRequest| async move {
                (0..=1000).map(|n| n.to_string()).filter(|n| n.starts_with(&request.value)).collect()
            }),
    )
    .prompt(
        PromptDef::new("greeting", greeting)
            .description("Asks the model to greet someone")
            .argument("name", "Who to greet", true)
            .argument("color", "Their favourite colour", false)
            .complete("color", complete_color),
    )
}
