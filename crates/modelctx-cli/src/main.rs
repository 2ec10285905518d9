//! `modelctx`: the command line tool for Model Context Protocol servers.
//!
//! - `modelctx serve everything` runs the bundled reference server on stdio;
//! - `modelctx route` reads a transcript of JSON-RPC messages and shows, for each, how a
//!   dual-era server decides its protocol era and whether the message has the shape its
//!   revision's schema requires.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod route;
mod serve;
mod servers;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// Run a bundled reference server on stdio (logs go to stderr; set RUST_LOG to tune).
    ///
    /// Examples:
    ///   modelctx serve everything
    ///   RUST_LOG=debug modelctx serve everything
    #[command(verbatim_doc_comment)]
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Route(args) => route::run(&args),
        Command::Serve(args) => serve::run(&args),
    }
}
