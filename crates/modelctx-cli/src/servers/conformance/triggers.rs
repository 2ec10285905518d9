//! Hooks that change the server while it runs, so the suite (and our tests) can watch the
//! notifications: `test_trigger_tool_change` (the `server-stateless` list-changed checks) and
//! `test_trigger_resource_update` (ours: it makes `test://watched-resource` change, for
//! `resources/subscribe` and `subscriptions/listen`).

use modelctx::server::{ServerBuilder, State, ToolDef};

use super::Live;
use super::resources::WATCHED_URI;

/// The tool `test_trigger_tool_change` adds and removes.
const DYNAMIC_TOOL: &str = "test_dynamic_tool";

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(ToolDef::new("test_trigger_tool_change", trigger_tool_change).description(
            "Adds test_dynamic_tool, or removes it when present; listeners hear \
                 notifications/tools/list_changed (server-stateless)",
        ))
        .tool(
            ToolDef::new("test_trigger_resource_update", trigger_resource_update).description(
                "Changes test://watched-resource; subscribers hear notifications/resources/updated",
            ),
        )
}

fn dynamic_tool() -> ToolDef {
    ToolDef::new(DYNAMIC_TOOL, || async { "This tool comes and goes with test_trigger_tool_change." })
        .description("Added and removed by test_trigger_tool_change")
}

async fn trigger_tool_change(State(live): State<Live>) -> Result<String, String> {
    let server = live.server()?;
    if server.remove_tool(DYNAMIC_TOOL) {
        return Ok(format!("Removed {DYNAMIC_TOOL}"));
    }
    server.add_tool(dynamic_tool()).map_err(|e| e.to_string())?;
    Ok(format!("Added {DYNAMIC_TOOL}"))
}

async fn trigger_resource_update(State(live): State<Live>) -> Result<String, String> {
    let server = live.server()?;
    let revision = live.bump_watched_revision();
    server.resource_updated(WATCHED_URI);
    Ok(format!("{WATCHED_URI} is now at revision {revision}"))
}
