//! Newline-delimited JSON-RPC (stdio, or any byte stream): the framing adapter around the
//! message core. Each line is parsed strictly and within the server's [`ParseLimits`]; a line
//! over the size limit is answered with `-32600` and discarded, a line that is not UTF-8 with
//! `-32700`, and the stream goes on.

use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;
use modelctx_protocol::jsonrpc::{ErrorObject, ParseFailure, ParseLimits};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
#[cfg(feature = "testing")]
use tokio_util::bytes::BytesMut;
#[cfg(feature = "testing")]
use tokio_util::codec::Decoder;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use super::connection::{Inbound, Incoming, serve_endpoint};
use super::framing::{Line, Lines};
use super::line_out::{LineOut, WriteNow, WritingWhenIdle};
use crate::server::Server;
use crate::server::outgoing::Outgoing;

/// Messages waiting for the writer; handlers wait (not the reader) when it is full.
const OUTBOX: usize = 256;

/// Serves one newline-delimited connection until the input ends or `shutdown` completes,
/// then lets in-flight requests finish within [`crate::server::Limits::shutdown_grace`],
/// cancels the rest, and returns once every answer is written.
pub async fn serve_connection<R, W>(
    server: Server,
    reader: R,
    writer: W,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let limits = server.options().limits.parse;
    // The server the lines are read for: it reads its common calls typed.
    let read_for = server.clone();
    let (outbox, inbox) = mpsc::channel(OUTBOX);
    let out = Arc::new(LineOut::new(writer, server.options().limits.max_unwritten_bytes.max(1)));
    let served = CancellationToken::new();
    let writer_task = tokio::spawn(write_messages(out.clone(), inbox, served.clone()));
    let input = FramedRead::new(reader, Lines::new(limits))
        .take_while(|line| {
            if let Err(e) = line {
                tracing::warn!(error = %e, "reading the connection failed");
            }
            std::future::ready(line.is_ok())
        })
        .filter_map(|line| std::future::ready(line.ok().and_then(|line| inbound(line, &limits, &read_for))));
    let input = WritingWhenIdle::new(input, out.clone());
    serve_endpoint(server, input, outbox, Some(out), shutdown).await;
    // Every request has its answer queued: the writer writes what is queued and ends, without
    // waiting for the work of tasks, which no client can reach once the connection is over.
    served.cancel();
    writer_task.await.map_err(std::io::Error::other)?
}

/// The messages of `text`, one per line, as [`serve_connection`] reads them for `server`:
/// what the in-process test client hands the message core.
#[cfg(feature = "testing")]
pub(crate) fn decode(text: &str, server: &Server) -> Vec<Inbound> {
    let limits = server.options().limits.parse;
    let mut buffer = BytesMut::from(text.as_bytes());
    let mut lines = Lines::new(limits);
    std::iter::from_fn(|| lines.decode_eof(&mut buffer).ok().flatten())
        .filter_map(|line| inbound(line, &limits, server))
        .collect()
}

/// A line as the message core takes it — a `tools/call` read typed when `server` reads one
/// so, else as JSON; `None` for a blank line.
fn inbound(line: Line, limits: &ParseLimits, server: &Server) -> Option<Inbound> {
    match line {
        Line::Bytes(bytes) if bytes.trim_ascii().is_empty() => None,
        // Bytes, not text: a line that is not UTF-8 is a parse error for that line alone.
        Line::Bytes(bytes) => {
            Some(Inbound { message: Incoming::read(server, &bytes, limits), bytes: bytes.len() })
        }
        Line::Oversize => Some(Inbound {
            message: Err(ParseFailure {
                id: None,
                error: ErrorObject::invalid_request(format!(
                    "message longer than the limit of {} bytes; it was discarded",
                    limits.max_message_bytes
                )),
            }),
            bytes: 0,
        }),
    }
}

/// Writes the messages of `inbox` (those of requests running in tasks of their own) into `out`
/// until it ends, or until `served` is tripped and nothing is left in it; writes `out`'s
/// buffer when the reader hands it over (the pipe was full); returns once all is written, or
/// with why writing failed.
async fn write_messages<W: AsyncWrite + Unpin + Send>(
    out: Arc<LineOut<W>>,
    mut inbox: mpsc::Receiver<Outgoing>,
    served: CancellationToken,
) -> std::io::Result<()> {
    // Made once: a new one each time would join, then leave, the token's waiters per message.
    let served = served.cancelled_owned();
    tokio::pin!(served);
    loop {
        let message = tokio::select! {
            biased;
            message = inbox.recv() => message,
            () = out.taken_over() => {
                out.write_all_pending().await;
                continue;
            }
            () = &mut served => None,
        };
        let Some(message) = message else { break };
        out.append(&message);
        if inbox.is_empty() {
            out.write_all_pending().await;
        }
    }
    out.write_all_pending().await;
    out.failure()
}
