//! `modelctx tasks list|get|result|cancel`: a server's tasks, by id, in either era (the
//! tasks extension of 2026-07-28, the core tasks of 2025-11-25).

use clap::Subcommand;
use modelctx::protocol::JsonObject;
use serde_json::Value;

use super::exit::Failure;
use super::output::{BOLD, OutputArgs, out, print_json, print_listing, shown};
use super::tools::print_result;
use super::{ServerArgs, Target, drive};

/// The `tasks` commands.
#[derive(Subcommand)]
pub enum TasksCommand {
    /// List your tasks (a 2025-11-25 server that declares `tasks.list`).
    List(ServerArgs),
    /// Show a task: its status, and its result, error or questions.
    ///
    /// Example:
    ///   modelctx tasks get 3f2a… --url http://127.0.0.1:8080/mcp
    #[command(verbatim_doc_comment)]
    Get(TaskArgs),
    /// Wait for a task's end and print its result as `tools call` does, answering its
    /// questions as they come (for up to an hour; the task goes on past it).
    Result(TaskArgs),
    /// Ask the server to cancel a task.
    Cancel(TaskArgs),
}

/// A task and its server.
#[derive(clap::Args)]
pub struct TaskArgs {
    /// The task's id (from `tools call --tasks --detach`).
    id: String,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

/// A member of a task's state, as text.
fn member<'a>(task: &'a JsonObject, name: &str) -> &'a str {
    task.get(name).and_then(Value::as_str).unwrap_or("")
}

/// Runs a `tasks` command; the requests ask for tasks (the 2026-07-28 server requires the
/// extension declared).
pub fn run(command: &TasksCommand) -> std::process::ExitCode {
    match command {
        TasksCommand::List(args) => drive(&args.target.declaring_tasks(), async |client| {
            let tasks = client.list_tasks().await?;
            print_listing(&tasks, args.output, &["TASK", "STATUS", "UPDATED", "MESSAGE"], |task| {
                ["taskId", "status", "lastUpdatedAt", "statusMessage"]
                    .iter()
                    .map(|name| shown(member(task, name), false).into_owned())
                    .collect()
            });
            Ok::<(), Failure>(())
        }),
        TasksCommand::Get(args) => drive(&args.target.declaring_tasks(), async |client| {
            let task = client.get_task(&args.id).await?;
            if args.output.json {
                print_json(&Value::Object(task));
            } else {
                out!("{BOLD}{}{BOLD:#} {}", shown(&args.id, false), shown(member(&task, "status"), false));
                for name in ["statusMessage", "result", "error", "inputRequests"] {
                    if let Some(value) = task.get(name) {
                        out!("{name}: {}", shown(&value.to_string(), false));
                    }
                }
            }
            Ok(())
        }),
        TasksCommand::Result(args) => drive(&args.target.declaring_tasks(), async |client| {
            print_result(&client.task_result(&args.id).await?, args.output.json)
        }),
        TasksCommand::Cancel(args) => drive(&args.target.declaring_tasks(), async |client| {
            client.cancel_task(&args.id).await?;
            if !args.output.json {
                out!("asked the server to cancel {}", shown(&args.id, false));
            }
            Ok(())
        }),
    }
}
