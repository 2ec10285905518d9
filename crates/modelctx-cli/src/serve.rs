//! `modelctx serve`: run a bundled reference server.

use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::servers;

/// Arguments of `modelctx serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Which server.
    server: Bundled,
}

/// The bundled servers.
#[derive(Clone, Copy, ValueEnum)]
enum Bundled {
    /// Every feature: tools (echo, add, progress, images, errors), resources, templates,
    /// prompts, completion.
    Everything,
}

/// Runs the server on stdio until stdin ends or SIGTERM: exit 0 then, 1 on an I/O failure.
pub fn run(args: &ServeArgs) -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let server = match args.server {
        Bundled::Everything => servers::everything::server(),
    };
    let server = match server {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server definitions are invalid");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(modelctx::transport::stdio::serve_stdio(server));
    // The blocking thread that reads stdin may still sit in read(2) after SIGTERM: do not
    // wait for it.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "serving stdio failed");
            ExitCode::FAILURE
        }
    }
}
