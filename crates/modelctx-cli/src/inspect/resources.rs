//! `modelctx resources list|templates|read`.

use std::io::{IsTerminal, Write};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use clap::{Args, Subcommand};
use modelctx::client::Client;
use modelctx::protocol::types::TextOrBlob;

use super::content::contents_text;
use super::exit::Failure;
use super::output::{OutputArgs, first_line, print_json, print_listing};
use super::{ServerArgs, Target, drive};

/// `modelctx resources …`.
#[derive(Subcommand)]
pub enum ResourcesCommand {
    /// List the server's resources.
    ///
    /// Example:
    ///   modelctx resources list -- modelctx serve everything
    #[command(verbatim_doc_comment)]
    List(ServerArgs),
    /// List the server's resource templates (RFC 6570 URI templates).
    ///
    /// Example:
    ///   modelctx resources templates -- modelctx serve everything
    #[command(verbatim_doc_comment)]
    Templates(ServerArgs),
    /// Read a resource. Text is printed as it is; binary contents are written raw when
    /// stdout is not a terminal (so `> file.png` works) and described when it is.
    ///
    /// Examples:
    ///   modelctx resources read everything://readme -- modelctx serve everything
    ///   modelctx resources read everything://items/42 --json -- modelctx serve everything
    ///   modelctx resources read everything://pixel.png -- modelctx serve everything > pixel.png
    #[command(verbatim_doc_comment)]
    Read(ReadArgs),
}

/// Arguments of `modelctx resources read`.
#[derive(Args)]
pub struct ReadArgs {
    /// The resource URI.
    #[arg(required_unless_present = "uri_flag")]
    uri: Option<String>,
    /// The resource URI, as the MCP Inspector takes it.
    #[arg(long = "uri", value_name = "URI", conflicts_with = "uri")]
    uri_flag: Option<String>,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

async fn list(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    let resources = client.list_resources().await?;
    print_listing(&resources, output, &["URI", "NAME", "MIME TYPE", "DESCRIPTION"], |r| {
        let mime = r.mime_type.clone().unwrap_or_default();
        vec![r.uri.clone(), r.name.clone(), mime, first_line(r.description.as_deref())]
    });
    Ok(())
}

async fn templates(client: &Client, output: OutputArgs) -> Result<(), Failure> {
    let templates = client.list_resource_templates().await?;
    print_listing(&templates, output, &["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"], |t| {
        let mime = t.mime_type.clone().unwrap_or_default();
        vec![t.uri_template.clone(), t.name.clone(), mime, first_line(t.description.as_deref())]
    });
    Ok(())
}

async fn read(client: &Client, args: &ReadArgs) -> Result<(), Failure> {
    let uri = args.uri.as_deref().or(args.uri_flag.as_deref()).unwrap_or_default();
    let contents = client.read_resource(uri).await?;
    if args.output.json {
        print_json(&contents);
        return Ok(());
    }
    let mut stdout = std::io::stdout().lock();
    let raw = !stdout.is_terminal();
    for part in &contents {
        let written = match part {
            TextOrBlob::Blob(blob) if raw => match STANDARD.decode(&blob.blob) {
                Ok(bytes) => stdout.write_all(&bytes),
                Err(e) => {
                    return Err(Failure::Refused(format!(
                        "the server sent {} as invalid base64: {e}",
                        blob.uri
                    )));
                }
            },
            part => {
                let text = contents_text(part);
                let newline = if text.ends_with('\n') { "" } else { "\n" };
                write!(anstream::AutoStream::auto(&mut stdout), "{text}{newline}")
            }
        };
        match written {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(Failure::Usage(format!("cannot write to stdout: {e}"))),
            Ok(()) => {}
        }
    }
    Ok(())
}

/// Runs `modelctx resources …`.
pub fn run(command: &ResourcesCommand) -> std::process::ExitCode {
    match command {
        ResourcesCommand::List(args) => drive(&args.target, async |client| list(client, args.output).await),
        ResourcesCommand::Templates(args) => {
            drive(&args.target, async |client| templates(client, args.output).await)
        }
        ResourcesCommand::Read(args) => drive(&args.target, async |client| read(client, args).await),
    }
}
