//! Tools for the tasks extension's scenarios (`tasks-*`, SEP-2663): the names, arguments and
//! behaviours the suite calls. A client that declares the extension gets a task for each of
//! them but `greet`; `failing_job`, `protocol_error_job` and `test_tool_with_task` refuse other
//! clients with `-32021`.

use std::time::Duration;

use modelctx::protocol::jsonrpc::ErrorObject;
use modelctx::protocol::types::{ElicitAction, ElicitValue, LoggingLevel};
use modelctx::server::{
    Args, InputError, RequestContext, ServerBuilder, TaskSupport, ToolDef, ToolOutcome, error_result,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::form;

#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowCompute {
    /// How long the computation takes, in seconds (at most an hour).
    seconds: f64,
    /// A label for the computation.
    label: String,
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDelete {
    /// The file to delete.
    filename: String,
}

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("greet", |Args(Greet { name }): Args<Greet>| async move { format!("Hello, {name}!") })
                .description("Greets by name, at once; never a task (tasks-lifecycle, tasks-request-headers)"),
        )
        .tool(
            ToolDef::new("slow_compute", slow_compute)
                .description("Computes for the given seconds; a task for clients of the tasks extension")
                .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("failing_job", failing_job)
                .description("A job that always ends in a tool error; only as a task")
                .tasks(TaskSupport::Required),
        )
        .tool(
            ToolDef::new("protocol_error_job", protocol_error_job)
                .description("A job that always fails with a JSON-RPC error; only as a task")
                .tasks(TaskSupport::Required),
        )
        .tool(
            ToolDef::new("confirm_delete", confirm_delete)
                .description("Asks to confirm, then deletes (nothing: a fixture); a task")
                .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("multi_input", multi_input)
                .description("Asks two questions at once, then completes; a task")
                .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("test_tool_with_task", tool_with_task)
                .description("Asks the user's name as a round of the call, then works on as a task (tasks-mrtr-composition)")
                .tasks(TaskSupport::Required)
                .task_starts_in_handler(),
        )
}

/// Says what it computes in a log message (for clients that asked for info), then computes.
async fn slow_compute(
    ctx: RequestContext,
    Args(SlowCompute { seconds, label }): Args<SlowCompute>,
) -> String {
    ctx.log(LoggingLevel::Info, Some("slow_compute"), json!(format!("computing {label}"))).await;
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!("computed {label} after {seconds}s")
}

async fn failing_job() -> modelctx::protocol::model::CallToolResult {
    tokio::time::sleep(Duration::from_millis(200)).await;
    error_result("failing_job always reports a tool execution error")
}

async fn protocol_error_job() -> ToolOutcome<String> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    ToolOutcome(Err(ErrorObject::internal("protocol_error_job always fails with a JSON-RPC error")))
}

/// A form with the given boolean and string fields, none required.
fn question(message: &str) -> modelctx::protocol::model::ElicitRequest {
    form(
        message,
        json!({"type": "object", "properties": {"confirm": {"type": "boolean"}, "name": {"type": "string"}}}),
    )
}

async fn confirm_delete(
    ctx: RequestContext,
    Args(ConfirmDelete { filename }): Args<ConfirmDelete>,
) -> Result<String, InputError> {
    let answer = ctx.question("confirm").elicit(question(&format!("Delete {filename}?"))).await?;
    let confirmed = answer.action == ElicitAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .is_some_and(|v| v == &ElicitValue::Boolean(true));
    Ok(if confirmed { format!("Deleted {filename}") } else { format!("Kept {filename}") })
}

async fn multi_input(ctx: RequestContext) -> Result<String, InputError> {
    let (first, second) = tokio::join!(
        ctx.question("first").elicit(question("The first answer?")),
        ctx.question("second").elicit(question("The second answer?")),
    );
    let name = |answer: &modelctx::protocol::v2026::ElicitResult| match answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
    {
        Some(ElicitValue::String(name)) => name.clone(),
        _ => "nothing".into(),
    };
    Ok(format!("answered {} and {}", name(&first?), name(&second?)))
}

async fn tool_with_task(ctx: RequestContext) -> Result<String, InputError> {
    let form =
        form("What is your name?", json!({"type": "object", "properties": {"name": {"type": "string"}}}));
    let answer = ctx.question("user_name").elicit(form).await?;
    let name = answer
        .content
        .as_ref()
        .and_then(|content| {
            content.values().find_map(|v| match v {
                ElicitValue::String(name) => Some(name.clone()),
                _ => None,
            })
        })
        .unwrap_or_else(|| "stranger".into());
    ctx.continue_as_task().await;
    Ok(format!("Hello, {name}!"))
}
