//! `mcp-load`: the neutral load generator of modelctx's benchmarks. It drives any MCP server —
//! spawned over stdio, or over Streamable HTTP (HTTP/1.1 keep-alive, or h2c with `--h2`) — with
//! no MCP library: requests are written as bytes, answers parsed into borrowed structs and
//! checked. It keeps C requests in flight, and reports throughput, latency percentiles, the
//! server's CPU time per request, its peak memory and its cold start, with the field names of
//! `modelctx bench --json`.
//!
//! It runs on one thread (a current-thread Tokio runtime), so that on a small machine it takes
//! one core at most and leaves the rest to the server.

mod http;
mod report;
mod stdio;
mod workload;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;

use report::{Measured, Report};
use workload::{Era, Kind, Workload};

/// Loads an MCP server and measures it.
///
/// Examples:
///   mcp-load -c 32 -n 50000 -- limit-server
///   mcp-load --era legacy -c 32 --http -- limit-server --http 127.0.0.1:0
///   mcp-load --h2 -c 32 --http -- limit-server --http 127.0.0.1:0
///   mcp-load --workload list -n 2000 -- limit-server --extra-tools 1000
#[derive(Parser)]
#[command(name = "mcp-load", version, verbatim_doc_comment)]
struct Args {
    /// The protocol revision: 2026-07-28 (modern, stateless) or 2025-11-25 (legacy, with
    /// `initialize` and, on HTTP, a session).
    #[arg(long, value_enum, default_value_t = Era::Modern)]
    era: Era,
    /// What each request is.
    #[arg(long, value_enum, default_value_t = Kind::Echo)]
    workload: Kind,
    /// Bytes of the `echo` message.
    #[arg(long, value_name = "BYTES", default_value_t = 16)]
    payload: usize,
    /// Requests in flight at once (stdio: over the one pipe; HTTP/1.1: connections; h2: streams).
    #[arg(short = 'c', long, value_name = "C", default_value_t = 1)]
    concurrency: usize,
    /// Requests to measure, after the warm-up.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10_000)]
    requests: u64,
    /// The longest the warm-up, and then the measured window, may last, in seconds (each stops
    /// early then).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    max_seconds: f64,
    /// Requests sent before measuring.
    #[arg(long, value_name = "N", default_value_t = 500)]
    warmup: u64,
    /// The command after -- is an HTTP server: start it, read `listening on URL` from its
    /// stderr and drive that URL.
    #[arg(long, requires = "command")]
    http: bool,
    /// Over HTTP, one HTTP/2 connection with prior knowledge (h2c) carrying C streams, instead
    /// of C HTTP/1.1 connections. Exits with status 3 if the server does not speak h2c.
    #[arg(long)]
    h2: bool,
    /// Drive a server that is already running at this http:// URL.
    #[arg(long, value_name = "URL", conflicts_with_all = ["http", "command"])]
    url: Option<String>,
    /// The server's process id when --url names a server started elsewhere (for its CPU time
    /// and memory).
    #[arg(long, value_name = "PID", requires = "url")]
    server_pid: Option<u32>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// The server to spawn (a stdio server, or with --http an HTTP server).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// What a run does: the workload and its counts.
pub struct Plan {
    /// What each request is, in which era.
    pub workload: Workload,
    /// Requests in flight.
    pub concurrency: usize,
    /// Requests measured.
    pub requests: u64,
    /// Requests sent first, unmeasured.
    pub warmup: u64,
    /// The longest each phase may last.
    pub max_seconds: f64,
    /// HTTP/2 instead of HTTP/1.1.
    pub h2: bool,
}

/// What a transport measured.
pub struct Run {
    /// The protocol version agreed.
    pub version: String,
    /// The measured window.
    pub measured: Measured,
    /// From spawning the server to its first answer.
    pub cold_start: Option<Duration>,
}

/// Why a run failed.
pub enum Failure {
    /// Anything: a wrong answer, a broken connection, a server that would not start.
    Run(String),
    /// `--h2`, and the server does not speak HTTP/2 with prior knowledge.
    NoH2c(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Run(message)
    }
}

/// Runs the load; the report.
async fn load(args: &Args) -> Result<Report, Failure> {
    if !(args.max_seconds.is_finite() && args.max_seconds > 0.0) {
        return Err(Failure::Run(format!("--max-seconds {} is not a positive number", args.max_seconds)));
    }
    if args.h2 && !(args.http || args.url.is_some()) {
        return Err(Failure::Run("--h2 needs --http or --url".into()));
    }
    if !args.http && args.url.is_none() && args.command.is_empty() {
        return Err(Failure::Run("no server: give a command after -- (or --url)".into()));
    }
    let plan = Arc::new(Plan {
        workload: Workload::new(args.workload, args.era, args.payload),
        concurrency: args.concurrency.max(1),
        requests: args.requests,
        warmup: args.warmup,
        max_seconds: args.max_seconds,
        h2: args.h2,
    });
    let run = if args.http || args.url.is_some() {
        http::run(&args.command, args.url.as_deref(), args.server_pid, Arc::clone(&plan)).await?
    } else {
        stdio::run(&args.command, &plan).await?
    };
    Ok(Report::new(plan.workload.describe(), plan.concurrency, run.version, &run.measured, run.cold_start))
}

/// Parses the arguments, runs the load within a hard time limit, and prints the report.
fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-load: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Start-up, the warm-up, the window, and the server's stop, each bounded; past all of them
    // together the run is abandoned, whatever the server does.
    let bound = Duration::from_secs_f64(2.0 * args.max_seconds.clamp(0.0, 1e6) + 150.0);
    let outcome = runtime.block_on(async {
        tokio::time::timeout(bound, load(&args))
            .await
            .unwrap_or_else(|_| Err(Failure::Run(format!("the run took longer than {} s", bound.as_secs()))))
    });
    match outcome {
        Ok(report) => {
            report.print(args.json);
            ExitCode::SUCCESS
        }
        Err(Failure::Run(message)) => {
            eprintln!("mcp-load: {message}");
            ExitCode::FAILURE
        }
        Err(Failure::NoH2c(message)) => {
            eprintln!("mcp-load: the server does not speak h2c (HTTP/2 with prior knowledge): {message}");
            ExitCode::from(3)
        }
    }
}
