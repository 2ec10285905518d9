//! `modelctx-bench`: the `bench` reference server as `modelctx serve bench` serves it — on
//! stdio, or with `--http ADDR` on Streamable HTTP with the deprecated HTTP+SSE transport
//! beside it — with the `modelctx` tool's allocator, in a binary that holds nothing else.
//!
//! The instruction counts per request (`scripts/instructions.sh`) run it under callgrind:
//! built optimized it compiles a third of the crates the whole tool does, and its request
//! path is the library's, as the tool's is.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;
use modelctx::transport::http::{HttpOptions, MCP_PATH, serve_http_with_sse};

/// The `modelctx` tool's allocator, with the same options (see its `main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The `bench` server of modelctx (tools `echo` and `add`, and fillers) on stdio, or on
/// Streamable HTTP.
/// Logs go to stderr (RUST_LOG=debug for more, RUST_LOG=off for none).
#[derive(Parser)]
#[command(name = "modelctx-bench", version)]
struct Args {
    /// Serve Streamable HTTP (and HTTP+SSE) on this loopback address instead of stdio; the
    /// address bound is printed as `listening on http://ADDR/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Filler tools (`tool_0000`, …) besides `echo` and `add`, all listed on one page.
    #[arg(long, default_value_t = 0)]
    extra_tools: usize,
    /// Run requests on N worker threads (one: a current-thread runtime). By default, as
    /// `modelctx serve`: one on stdio, one per CPU over HTTP.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    modelctx_servers::process::small_pages();
    let args = Args::parse();
    modelctx_servers::process::init_logging("modelctx-bench");
    if let Some(address) = args.http.filter(|address| !address.ip().is_loopback()) {
        tracing::error!(%address, "--http binds loopback addresses only");
        return ExitCode::FAILURE;
    }
    let server = match modelctx_servers::bench::builder(args.extra_tools).build() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server definitions are invalid");
            return ExitCode::FAILURE;
        }
    };
    // As `modelctx serve`: one thread for the one client of a pipe, one per CPU over HTTP.
    let threads = modelctx_servers::process::serving_threads(args.threads, args.http.is_some());
    let Some(runtime) = modelctx_servers::process::serving_runtime(threads) else { return ExitCode::FAILURE };
    let outcome = runtime.block_on(async {
        match args.http {
            None => modelctx::transport::stdio::serve_stdio(server).await,
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address).await?;
                eprintln!("listening on http://{}{MCP_PATH}", listener.local_addr()?);
                let stop = modelctx::transport::terminated();
                serve_http_with_sse(server, listener, HttpOptions::default(), stop).await
            }
        }
    });
    modelctx_servers::process::finish(runtime, outcome)
}
