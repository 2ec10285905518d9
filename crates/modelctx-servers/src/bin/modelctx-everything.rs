//! `modelctx-everything`: the `everything` reference server on stdio, and nothing else.
//!
//! It serves what `modelctx serve everything` serves, in both protocol eras, from a binary
//! that holds only this server: hosts spawn a stdio server once per session, and each spawn
//! pays the binary's start-up and resident pages. For Streamable HTTP, Redis or OAuth use
//! `modelctx serve everything`.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

/// The `everything` server of modelctx on stdio: one JSON-RPC message per line in, one per line
/// out, until stdin ends. Logs go to stderr (RUST_LOG=debug for more, RUST_LOG=off for none).
#[derive(Parser)]
#[command(name = "modelctx-everything", version)]
struct Args {}

fn main() -> ExitCode {
    modelctx_servers::process::small_pages();
    Args::parse();
    modelctx_servers::process::init_logging("modelctx-everything");
    let server = match modelctx_servers::everything::builder().build() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server definitions are invalid");
            return ExitCode::FAILURE;
        }
    };
    // One client on one pipe: a current-thread runtime starts quickest and holds least.
    let Some(runtime) = modelctx_servers::process::serving_runtime(Some(1)) else { return ExitCode::FAILURE };
    let outcome = runtime.block_on(modelctx::transport::stdio::serve_stdio(server));
    modelctx_servers::process::finish(runtime, outcome)
}
