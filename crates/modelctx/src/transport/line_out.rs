//! The way out of a newline-delimited connection (stdio): one buffer of lines, written in one
//! write by the reader when it is about to wait for input, else by the writer task.
//!
//! On a one-thread runtime the connection's reader answers most requests in their first poll.
//! Their answers go into the buffer here, and when the reader has read all there is (or every
//! [`YIELD_EVERY`] messages, as it yields) it writes the buffer itself, without a channel or another task's
//! turn between the answer and the pipe. The writer task writes what the requests running in
//! tasks of their own send (through the connection's outbox), and takes over the buffer when
//! the pipe is full: it alone waits for the pipe to take more, so that one waker is registered
//! for it. While [`crate::server::Limits::max_unwritten_bytes`] wait, the reader reads no more,
//! and the client that does not read its answers is not read from either.

use std::io;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use futures::Stream;
use futures::task::AtomicWaker;
use tokio::io::AsyncWrite;
use tokio::sync::Notify;

use super::connection::YIELD_EVERY;
use crate::server::outgoing::Outgoing;

/// What a connection's reader writes straight into: the answers it has in hand.
pub(crate) trait WriteNow: Send + Sync {
    /// Appends `message` as one line, to be written when the reader waits or the buffer fills.
    fn append(&self, message: &Outgoing);
}

/// A connection's way out (the module's doc).
pub(crate) struct LineOut<W> {
    state: Mutex<State<W>>,
    /// Tells the writer task to take the buffer over (the pipe was full).
    take_over: Notify,
    /// The reader, waiting for the buffer to drain below `max_pending`.
    reader: AtomicWaker,
    /// The bytes that may wait to be written; with this many the reader waits for the pipe.
    max_pending: usize,
}

struct State<W> {
    writer: W,
    /// Lines not yet written, after the first `written` bytes, which are.
    pending: Vec<u8>,
    /// How much of `pending` the pipe took. A write the pipe takes in part moves this mark,
    /// not the rest of the buffer: shifting it down after each part (the pipe takes 64 KiB at
    /// a time) copied a 330 KB listing about twice. The written part is dropped once it is as
    /// large as the rest, so each byte is moved at most once on average.
    written: usize,
    /// The writer task has found the pipe full and waits on it: no one else writes.
    writer_waits: bool,
    /// Why writing failed; what comes after is dropped.
    failed: Option<io::Error>,
}

