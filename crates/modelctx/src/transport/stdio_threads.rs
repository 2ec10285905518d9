//! stdin and stdout on one dedicated thread each. tokio's own `stdin()`/`stdout()` run every
//! `read(2)` and `write(2)` as a separate task on the blocking pool — a task allocation and a
//! hand-off between threads per message each way; a thread that only reads (or only writes)
//! and a channel to the runtime cost a fraction of that.

use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::PollSender;

/// How much the reader asks `read(2)` for at once.
const READ_CHUNK: usize = 64 * 1024;

/// Chunks in flight between a thread and the runtime.
const CHANNEL: usize = 16;

/// This process's stdin, read on its own thread.
pub(crate) struct ThreadStdin {
    chunks: mpsc::Receiver<io::Result<Bytes>>,
    current: Bytes,
}

impl ThreadStdin {
    /// Starts the reading thread. It ends at end of input, on a read error, or once this
    /// value is dropped and its next read returns; a thread still blocked in `read(2)` when
    /// the program ends goes with the process.
    pub(crate) fn spawn() -> io::Result<Self> {
        let (sender, chunks) = mpsc::channel(CHANNEL);
        std::thread::Builder::new().name("modelctx-stdin".into()).spawn(move || {
            let mut stdin = io::stdin().lock();
            let mut buffer = vec![0; READ_CHUNK];
            loop {
                let chunk = match stdin.read(&mut buffer) {
                    Ok(0) => return,
                    Ok(n) => Ok(Bytes::copy_from_slice(&buffer[..n])),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = chunk.is_err();
                if sender.blocking_send(chunk).is_err() || failed {
                    return;
                }
            }
        })?;
        Ok(Self { chunks, current: Bytes::new() })
    }
}

impl AsyncRead for ThreadStdin {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.current.is_empty() {
            match ready!(this.chunks.poll_recv(cx)) {
                Some(Ok(chunk)) => this.current = chunk,
                Some(Err(e)) => return Poll::Ready(Err(e)),
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(this.current.len());
        buf.put_slice(&this.current[..n]);
        this.current.advance(n);
        Poll::Ready(Ok(()))
    }
}

/// This process's stdout, written on its own thread. Writes collect in a buffer; a flush hands
/// it to the thread (waiting while [`CHANNEL`] buffers are already queued), which writes and
/// flushes it.
pub(crate) struct ThreadStdout {
    pending: Vec<u8>,
    buffers: PollSender<Vec<u8>>,
}

impl ThreadStdout {
    /// Starts the writing thread; the receiver completes once everything handed to it is
    /// written (or writing failed) and this value is gone.
    pub(crate) fn spawn() -> io::Result<(Self, oneshot::Receiver<()>)> {
        let (sender, mut buffers) = mpsc::channel::<Vec<u8>>(CHANNEL);
        let (done, written) = oneshot::channel();
        std::thread::Builder::new().name("modelctx-stdout".into()).spawn(move || {
            let mut stdout = io::stdout().lock();
            while let Some(buffer) = buffers.blocking_recv() {
                if let Err(e) = stdout.write_all(&buffer).and_then(|()| stdout.flush()) {
                    tracing::debug!(error = %e, "writing stdout failed");
                    break;
                }
            }
            let _ = done.send(());
        })?;
        Ok((Self { pending: Vec::new(), buffers: PollSender::new(sender) }, written))
    }
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed")
}

impl AsyncWrite for ThreadStdout {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().pending.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending.is_empty() {
            return Poll::Ready(Ok(()));
        }
        ready!(this.buffers.poll_reserve(cx)).map_err(|_| closed())?;
        let buffer = std::mem::take(&mut this.pending);
        this.buffers.send_item(buffer).map_err(|_| closed())?;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        self.get_mut().buffers.close();
        Poll::Ready(Ok(()))
    }
}
