//! `modelctx`: the command line tool for Model Context Protocol servers.
//!
//! - `modelctx serve everything` runs the bundled reference server on stdio, and
//!   `modelctx serve filesystem --root DIR` a server of the files under DIR;
//! - `modelctx route` reads a transcript of JSON-RPC messages and shows, for each, how a
//!   dual-era server decides its protocol era and whether the message has the shape its
//!   revision's schema requires.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod route;
mod serve;
mod servers;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

/// Inspect and drive Model Context Protocol servers.
#[derive(Parser)]
#[command(name = "modelctx", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Route a transcript of client messages through the era router, as a dual-era stdio
    /// server would, and check each message's shape against its revision.
    ///
    /// Each line of the input is one JSON-RPC message from client to server. An
    /// `initialize` that is accepted opens a legacy session for the lines after it.
    ///
    /// Examples:
    ///   modelctx route examples/dual-era-transcript.jsonl
    ///   modelctx route --modern-only --json < transcript.jsonl
    #[command(verbatim_doc_comment)]
    Route(route::RouteArgs),
    /// Run a bundled reference server on stdio, or on Streamable HTTP with --http (logs go
    /// to stderr; set RUST_LOG to tune).
    ///
    /// Examples:
    ///   modelctx serve everything
    ///   modelctx serve everything --http 127.0.0.1:8080
    ///   modelctx serve filesystem --root ~/notes --root /srv/data --read-only
    ///   RUST_LOG=debug modelctx serve everything
    ///
    /// Environment:
    ///   MODELCTX_STATE_KEY=ID:BASE64SECRET
    ///       The key that seals the requestState of 2026-07-28 multi-round-trip requests
    ///       (HMAC-SHA256): an id (not empty, no '.') and a secret of at least 32 bytes in
    ///       base64 (standard or URL-safe, padding optional). Give every instance behind one
    ///       load balancer the same value, so that a retry may land on any of them. Unset,
    ///       each process makes a random key and only that process can continue the
    ///       requests it started. An invalid value is an error (exit status 1).
    ///       For example: MODELCTX_STATE_KEY="k1:$(openssl rand -base64 32)"
    #[command(verbatim_doc_comment)]
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Route(args) => route::run(&args),
        Command::Serve(args) => {
            if let Err(problem) = args.check() {
                let mut cli = Cli::command();
                let serve = cli.find_subcommand_mut("serve").expect("serve is a subcommand");
                serve.error(ErrorKind::ArgumentConflict, problem).exit();
            }
            serve::run(&args)
        }
    }
}
