//! HTTP over stdio (experimental; the transports working group's `stdio-v2`): the
//! Streamable HTTP endpoint served as one HTTP/2 connection on this process's stdin and
//! stdout, with no listener and no port. The client chose the transport when it started the
//! process (by configuration: the drafts select it so, not by probing), and speaks HTTP/2
//! from its first byte. Everything else is the HTTP endpoint's: both eras, legacy sessions,
//! response streams, `subscriptions/listen`, the guards and limits of [`HttpOptions`].
//! stdout carries only HTTP/2 frames; diagnostics go to stderr through `tracing`.

use std::future::Future;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::server::Server;

use super::http::{HttpOptions, McpEndpoints, serve_pipe};
use super::stdio_threads::{ThreadStdin, ThreadStdout};

/// Serves `server` over HTTP/2 on this process's stdin and stdout, at `/mcp` as
/// [`super::http::serve_http`] serves it, until the client closes stdin or SIGTERM arrives;
/// then lets the requests in flight finish within the grace period, cancels the rest, and
/// returns once every answer is written. A peer that sends anything but HTTP/2 (a client of
/// the line-delimited stdio transport) ends the connection at its first bytes.
pub async fn serve_stdio_v2(server: Server, options: HttpOptions) -> std::io::Result<()> {
    let endpoints = McpEndpoints::new(server);
    #[cfg(unix)]
    if let Some((stdin, stdout)) = super::stdio_pipes::stdio() {
        let io = tokio::io::join(stdin, stdout);
        serve_pipe(endpoints, io, &options, super::terminated()).await;
        return Ok(());
    }
    let stdin = ThreadStdin::spawn()?;
    let (stdout, written) = ThreadStdout::spawn()?;
    serve_pipe(endpoints, tokio::io::join(stdin, stdout), &options, super::terminated()).await;
    let _ = written.await;
    Ok(())
}

/// Serves `server` over HTTP/2 on a stream pair already open to a client (a socket, an
/// in-memory pipe), as [`serve_stdio_v2`] serves stdin and stdout, until the client closes it
/// or `shutdown` completes.
pub async fn serve_stdio_v2_on<R, W>(
    server: Server,
    options: HttpOptions,
    reader: R,
    writer: W,
    shutdown: impl Future<Output = ()>,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_pipe(McpEndpoints::new(server), tokio::io::join(reader, writer), &options, shutdown).await;
}
