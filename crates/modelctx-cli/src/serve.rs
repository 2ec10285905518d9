//! `modelctx serve`: run a bundled reference server.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use modelctx::server::Server;
use modelctx::transport::http::{HttpOptions, MCP_PATH};

use crate::servers;

/// Binds `address` and serves Streamable HTTP until SIGTERM.
async fn serve_http(server: Server, address: SocketAddr) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    // A fixed line scripts can wait for and parse.
    eprintln!("listening on http://{bound}{MCP_PATH}");
    modelctx::transport::http::serve_http(
        server,
        listener,
        HttpOptions::default(),
        modelctx::transport::terminated(),
    )
    .await
}

/// Arguments of `modelctx serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Which server.
    server: Bundled,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (for example
    /// 127.0.0.1:8080; port 0 picks a free port). The address actually bound is printed on
    /// stderr as `listening on http://HOST:PORT/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Allow --http to bind an address other than loopback (by default only 127.0.0.1 or
    /// ::1, so that nothing outside this machine can reach the server).
    #[arg(long, requires = "http")]
    allow_remote: bool,
}

/// The bundled servers.
#[derive(Clone, Copy, ValueEnum)]
enum Bundled {
    /// Every feature: tools (echo, add, progress, images, errors), resources, templates,
    /// prompts, completion.
    Everything,
}

/// Runs the server on stdio (until stdin ends) or HTTP, until SIGTERM: exit 0 then, 1 on an
/// I/O failure or a refused address.
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
    let outcome = match args.http {
        None => runtime.block_on(modelctx::transport::stdio::serve_stdio(server)),
        Some(address) if !address.ip().is_loopback() && !args.allow_remote => {
            tracing::error!(%address, "--http binds loopback addresses only; add --allow-remote to serve other machines");
            return ExitCode::FAILURE;
        }
        Some(address) => runtime.block_on(serve_http(server, address)),
    };
    // The blocking thread that reads stdin may still sit in read(2) after SIGTERM: do not
    // wait for it.
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "serving failed");
            ExitCode::FAILURE
        }
    }
}