impl<W: AsyncWrite + Unpin + Send> LineOut<W> {
    /// The way out onto `writer`, holding up to `max_pending` bytes for it.
    pub(crate) fn new(writer: W, max_pending: usize) -> Self {
        Self {
            max_pending,
            state: Mutex::new(State {
                writer,
                pending: Vec::with_capacity(4096),
                written: 0,
                writer_waits: false,
                failed: None,
            }),
            take_over: Notify::new(),
            reader: AtomicWaker::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<W>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes what is pending now, as far as the pipe takes it without waiting; hands the rest
    /// to the writer task. Nothing is written while the writer task waits on the pipe.
    pub(crate) fn write_now(&self) {
        let mut state = self.state();
        if state.writer_waits || state.unwritten() == 0 {
            return;
        }
        let mut cx = Context::from_waker(Waker::noop());
        if state.poll_write_pending(&mut cx).is_pending() {
            // The noop waker hears nothing: the writer task polls again with its own.
            drop(state);
            self.take_over.notify_one();
        }
    }

    /// Waits until the writer task is to take the buffer over.
    pub(crate) async fn taken_over(&self) {
        self.take_over.notified().await;
    }

    /// Writes every pending byte, waiting for the pipe as long as it takes; wakes a reader that
    /// waited for room.
    pub(crate) async fn write_all_pending(&self) {
        std::future::poll_fn(|cx| {
            let mut state = self.state();
            let written = state.poll_write_pending(cx);
            state.writer_waits = written.is_pending();
            drop(state);
            if written.is_ready() {
                self.reader.wake();
            }
            written
        })
        .await;
    }

    /// Whether the reader is to wait for the buffer to drain, its waker registered if so.
    fn poll_room(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.state().unwritten() < self.max_pending {
            return Poll::Ready(());
        }
        self.reader.register(cx.waker());
        // Drained between the look and the registration: not missed.
        if self.state().unwritten() < self.max_pending { Poll::Ready(()) } else { Poll::Pending }
    }

    /// Why writing failed, once everything is written or dropped.
    pub(crate) fn failure(&self) -> io::Result<()> {
        self.state().failed.take().map_or(Ok(()), Err)
    }
}

impl<W: AsyncWrite + Unpin> State<W> {
    /// Writes pending bytes until none are left or the pipe is full; a failure drops them (and
    /// later ones), to be reported once the connection ends.
    fn poll_write_pending(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while self.unwritten() > 0 {
            match Pin::new(&mut self.writer).poll_write(cx, &self.pending[self.written..]) {
                Poll::Ready(Ok(0)) => self.fail(io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(written)) => self.mark_written(written),
                Poll::Ready(Err(error)) => self.fail(error),
                Poll::Pending => return Poll::Pending,
            }
        }
        match Pin::new(&mut self.writer).poll_flush(cx) {
            Poll::Ready(Err(error)) => self.fail(error),
            Poll::Ready(Ok(())) => {}
            Poll::Pending => return Poll::Pending,
        }
        Poll::Ready(())
    }

    /// The bytes waiting to be written.
    fn unwritten(&self) -> usize {
        self.pending.len() - self.written
    }

    /// Notes `bytes` more written; drops the written part once it is as large as the rest.
    fn mark_written(&mut self, bytes: usize) {
        self.written += bytes;
        if self.written == self.pending.len() {
            self.pending.clear();
            self.written = 0;
        } else if self.written >= self.unwritten() {
            self.pending.drain(..self.written);
            self.written = 0;
        }
    }

    fn fail(&mut self, error: io::Error) {
        self.pending.clear();
        self.written = 0;
        self.failed.get_or_insert(error);
    }
}

impl<W: AsyncWrite + Unpin + Send> WriteNow for LineOut<W> {
    fn append(&self, message: &Outgoing) {
        let mut state = self.state();
        if state.failed.is_some() {
            return;
        }
        message.write_json(&mut state.pending);
        state.pending.push(b'\n');
    }
}

/// The connection's input, which writes the answers waiting in `out` before it waits, and every
/// [`YIELD_EVERY`] messages; it reads nothing while `out` holds all it may.
pub(crate) struct WritingWhenIdle<S, W> {
    input: S,
    out: std::sync::Arc<LineOut<W>>,
    since_written: usize,
}

impl<S, W> WritingWhenIdle<S, W> {
    pub(crate) fn new(input: S, out: std::sync::Arc<LineOut<W>>) -> Self {
        Self { input, out, since_written: 0 }
    }
}

impl<S: Stream + Unpin, W: AsyncWrite + Unpin + Send> Stream for WritingWhenIdle<S, W> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        if self.since_written >= YIELD_EVERY {
            self.out.write_now();
            self.since_written = 0;
        }
        // Full: what the pipe takes now makes room; the rest is the writer task's, which wakes
        // the reader once it is written.
        if self.out.poll_room(cx).is_pending() {
            self.out.write_now();
            if self.out.poll_room(cx).is_pending() {
                return Poll::Pending;
            }
        }
        match Pin::new(&mut self.input).poll_next(cx) {
            Poll::Ready(item) => {
                self.since_written += 1;
                Poll::Ready(item)
            }
            Poll::Pending => {
                self.out.write_now();
                self.since_written = 0;
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use futures::StreamExt;
    use modelctx_protocol::Method;
    use modelctx_protocol::jsonrpc::Notification;
    use serde_json::json;
    use tokio::io::AsyncReadExt;

    use super::*;

    /// A notification of about 100 KB, numbered `n`.
    fn line(n: usize) -> Outgoing {
        let params = json!({"n": n, "filler": "x".repeat(100_000)});
        Outgoing::from(Notification { method: Method::Progress, params: params.as_object().cloned() })
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_reader_that_fills_the_buffer_reads_on_once_its_own_write_empties_it() {
        // Every message fills a buffer of one byte; a pipe that takes everything empties it.
        let out = Arc::new(LineOut::new(tokio::io::sink(), 1));
        let mut input = WritingWhenIdle::new(futures::stream::iter(0..10), out.clone());
        let reader = async {
            let mut read = 0;
            while let Some(n) = input.next().await {
                out.append(&line(n));
                read += 1;
            }
            read
        };
        let read = tokio::time::timeout(Duration::from_secs(5), reader).await.expect("the reader reads on");
        assert_eq!(read, 10);
    }

    /// A pipe that takes at most `at_most` bytes a write.
    struct Narrow {
        taken: Vec<u8>,
        at_most: usize,
    }

    impl AsyncWrite for Narrow {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            bytes: &[u8],
        ) -> Poll<io::Result<usize>> {
            let taken = bytes.len().min(self.at_most);
            self.taken.extend_from_slice(&bytes[..taken]);
            Poll::Ready(Ok(taken))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn lines_written_a_part_at_a_time_arrive_whole_and_in_order() {
        let out = LineOut::new(Narrow { taken: Vec::new(), at_most: 7_000 }, 4 * 1024 * 1024);
        let mut expected = Vec::new();
        for n in 0..3 {
            out.append(&line(n));
            line(n).write_json(&mut expected);
            expected.push(b'\n');
        }
        out.write_all_pending().await;
        let state = out.state();
        assert_eq!(state.unwritten(), 0);
        assert!(state.writer.taken == expected, "every byte, in order");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_peer_that_does_not_read_stops_the_reader_and_then_hears_every_line_in_order() {
        let (ours, mut theirs) = tokio::io::duplex(64 * 1024);
        let out = Arc::new(LineOut::new(ours, 1024 * 1024));
        let writer = tokio::spawn({
            let out = out.clone();
            async move {
                loop {
                    out.taken_over().await;
                    out.write_all_pending().await;
                }
            }
        });
        let read = Arc::new(AtomicUsize::new(0));
        let messages = futures::stream::iter(0..40).inspect({
            let read = read.clone();
            move |_| {
                read.fetch_add(1, Ordering::Relaxed);
            }
        });
        let mut input = WritingWhenIdle::new(messages, out.clone());
        let reader = async {
            while let Some(n) = input.next().await {
                out.append(&line(n));
            }
            out.write_now();
        };
        tokio::pin!(reader);
        // Nobody reads: the reader stops once a megabyte waits, far short of the 4 MB.
        assert!(tokio::time::timeout(Duration::from_millis(200), &mut reader).await.is_err());
        let stopped_at = read.load(Ordering::Relaxed);
        assert!((10..20).contains(&stopped_at), "read {stopped_at} of 40");
        // Once the peer reads, every line comes, in order.
        let peer = async {
            let (mut heard, mut lines, mut chunk) = (Vec::new(), 0, vec![0; 64 * 1024]);
            while lines < 40 {
                let got = theirs.read(&mut chunk).await.expect("read");
                assert!(got > 0, "the way out closed early");
                lines += chunk[..got].iter().filter(|&&byte| byte == b'\n').count();
                heard.extend_from_slice(&chunk[..got]);
            }
            heard
        };
        let ((), heard) = tokio::join!(reader, peer);
        let numbers: Vec<u64> = heard
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                serde_json::from_slice::<serde_json::Value>(line).expect("a line of JSON")["params"]["n"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(numbers, (0..40).collect::<Vec<_>>());
        assert!(out.failure().is_ok());
        writer.abort();
    }
}
