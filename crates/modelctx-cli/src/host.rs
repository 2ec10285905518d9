//! `modelctx host --config FILE …`: the servers of a host's config file, all at once, behind
//! one registry of namespaced tools (`server__tool`), as an AI application holds them.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use modelctx::host::{Approval, ApprovalHook, ApprovalRequest, HandlersFor, Host, HostError, HostOptions};
use modelctx::protocol::types::Implementation;
use serde_json::Value;

use crate::inspect::exit::{EXIT_STATUS_HELP, Failure};
use crate::inspect::interactive::is_interactive;
use crate::inspect::output::{DIM, OutputArgs, first_line, print_listing, shown};
use crate::inspect::tools::{argument_summary, hints, print_result};
use crate::inspect::{arguments, interactive};

/// Arguments of `modelctx host`.
#[derive(Args)]
pub struct HostArgs {
    /// The config file: `mcpServers` (Claude Desktop, Cursor, .mcp.json) or VS Code's
    /// `servers`; `${VAR}` and `${VAR:-default}` are expanded from the environment.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    #[command(subcommand)]
    command: HostCommand,
}

/// `modelctx host … <command>`.
#[derive(Subcommand)]
enum HostCommand {
    /// The configured servers: state, transport, protocol version, tools, restarts, errors.
    Status(OutputArgs),
    /// The tools of every server, under their namespaced names.
    #[command(subcommand)]
    Tools(HostTools),
}

/// `modelctx host … tools <command>`.
#[derive(Subcommand)]
enum HostTools {
    /// List every server's tools: NAME is what `tools call` takes.
    ///
    /// Example:
    ///   modelctx host --config .mcp.json tools list
    #[command(verbatim_doc_comment)]
    List(OutputArgs),
    /// Call a tool by its namespaced name, routed to its server. A tool its annotations
    /// mark destructive or open-world is asked about first on a terminal; elsewhere it needs
    /// --yes.
    ///
    /// Example:
    ///   modelctx host --config .mcp.json tools call everything__add a=2 b=40
    #[command(verbatim_doc_comment, after_help = EXIT_STATUS_HELP)]
    Call(HostCall),
}

/// Arguments of `modelctx host … tools call`.
#[derive(Args)]
struct HostCall {
    /// The tool's namespaced name (`server__tool`).
    name: String,
    /// KEY=VALUE, KEY:=JSON or '{…}', typed by the tool's input schema.
    #[arg(value_name = "ARGUMENT")]
    arguments: Vec<String>,
    /// Approve destructive or open-world tools without asking.
    #[arg(long, short = 'y')]
    yes: bool,
    #[command(flatten)]
    output: OutputArgs,
}

/// Asks the person at the terminal whether a risky call may go ahead.
fn ask_approval(request: &ApprovalRequest) -> Approval {
    let mut risks = Vec::new();
    if request.risk.destructive {
        risks.push("destructive");
    }
    if request.risk.open_world {
        risks.push("open-world");
    }
    let prompt = approval_question(request, &risks);
    let theme = dialoguer::theme::ColorfulTheme::default();
    match dialoguer::Confirm::with_theme(&theme).with_prompt(prompt).default(false).interact() {
        Ok(true) => Approval::Approve,
        _ => Approval::Deny("the user said no".into()),
    }
}

/// The question asked before a risky call; the server's names are shown escaped, so a tool
/// name cannot rewrite the question.
fn approval_question(request: &ApprovalRequest, risks: &[&str]) -> String {
    format!(
        "Call {} on server {} ({}) with {}?",
        shown(&request.tool, false),
        shown(&request.server, false),
        risks.join(", "),
        shown(&request.arguments.to_string(), false)
    )
}

/// The approval hook: --yes approves, a terminal asks, anything else denies with the way out.
fn approval(yes: bool) -> ApprovalHook {
    if yes {
        return ApprovalHook::approve_all();
    }
    let interactive = is_interactive();
    ApprovalHook::new(move |request: ApprovalRequest| async move {
        if !interactive {
            return Approval::Deny("it is marked destructive or open-world: pass --yes to allow it".into());
        }
        tokio::task::spawn_blocking(move || ask_approval(&request))
            .await
            .unwrap_or_else(|_| Approval::Deny("the question was interrupted".into()))
    })
}

