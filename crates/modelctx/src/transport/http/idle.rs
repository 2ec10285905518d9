//! How long a connection may hold a place without a request. Silent sockets could otherwise
//! hold every place of `HttpOptions::max_connections`: the HTTP/1-or-2 sniff has no deadline,
//! nor has an HTTP/2 connection with no stream open, nor HTTP/1 keep-alive between requests,
//! nor (hyper's own bound is off, below) an HTTP/1 request whose headers trickle in.
//!
//! A connection counts its requests ([`Activity::begin`]; one is open until its response body
//! is dropped) and the reads that brought it bytes ([`Watched`]), and [`Activity::idle`]
//! completes when it must close: no request begun within the first deadline, later none open
//! for the idle timeout, or over HTTP/1 bytes that no request has explained (a head begun,
//! not finished) for the header timeout. A few relaxed atomics per request; the watch wakes a
//! few times per timeout, not per request. hyper's `header_read_timeout` would bound the last
//! case too, but it arms a timer for every request's head — a clock read, an allocation and a
//! registration in the runtime's timer wheel, and the wheel's work at every park: about 1,600
//! instructions a request, 4 % of a call over HTTP.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How many looks at a quiet connection, one timeout apart in all, close it: the connection
/// has been quiet for at least the timeout, and at most a quarter more.
const QUIET_LOOKS: u32 = 5;

/// The first bytes of an HTTP/2 connection's preface (`PRI * HTTP/2.0`): no HTTP/1 method.
const HTTP2_PREFACE_START: &[u8] = b"PRI ";

/// One connection's requests — how many were begun and how many are open — and its reads.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    begun: AtomicU64,
    open: AtomicUsize,
    /// Reads that brought bytes ([`Watched`]).
    reads: AtomicU64,
    /// `reads` when a request last began or the last open one ended: later reads are the
    /// start of a head not yet finished, unless a request is open (its body).
    explained: AtomicU64,
    /// The connection speaks HTTP/2, whose frames come between streams.
    http2: AtomicBool,
}

