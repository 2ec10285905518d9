//! HTTP over stdio, client side (experimental; the draft transport `stdio-v2`): one HTTP/2
//! connection on a child's stdin and stdout, which the Streamable HTTP link sends its requests
//! through instead of a socket. Requests are built as for any endpoint (`reqwest`), then
//! carried as HTTP/2 streams by hyper: concurrent requests, long-lived response streams and
//! cancellation by stream reset all share the one pipe pair.

use hyper::client::conn::http2::{Builder, SendRequest};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use super::ClientError;

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
