//! `modelctx-everything`: the `everything` reference server on stdio, and nothing else.
//!
//! It serves what `modelctx serve everything` serves, in both protocol eras, from a binary
//! that holds only this server: hosts spawn a stdio server once per session, and each spawn
//! pays the binary's start-up and resident pages. For Streamable HTTP, Redis or OAuth use
//! `modelctx serve everything`.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::filter::{LevelFilter, Targets};

/// The `everything` server of modelctx on stdio: one JSON-RPC message per line in, one per line
/// out, until stdin ends. Logs go to stderr (RUST_LOG=debug for more, RUST_LOG=off for none).
#[derive(Parser)]
#[command(name = "modelctx-everything", version)]
struct Args {}

/// Log lines at `info` and above on stderr, or what `RUST_LOG` says in the `target=level,level`
/// form; a `RUST_LOG` that does not parse is reported and the default kept.
fn init_logging() {
    let filter = match std::env::var("RUST_LOG") {
        Err(_) => Targets::new().with_default(LevelFilter::INFO),
        Ok(value) => value.parse::<Targets>().unwrap_or_else(|e| {
            eprintln!(
                "modelctx-everything: RUST_LOG={value:?} is not TARGET=LEVEL,LEVEL ({e}); logging at info"
            );
            Targets::new().with_default(LevelFilter::INFO)
        }),
    };
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let _ = tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .try_init();
}

fn main() -> ExitCode {
    modelctx_servers::process::small_pages();
    Args::parse();
    init_logging();
    let server = match modelctx_servers::everything::builder().build() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server definitions are invalid");
            return ExitCode::FAILURE;
        }
    };
    // One client on one pipe: a current-thread runtime starts quickest and holds least.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(modelctx::transport::stdio::serve_stdio(server));
    modelctx_servers::process::finish(runtime, outcome)
}
