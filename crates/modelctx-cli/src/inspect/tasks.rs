//! `modelctx tasks get|cancel ID`: a task of the tasks extension, by its id.

use clap::Subcommand;

use super::exit::Failure;
use super::output::{BOLD, OutputArgs, out, print_json, shown};
use super::{Target, drive};

/// The `tasks` commands.
#[derive(Subcommand)]
pub enum TasksCommand {
    /// Show a task: its status, and its result, error or questions.
    ///
    /// Example:
    ///   modelctx tasks get 3f2a… --url http://127.0.0.1:8080/mcp
    #[command(verbatim_doc_comment)]
    Get(TaskArgs),
    /// Ask the server to cancel a task.
    Cancel(TaskArgs),
}

/// A task and its server.
#[derive(clap::Args)]
pub struct TaskArgs {
    /// The task's id (from `tools call --tasks`).
    id: String,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs a `tasks` command; the requests declare the tasks extension, as the server requires.
pub fn run(command: &TasksCommand) -> std::process::ExitCode {
    match command {
        TasksCommand::Get(args) => drive(&args.target.declaring_tasks(), async |client| {
            let task = client.get_task(&args.id).await?;
            if args.output.json {
                print_json(&serde_json::Value::Object(task));
            } else {
                let status = task.get("status").and_then(|s| s.as_str()).unwrap_or("?");
                out!("{BOLD}{}{BOLD:#} {}", args.id, shown(status, false));
                for member in ["statusMessage", "result", "error", "inputRequests"] {
                    if let Some(value) = task.get(member) {
                        out!("{member}: {value}");
                    }
                }
            }
            Ok::<(), Failure>(())
        }),
        TasksCommand::Cancel(args) => drive(&args.target.declaring_tasks(), async |client| {
            client.cancel_task(&args.id).await?;
            if !args.output.json {
                out!("asked the server to cancel {}", args.id);
            }
            Ok(())
        }),
    }
}
