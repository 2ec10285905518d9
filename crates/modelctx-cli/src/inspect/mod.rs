//! The commands that drive any MCP server through modelctx's client: `discover`, `tools`,
//! `resources`, `prompts`, `complete`, `listen` and `ping`. Each connects to its target (a
//! command after `--`, or `--url`), does one thing, prints it (tables on a terminal, `--json`
//! for scripts) and closes the connection; the exit status tells what went wrong
//! ([`exit::EXIT_STATUS_HELP`]).

pub mod arguments;
mod card;
mod complete;
pub mod content;
pub mod exit;
pub mod interactive;
mod listen;
pub mod output;
mod prompts;
mod resources;
mod sampling;
mod server;
mod target;
mod tasks;
pub mod tools;
pub mod web;

use std::process::ExitCode;

use modelctx::client::Client;

pub use card::{DiscoverArgs, run as run_discover};
pub use complete::{CompleteArgs, run as run_complete};
pub use listen::{ListenArgs, run as run_listen};
pub use prompts::{PromptsCommand, run as run_prompts};
pub use resources::{ResourcesCommand, run as run_resources};
pub use server::run_ping;
pub use target::Target;
pub use tasks::{TasksCommand, run as run_tasks};
pub use tools::{ToolsCommand, run as run_tools};

use exit::Failure;

/// Connects to `target`, runs `work` with the client and closes the connection; the exit
/// status says how it went.
fn drive(target: &Target, work: impl AsyncFnOnce(&Client) -> Result<(), Failure>) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    let outcome = crate::runtime::block_on(async {
        let client = target.connect(interactive::handlers(&target.describe())).await?;
        let outcome = work(&client).await;
        client.close().await;
        outcome
    });
    match outcome.and_then(|outcome| outcome) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

/// The arguments of a command that takes only its server and how to print: `discover`,
/// `ping`, the `list` commands.
#[derive(clap::Args)]
pub struct ServerArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: output::OutputArgs,
}
