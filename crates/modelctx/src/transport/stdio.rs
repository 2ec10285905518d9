//! The stdio transport, server side: JSON-RPC lines on stdin and stdout.
//!
//! stdout carries only protocol messages (STDIO-02); diagnostics go to stderr through
//! `tracing`. The server stops reading at end of input or on SIGTERM, lets in-flight requests
//! finish within [`crate::server::Limits::shutdown_grace`], cancels the rest, and returns.

use crate::server::Server;

use super::serve_connection;
use super::stdio_threads::{ThreadStdin, ThreadStdout};

/// Serves `server` on this process's stdin and stdout until stdin ends or SIGTERM arrives;
/// returns once every response is written.
///
/// When stdin and stdout are pipes or sockets (as a host that spawns the server makes them),
/// they are read and written by the runtime itself, non-blocking. Otherwise (a terminal, a
/// file) stdin is read on a thread of its own that may still sit in `read(2)` after SIGTERM; a
/// program should end its runtime with `Runtime::shutdown_background` (or exit) once this
/// returns, rather than wait for that thread.
pub async fn serve_stdio(server: Server) -> std::io::Result<()> {
    #[cfg(unix)]
    if let Some((stdin, stdout)) = super::stdio_pipes::stdio() {
        return serve_connection(server, stdin, stdout, super::terminated()).await;
    }
    let stdin = ThreadStdin::spawn()?;
    let (stdout, written) = ThreadStdout::spawn()?;
    let served = serve_connection(server, stdin, stdout, super::terminated()).await;
    let _ = written.await;
    served
}

/// Serves `server` on stdin and stdout as [`serve_stdio`] does, on a runtime of its own sized
/// for the one client a stdio server has (one thread: a host spawns a process per session);
/// for a `main` that is not async. Returns once stdin ends or SIGTERM arrives and every
/// response is written, without waiting for a stdin reader thread still blocked in `read(2)`.
pub fn run_stdio(server: Server) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let served = runtime.block_on(serve_stdio(server));
    runtime.shutdown_background();
    served
}
