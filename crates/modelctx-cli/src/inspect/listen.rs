//! `modelctx listen`: the server's change notifications, printed as they come, until
//! interrupted.

use std::time::Instant;

use clap::Args;
use futures::StreamExt;
use modelctx::client::Client;
use modelctx::protocol::v2026::SubscriptionFilter;
use serde_json::json;

use super::exit::Failure;
use super::output::{DIM, OutputArgs, out, shown};
use super::{Target, drive};

/// Arguments of `modelctx listen`. With no filter, every list change is printed.
///
/// Examples:
///   modelctx listen -- modelctx serve everything
///   modelctx listen --uri everything://readme --url http://127.0.0.1:8080/mcp --json
#[derive(Args)]
pub struct ListenArgs {
    /// Changes to the tool list.
    #[arg(long)]
    tools: bool,
    /// Changes to the prompt list.
    #[arg(long)]
    prompts: bool,
    /// Changes to the resource list.
    #[arg(long)]
    resources: bool,
    /// Updates of this resource (repeatable).
    #[arg(long = "uri", value_name = "URI")]
    uris: Vec<String>,
    /// Stop after this many notifications (by default, only Ctrl-C or the server stops it).
    #[arg(long, value_name = "N")]
    count: Option<usize>,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

impl ListenArgs {
    fn filter(&self) -> SubscriptionFilter {
        let all = !(self.tools || self.prompts || self.resources || !self.uris.is_empty());
        SubscriptionFilter {
            tools_list_changed: (all || self.tools).then_some(true),
            prompts_list_changed: (all || self.prompts).then_some(true),
            resources_list_changed: (all || self.resources).then_some(true),
            resource_subscriptions: (!self.uris.is_empty()).then(|| self.uris.clone()),
            ..Default::default()
        }
    }
}

async fn listen(client: &Client, args: &ListenArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let stream = client.listen(args.filter()).await?;
    if !args.output.json {
        anstream::eprintln!("{DIM}listening; Ctrl-C stops{DIM:#}");
    }
    let mut stream = std::pin::pin!(stream);
    let mut heard = 0;
    while args.count.is_none_or(|count| heard < count) {
        let note = tokio::select! {
            note = stream.next() => note,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let Some(note) = note else {
            return Err(Failure::Unreachable("the server ended the subscription".into()));
        };
        heard += 1;
        if args.output.json {
            out!("{}", json!({"method": note.method, "params": note.params}));
        } else {
            let uri =
                note.params.as_ref().and_then(|p| p.get("uri")).and_then(|u| u.as_str()).unwrap_or_default();
            let elapsed = started.elapsed().as_secs_f64();
            let method = note.method.to_string();
            out!("{DIM}+{elapsed:.1}s{DIM:#} {} {}", shown(&method, false), shown(uri, false));
        }
    }
    Ok(())
}

/// Runs `modelctx listen`.
pub fn run(args: &ListenArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| listen(client, args).await)
}