impl Activity {
    /// A request has begun: it is open until the returned guard (kept by its response body)
    /// is dropped.
    pub(crate) fn begin(self: &Arc<Self>) -> Open {
        self.begun.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::Relaxed);
        self.explain();
        Open(self.clone())
    }

    /// Every read so far is accounted for.
    fn explain(&self) {
        self.explained.store(self.reads.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Whether an HTTP/1 head has begun to arrive and not finished: bytes came with no
    /// request open since the last was begun or ended.
    fn head_pending(&self) -> bool {
        !self.http2.load(Ordering::Relaxed)
            && self.open.load(Ordering::Relaxed) == 0
            && self.reads.load(Ordering::Relaxed) != self.explained.load(Ordering::Relaxed)
    }

    /// Completes when the connection should close: no request begun within `header`, later
    /// none open for `idle`, or an HTTP/1 head unfinished for `header` (closed within the
    /// timeout and a quarter of it).
    pub(crate) async fn idle(&self, header: Duration, idle: Duration) {
        let first_deadline = tokio::time::sleep(header);
        tokio::pin!(first_deadline);
        let mut first_passed = false;
        let mut looks = Looks::every(idle);
        let mut head_looks = Looks::every(header);
        let mut seen = 0;
        let mut quiet = 0;
        let mut head_seen = 0;
        let mut head_pending = 0;
        loop {
            tokio::select! {
                () = &mut first_deadline, if !first_passed => {
                    if self.begun.load(Ordering::Relaxed) == 0 {
                        tracing::debug!(within = ?header, "a connection sent no request in time: closed");
                        return;
                    }
                    first_passed = true;
                }
                _ = looks.0.tick() => {
                    let begun = self.begun.load(Ordering::Relaxed);
                    if begun == seen && self.open.load(Ordering::Relaxed) == 0 {
                        quiet += 1;
                        if quiet == QUIET_LOOKS {
                            tracing::debug!(after = ?idle, "an idle connection closed");
                            return;
                        }
                    } else {
                        seen = begun;
                        quiet = 0;
                    }
                }
                _ = head_looks.0.tick() => {
                    let begun = self.begun.load(Ordering::Relaxed);
                    if begun != head_seen {
                        head_seen = begun;
                        head_pending = 0;
                    }
                    if self.head_pending() {
                        head_pending += 1;
                        if head_pending == QUIET_LOOKS {
                            tracing::debug!(within = ?header, "a request's headers did not arrive in time: closed");
                            return;
                        }
                    } else {
                        head_pending = 0;
                    }
                }
            }
        }
    }
}

/// Looks at a connection, [`QUIET_LOOKS`] to a timeout.
struct Looks(tokio::time::Interval);

impl Looks {
    fn every(timeout: Duration) -> Self {
        // A zero timeout closes a quiet connection at the next looks, a millisecond apart.
        let every = (timeout / (QUIET_LOOKS - 1)).max(Duration::from_millis(1));
        Self(tokio::time::interval_at(tokio::time::Instant::now() + every, every))
    }
}

/// A connection's socket, its reads counted in its [`Activity`]; whether it speaks HTTP/2 is
/// told by its first bytes.
pub(crate) struct Watched<S> {
    socket: S,
    activity: Arc<Activity>,
    /// How many bytes of [`HTTP2_PREFACE_START`] the connection has begun with; `None` once
    /// told.
    sniffing: Option<usize>,
}

impl<S> Watched<S> {
    /// `socket`, counted in `activity`.
    pub(crate) fn new(socket: S, activity: Arc<Activity>) -> Self {
        Self { socket, activity, sniffing: Some(0) }
    }

    /// Reads on whether the connection is HTTP/2 with the bytes a read `brought`, however few
    /// each read brings.
    fn sniff(&mut self, brought: &[u8]) {
        let Some(matched) = self.sniffing else { return };
        let rest = &HTTP2_PREFACE_START[matched..];
        let length = rest.len().min(brought.len());
        self.sniffing = if brought[..length] != rest[..length] {
            None
        } else if length == rest.len() {
            self.activity.http2.store(true, Ordering::Relaxed);
            None
        } else {
            Some(matched + length)
        };
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.socket).poll_read(cx, buf);
        let brought = &buf.filled()[before..];
        if !brought.is_empty() {
            self.sniff(brought);
            self.activity.reads.fetch_add(1, Ordering::Relaxed);
        }
        read
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.socket).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.socket).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}

/// A request that is open: counted in its connection's [`Activity`] until dropped.
#[derive(Debug)]
pub(crate) struct Open(Arc<Activity>);

impl Drop for Open {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.0.explain();
        }
    }
}

/// A response body that holds a guard until the body is done with: its request kept open
/// ([`Open`]), a listen counted ([`super::listens::ListenHeld`]).
pub(crate) struct Tracked<B, G = Open> {
    body: B,
    _guard: G,
}

impl<B, G> Tracked<B, G> {
    /// `body`, holding `guard` while it lives.
    pub(crate) fn new(body: B, guard: G) -> Self {
        Self { body, _guard: guard }
    }
}

impl<B: Body + Unpin, G: Unpin> Body for Tracked<B, G> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(context)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(reads: &[&[u8]]) -> bool {
        let activity = Arc::new(Activity::default());
        let mut watched = Watched::new((), activity.clone());
        for read in reads {
            watched.sniff(read);
        }
        activity.http2.load(Ordering::Relaxed)
    }

    #[test]
    fn http2_is_told_by_its_preface_however_it_is_split() {
        assert!(told(&[b"PRI * HTTP/2.0\r\n"]));
        assert!(told(&[b"P", b"R", b"I", b" * HTTP/2.0"]));
        assert!(told(&[b"PR", b"I *"]));
        assert!(!told(&[b"POST /mcp HTTP/1.1\r\n"]));
        assert!(!told(&[b"P", b"OST"]));
        assert!(!told(&[b"PRI"]), "not yet told");
        assert!(!told(&[b"GET / HTTP/1.1\r\n", b"PRI * HTTP/2.0"]), "told once, by the first bytes");
    }
}
