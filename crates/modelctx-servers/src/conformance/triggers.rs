//! Hooks that change the server while it runs, so the suite (and our tests) can watch the
//! notifications: `test_trigger_tool_change` and `test_trigger_prompt_change` (the
//! `server-stateless` list-changed checks) and `test_trigger_resource_update` (ours: it makes
//! `test://watched-resource` change, for `resources/subscribe` and `subscriptions/listen`).
//! Each reaches its own server through `ctx.server()`.

use modelctx::protocol::types::{ContentBlock, PromptMessage, Role};
use modelctx::server::{PromptDef, PromptRequest, RequestContext, ServerBuilder, State, ToolDef};

use super::resources::{WATCHED_URI, WatchedRevision};

/// The tool `test_trigger_tool_change` adds and removes.
const DYNAMIC_TOOL: &str = "test_dynamic_tool";

/// The prompt `test_trigger_prompt_change` adds and removes.
const DYNAMIC_PROMPT: &str = "test_dynamic_prompt";

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(ToolDef::new("test_trigger_tool_change", trigger_tool_change).description(
            "Adds test_dynamic_tool, or removes it when present; listeners hear \
                 notifications/tools/list_changed (server-stateless)",
        ))
        .tool(ToolDef::new("test_trigger_prompt_change", trigger_prompt_change).description(
            "Adds the prompt test_dynamic_prompt, or removes it when present; listeners hear \
                 notifications/prompts/list_changed (server-stateless)",
        ))
        .tool(
            ToolDef::new("test_trigger_resource_update", trigger_resource_update).description(
                "Changes test://watched-resource; subscribers hear notifications/resources/updated",
            ),
        )
        .tool(ToolDef::new("test_reconnection", reconnection).description(
            "Releases its response stream mid-call, then answers: a 2025-11-25 HTTP client \
                 resumes with Last-Event-ID to get the answer (server-sse-polling)",
        ))
}

/// Releases the stream (SSE polling), waits long enough for the client to notice, answers.
async fn reconnection(ctx: RequestContext) -> &'static str {
    ctx.release_stream();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    "Reconnection test completed successfully"
}

fn dynamic_tool() -> ToolDef {
    ToolDef::new(DYNAMIC_TOOL, || async { "This tool comes and goes with test_trigger_tool_change." })
        .description("Added and removed by test_trigger_tool_change")
}

fn dynamic_prompt() -> PromptDef {
    PromptDef::new(DYNAMIC_PROMPT, |_: PromptRequest| async {
        Ok(vec![PromptMessage {
            role: Role::User,
            content: ContentBlock::text("This prompt comes and goes with test_trigger_prompt_change."),
        }])
    })
    .title("Dynamic Prompt")
    .description("Added and removed by test_trigger_prompt_change")
}

async fn trigger_tool_change(ctx: RequestContext) -> Result<String, String> {
    let server = ctx.server();
    if server.remove_tool(DYNAMIC_TOOL) {
        return Ok(format!("Removed {DYNAMIC_TOOL}"));
    }
    server.add_tool(dynamic_tool()).map_err(|e| e.to_string())?;
    Ok(format!("Added {DYNAMIC_TOOL}"))
}

async fn trigger_prompt_change(ctx: RequestContext) -> Result<String, String> {
    let server = ctx.server();
    if server.remove_prompt(DYNAMIC_PROMPT) {
        return Ok(format!("Removed {DYNAMIC_PROMPT}"));
    }
    server.add_prompt(dynamic_prompt()).map_err(|e| e.to_string())?;
    Ok(format!("Added {DYNAMIC_PROMPT}"))
}

async fn trigger_resource_update(ctx: RequestContext, State(revision): State<WatchedRevision>) -> String {
    let revision = revision.bump();
    ctx.server().resource_updated(WATCHED_URI);
    format!("{WATCHED_URI} is now at revision {revision}")
}
