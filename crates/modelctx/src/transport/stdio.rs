//! The stdio transport, server side: JSON-RPC lines on stdin and stdout.
//!
//! stdout carries only protocol messages (STDIO-02); diagnostics go to stderr through
//! `tracing`. The server stops reading at end of input or on SIGTERM, lets in-flight requests
//! finish within [`crate::server::Limits::shutdown_grace`], cancels the rest, and returns.

use crate::server::Server;

use super::serve_connection;

/// Serves `server` on this process's stdin and stdout until stdin ends or SIGTERM arrives.
///
/// tokio reads stdin on a blocking thread that may still sit in `read(2)` after SIGTERM; a
/// program should end its runtime with `Runtime::shutdown_background` (or exit) once this
/// returns, rather than wait for that thread.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    serve_connection(server, tokio::io::stdin(), tokio::io::stdout(), super::terminated()).await
}
