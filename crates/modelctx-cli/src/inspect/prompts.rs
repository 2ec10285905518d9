//! `modelctx prompts list|get`.

use clap::{Args, Subcommand};
use modelctx::client::Client;
use modelctx::protocol::types::Prompt;
use serde_json::Value;

use super::arguments;
use super::content::block_text;
use super::exit::Failure;
use super::output::{BOLD, OutputArgs, first_line, out, print_json, print_listing};
use super::{ServerArgs, Target, drive};

/// `modelctx prompts …`.
#[derive(Subcommand)]
pub enum PromptsCommand {
    /// List the server's prompts: name, arguments (* = required) and description.
    ///
    /// Example:
    ///   modelctx prompts list -- modelctx serve everything
    #[command(verbatim_doc_comment)]
    List(ServerArgs),
    /// Get a prompt's messages, its arguments given as KEY=VALUE.
    ///
    /// Example:
    ///   modelctx prompts get greeting name=Ada color=blue -- modelctx serve everything
    #[command(verbatim_doc_comment)]
    Get(GetArgs),
}

/// Arguments of `modelctx prompts get`.
#[derive(Args)]
pub struct GetArgs {
    /// The prompt.
    name: String,
    /// KEY=VALUE (prompt arguments are strings).
    #[arg(value_name = "ARGUMENT")]
    arguments: Vec<String>,
    /// An argument as KEY=VALUE, as the MCP Inspector takes it (repeatable).
    #[arg(long = "prompt-args", value_name = "KEY=VALUE")]
    prompt_args: Vec<String>,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

fn argument_summary(prompt: &Prompt) -> String {
    let arguments = prompt.arguments.as_deref().unwrap_or_default();
    let names: Vec<String> = arguments
        .iter()
        .map(|a| if a.required == Some(true) { format!("{}*", a.name) } else { a.name.clone() })
        .collect();
    names.join(" ")
}

async fn list(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    let prompts = client.list_prompts().await?;
    print_listing(&prompts, output, &["PROMPT", "ARGUMENTS", "DESCRIPTION"], |p| {
        vec![p.name.clone(), argument_summary(p), first_line(p.description.as_deref())]
    });
    Ok(())
}

async fn get(client: &Client, args: &GetArgs) -> Result<(), Failure> {
    // No schema: every prompt argument is a string.
    let items: Vec<String> = args.arguments.iter().chain(&args.prompt_args).cloned().collect();
    let arguments = arguments::build(&items, None)?;
    let messages = client.get_prompt(&args.name, Value::Object(arguments)).await?;
    if args.output.json {
        print_json(&messages);
        return Ok(());
    }
    for message in &messages {
        let role = serde_json::to_value(message.role).unwrap_or_default();
        out!("{BOLD}{}:{BOLD:#} {}", role.as_str().unwrap_or("?"), block_text(&message.content));
    }
    Ok(())
}

/// Runs `modelctx prompts …`.
pub fn run(command: &PromptsCommand) -> std::process::ExitCode {
    match command {
        PromptsCommand::List(args) => drive(&args.target, async |client| list(client, args.output).await),
        PromptsCommand::Get(args) => drive(&args.target, async |client| get(client, args).await),
    }
}
