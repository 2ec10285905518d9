//! HTTP over stdio, client side (experimental; the draft transport `stdio-v2`): one HTTP/2
//! connection on a child's stdin and stdout, which the Streamable HTTP link sends its requests
//! through instead of a socket. Requests are built as for any endpoint (`reqwest`), then
//! carried as HTTP/2 streams by hyper: concurrent requests, long-lived response streams and
//! cancellation by stream reset all share the one pipe pair.

use hyper::client::conn::http2::{Builder, SendRequest};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use std::sync::Arc;
use std::time::Duration;

use super::http::HttpLink;
use super::link::Link;
use super::stdio::Process;
use super::{Client, ClientError, ClientOptions, StdioCommand};

/// The authority requests over the pipe name: a loopback name, which the server's
/// DNS-rebinding guard accepts (no network is involved).
pub(crate) const PIPE_URL: &str = "http://localhost/mcp";

/// An HTTP/2 connection over a child's pipes.
pub(crate) struct Pipe {
    sender: SendRequest<reqwest::Body>,
}

impl Pipe {
    /// Opens HTTP/2 on `io` (the connection preface is its first bytes); a task drives the
    /// connection until the server closes it or `stop` trips, which drops the pipes.
    pub(crate) async fn open<Io>(io: Io, stop: CancellationToken) -> Result<Self, ClientError>
    where
        Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (sender, connection) = Builder::new(TokioExecutor::new())
            .timer(TokioTimer::new())
            .handshake(TokioIo::new(io))
            .await
            .map_err(|e| {
                ClientError::transport(format!("HTTP/2 over the server's stdio could not start: {e}"), e)
            })?;
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => {
                    if let Err(e) = ended {
                        tracing::debug!(error = %e, "HTTP/2 over the server's stdio ended with an error");
                    }
                }
                () = stop.cancelled() => {}
            }
        });
        Ok(Self { sender })
    }

    /// Sends `request` as a stream of the connection and returns its response as it begins.
    pub(crate) async fn send(
        &self,
        request: reqwest::Request,
        what: &str,
    ) -> Result<reqwest::Response, ClientError> {
        let failed = |e: hyper::Error| {
            let detail = format!(
                "{what} over the server's stdio failed: {e} (does the server speak HTTP over stdio, \
                 the stdio-v2 transport, rather than JSON-RPC lines?)"
            );
            ClientError::transport(detail, e)
        };
        let request = http::Request::<reqwest::Body>::try_from(request).map_err(|e| {
            ClientError::transport(format!("{what} could not be made an HTTP/2 request: {e}"), e)
        })?;
        let mut sender = self.sender.clone();
        sender.ready().await.map_err(failed)?;
        let response = sender.send_request(request).await.map_err(failed)?;
        Ok(reqwest::Response::from(response.map(reqwest::Body::wrap)))
    }
}

impl Client {
    /// Starts `command` as a server of HTTP over stdio (experimental; the draft transport
    /// `stdio-v2`) and connects to it: Streamable HTTP as HTTP/2 on the child's stdin and
    /// stdout, both eras as over any HTTP endpoint. The command must start the server in that
    /// mode (`modelctx serve --experimental --stdio-v2 …`): the drafts choose the transport by
    /// configuration, and a server of JSON-RPC lines is refused with an error that says so.
    pub async fn spawn_stdio_v2(command: &StdioCommand, options: ClientOptions) -> Result<Self, ClientError> {
        let spawned = Process::spawn(command, options.shutdown_grace, options.limits)?;
        let process = spawned.process;
        let io = tokio::io::join(spawned.stdout, spawned.stdin);
        match Self::over_pipe(io, process.stop.clone(), options).await {
            Ok(client) => Ok(Self { process: Some(process), ..client }),
            // The server's exit says more than the broken connection, when it has exited.
            Err(error) => match process.exited(Duration::from_millis(500)).await {
                Some(exit) => Err(ClientError::spawn(format!("{error}; {exit}"), None)),
                None => Err(error),
            },
        }
    }

    /// Connects over a stream pair already open to a server of HTTP over stdio (experimental;
    /// [`Client::spawn_stdio_v2`] spawns one): HTTP/2 from the first byte.
    pub async fn connect_stdio_v2<R, W>(
        reader: R,
        writer: W,
        options: ClientOptions,
    ) -> Result<Self, ClientError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        // The connection ends when the client goes (its last request handle with it).
        Self::over_pipe(tokio::io::join(reader, writer), CancellationToken::new(), options).await
    }

    /// Opens HTTP/2 on `io` and settles the era over it; `stop` drops the pipes.
    async fn over_pipe<Io>(
        io: Io,
        stop: CancellationToken,
        options: ClientOptions,
    ) -> Result<Self, ClientError>
    where
        Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let pipe = Pipe::open(io, stop).await?;
        let link = Link::Http(Arc::new(HttpLink::over_pipe(pipe, &options)?));
        Self::open(link, options, None).await
    }
}