impl From<HostError> for Failure {
    fn from(error: HostError) -> Self {
        match error {
            HostError::UnknownTool(name) => Self::Refused(format!(
                "no tool {name:?}; `modelctx host --config FILE tools list` shows their names"
            )),
            HostError::Call { error, .. } => Self::from(error),
            unavailable @ (HostError::Unavailable { .. } | HostError::ShutDown) => {
                Self::Unreachable(unavailable.to_string())
            }
            other => Self::Refused(other.to_string()),
        }
    }
}

/// Reports, on stderr, the servers that are not connected (their tools are missing).
fn warn_unconnected(host: &Host) {
    for server in host.status() {
        if server.tools == 0 && server.last_error.is_some() {
            let why = server.last_error.unwrap_or_default();
            let why = shown(&why, true);
            anstream::eprintln!("{DIM}server {} is {:?}: {why}{DIM:#}", server.name, server.state);
        }
    }
}

async fn run_command(host: &Host, command: &HostCommand) -> Result<(), Failure> {
    match command {
        HostCommand::Status(output) => {
            let header = ["SERVER", "STATE", "TRANSPORT", "VERSION", "TOOLS", "RESTARTS", "LAST ERROR"];
            print_listing(&host.status(), *output, &header, |s| {
                vec![
                    s.name.clone(),
                    format!("{:?}", s.state).to_lowercase(),
                    format!("{:?}", s.transport).to_lowercase(),
                    s.version.map(|v| v.to_string()).unwrap_or_default(),
                    s.tools.to_string(),
                    s.restarts.to_string(),
                    first_line(s.last_error.as_deref()),
                ]
            });
            Ok(())
        }
        HostCommand::Tools(HostTools::List(output)) => {
            warn_unconnected(host);
            print_listing(
                &host.tools(),
                *output,
                &["NAME", "SERVER", "ARGUMENTS", "HINTS", "DESCRIPTION"],
                |t| {
                    vec![
                        t.name.clone(),
                        t.server.clone(),
                        argument_summary(&t.tool),
                        hints(&t.tool),
                        first_line(t.tool.description.as_deref()),
                    ]
                },
            );
            Ok(())
        }
        HostCommand::Tools(HostTools::Call(call)) => {
            let schema = host.tool(&call.name).map(|t| t.tool.input_schema);
            let arguments = arguments::build(&call.arguments, schema.as_ref())?;
            let result = host.call_tool(&call.name, Value::Object(arguments)).await?;
            print_result(&result, call.output.json)
        }
    }
}

/// Runs `modelctx host`.
pub fn run(args: &HostArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    let config = match crate::config_file::load(&args.config) {
        Ok(config) => config,
        Err(e) => return Failure::Usage(format!("{}: {e}", args.config.display())).exit(),
    };
    let yes = matches!(&args.command, HostCommand::Tools(HostTools::Call(call)) if call.yes);
    let mut options = HostOptions::new(Implementation::new("modelctx-host", env!("CARGO_PKG_VERSION")))
        .approval(approval(yes));
    options.handlers_for = Some(HandlersFor::new(|server| interactive::handlers(&format!("{server:?}"))));
    let outcome = crate::runtime::block_on(async {
        options.auth_for = Some(crate::login::stored_for(&config).await?);
        let host = Host::start(config, options).await;
        let outcome = run_command(&host, &args.command).await;
        host.shutdown().await;
        outcome
    })
    .and_then(|outcome| outcome);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.exit(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool name with escape sequences cannot rewrite the approval question (it used to
    /// reach the terminal as it was).
    #[test]
    fn the_approval_question_shows_server_text_escaped() {
        let request = ApprovalRequest {
            server: "files".into(),
            tool: "read\u{1b}[2K\rdelete_everything".into(),
            name: "files__read".into(),
            arguments: serde_json::json!({"path": "a"}),
            annotations: None,
            risk: modelctx::host::Risk { destructive: true, open_world: false },
        };
        let question = approval_question(&request, &["destructive"]);
        assert!(!question.contains('\u{1b}') && !question.contains('\r'), "{question}");
        assert!(question.contains("read\\u{1b}[2K\\u{d}delete_everything"), "{question}");
    }
}
