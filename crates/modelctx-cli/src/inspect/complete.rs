//! `modelctx complete`: argument completion for a prompt or a resource template.

use clap::{ArgGroup, Args};
use modelctx::client::Client;
use serde_json::{Value, json};

use super::arguments;
use super::exit::Failure;
use super::output::{DIM, OutputArgs, out, print_json, shown};
use super::{Target, drive};

/// Arguments of `modelctx complete`.
///
/// Examples:
///   modelctx complete --prompt greeting color=b -- modelctx serve everything
///   modelctx complete --resource 'everything://items/{id}' id=42 -- modelctx serve everything
#[derive(Args)]
#[command(group(ArgGroup::new("reference").required(true).args(["prompt", "resource"])))]
pub struct CompleteArgs {
    /// Complete an argument of this prompt.
    #[arg(long, value_name = "NAME")]
    prompt: Option<String>,
    /// Complete a variable of this resource template.
    #[arg(long, value_name = "URI_TEMPLATE")]
    resource: Option<String>,
    /// The argument and what has been typed so far, as NAME=PARTIAL.
    #[arg(value_name = "NAME=PARTIAL")]
    argument: String,
    /// Another argument's value already chosen, as NAME=VALUE (repeatable).
    #[arg(long = "context", value_name = "NAME=VALUE")]
    context: Vec<String>,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

async fn complete(client: &Client, args: &CompleteArgs) -> Result<(), Failure> {
    let reference = match (&args.prompt, &args.resource) {
        (Some(name), _) => json!({"type": "ref/prompt", "name": name}),
        (None, Some(uri)) => json!({"type": "ref/resource", "uri": uri}),
        (None, None) => return Err(Failure::Usage("give --prompt NAME or --resource URI_TEMPLATE".into())),
    };
    let Some((name, partial)) = args.argument.split_once('=') else {
        return Err(Failure::Usage(format!("{:?} is not NAME=PARTIAL", args.argument)));
    };
    let context = arguments::build(&args.context, None)?;
    let context = (!context.is_empty()).then_some(Value::Object(context));
    let completion = client.complete(reference, json!({"name": name, "value": partial}), context).await?;
    if args.output.json {
        print_json(&completion);
        return Ok(());
    }
    for value in &completion.values {
        out!("{}", shown(value, false));
    }
    if completion.has_more == Some(true) {
        let total = completion.total.map(|t| format!(" of {t}")).unwrap_or_default();
        anstream::eprintln!("{DIM}({} shown{total}; type more to narrow){DIM:#}", completion.values.len());
    }
    Ok(())
}

/// Runs `modelctx complete`.
pub fn run(args: &CompleteArgs) -> std::process::ExitCode {
    drive(&args.target, async |client| complete(client, args).await)
}
