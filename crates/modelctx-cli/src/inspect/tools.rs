//! `modelctx tools list|call`.

use clap::{Args, Subcommand};
use modelctx::client::{Client, Started};
use modelctx::host::Risk;
use modelctx::protocol::apps::{ToolUi, Visibility};
use modelctx::protocol::model::{CallToolResult, Tool};
use serde_json::{Value, json};

use super::arguments;
use super::content::block_text;
use super::exit::{EXIT_STATUS_HELP, Failure};
use super::interactive::ProgressDisplay;
use super::output::{DIM, OutputArgs, RED, first_line, out, print_json, print_listing};
use super::{ServerArgs, Target, drive};

/// `modelctx tools …`.
#[derive(Subcommand)]
pub enum ToolsCommand {
    /// List the server's tools: name, arguments (* = required), hints and description.
    ///
    /// Examples:
    ///   modelctx tools list -- modelctx serve everything
    ///   modelctx tools list --url http://127.0.0.1:8080/mcp --json
    #[command(verbatim_doc_comment)]
    List(ServerArgs),
    /// Call a tool. Arguments are KEY=VALUE pairs typed by the tool's input schema (n=3 is a
    /// number when the schema says number), KEY:=JSON for a raw JSON value, or a whole
    /// '{…}' object. On a terminal, progress shows as a bar and the server's questions
    /// (elicitation) as prompts.
    ///
    /// Examples:
    ///   modelctx tools call add a=2 b=40 -- modelctx serve everything
    ///   modelctx tools call echo message='hello there' --url http://127.0.0.1:8080/mcp
    ///   modelctx tools call add '{"a": 2, "b": 40}' --json -- modelctx serve everything
    #[command(verbatim_doc_comment, after_help = EXIT_STATUS_HELP)]
    Call(CallArgs),
}

/// Arguments of `modelctx tools call`.
#[derive(Args)]
pub struct CallArgs {
    /// The tool.
    name: String,
    /// KEY=VALUE, KEY:=JSON or '{…}'.
    #[arg(value_name = "ARGUMENT")]
    arguments: Vec<String>,
    /// An argument as KEY=VALUE, as the MCP Inspector takes it (repeatable).
    #[arg(long = "tool-arg", value_name = "KEY=VALUE")]
    tool_args: Vec<String>,
    /// With --tasks: when the server runs the call as a task, print the task's id and
    /// leave it running (see `modelctx tasks get|cancel`) instead of following it.
    #[arg(long, requires = "tasks")]
    detach: bool,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

/// The argument names of `tool`, `*` marking the required ones.
pub fn argument_summary(tool: &Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    properties
        .map(|p| {
            p.keys()
                .map(|name| if required.contains(&name.as_str()) { format!("{name}*") } else { name.clone() })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The behaviour hints worth a glance: read-only, or what makes a host ask before calling
/// (destructive, open-world — absent hints count as the spec's defaults), and the app the
/// tool shows (MCP Apps' `_meta.ui.resourceUri`) when it has one.
pub fn hints(tool: &Tool) -> String {
    let annotations = tool.annotations.as_ref();
    let risk = Risk::of(annotations);
    let mut hints = Vec::new();
    if annotations.and_then(|a| a.read_only_hint) == Some(true) {
        hints.push("read-only");
    }
    if risk.destructive {
        hints.push("destructive");
    }
    if risk.open_world {
        hints.push("open-world");
    }
    let mut hints: Vec<String> = hints.into_iter().map(str::to_owned).collect();
    if let Some(ui) = ToolUi::of(tool.meta.as_ref()) {
        if let Some(uri) = &ui.resource_uri {
            hints.push(format!("app {uri}"));
        }
        if !ui.visible_to(Visibility::Model) {
            hints.push("app only".into());
        }
    }
    hints.join(", ")
}

async fn list(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    let tools = client.list_tools().await?;
    print_listing(&tools, output, &["TOOL", "ARGUMENTS", "HINTS", "DESCRIPTION"], |tool| {
        vec![tool.name.clone(), argument_summary(tool), hints(tool), first_line(tool.description.as_deref())]
    });
    Ok(())
}

async fn call(client: &Client, args: &CallArgs) -> Result<(), Failure> {
    let tools = client.list_tools().await?;
    let schema = tools.iter().find(|t| t.name == args.name).map(|t| &t.input_schema);
    let items: Vec<String> = args.arguments.iter().chain(&args.tool_args).cloned().collect();
    let arguments = arguments::build(&items, schema)?;
    if args.detach {
        return match client.start_tool(&args.name, Value::Object(arguments)).await? {
            Started::Done(result) => print_result(&result, args.output.json),
            Started::Task(id) => {
                if args.output.json {
                    print_json(&json!({"taskId": id}));
                } else {
                    out!("{id}");
                }
                Ok(())
            }
        };
    }
    let bar = ProgressDisplay::new(&args.name);
    let result =
        client.call_tool_with_progress(&args.name, Value::Object(arguments), |p| bar.update(&p)).await;
    bar.finish();
    print_result(&result?, args.output.json)
}

/// Prints a tool's result: JSON, or its content as text with the structured content after
/// it. A tool that reported an error is [`Failure::ToolError`] (exit status 1).
pub fn print_result(result: &CallToolResult, json: bool) -> Result<(), Failure> {
    let failed = result.is_error == Some(true);
    if json {
        print_json(&json!({
            "content": result.content,
            "structuredContent": result.structured_content,
            "isError": failed,
        }));
    } else {
        if failed {
            anstream::eprintln!("{RED}the tool reported an error:{RED:#}");
        }
        for block in &result.content {
            out!("{}", block_text(block));
        }
        if let Some(structured) = &result.structured_content {
            out!("{DIM}structured content:{DIM:#}");
            print_json(structured);
        }
    }
    if failed { Err(Failure::ToolError) } else { Ok(()) }
}

/// Runs `modelctx tools …`.
pub fn run(command: &ToolsCommand) -> std::process::ExitCode {
    match command {
        ToolsCommand::List(args) => drive(&args.target, async |client| list(client, args.output).await),
        ToolsCommand::Call(args) => drive(&args.target, async |client| call(client, args).await),
    }
}
