//! How long a connection may hold a place without a request. hyper bounds the time a
//! request's headers take, but not the wait for the first bytes (the HTTP/1-or-2 sniff has no
//! deadline), nor an HTTP/2 connection with no stream open, nor HTTP/1 keep-alive between
//! requests: silent sockets could hold every place of `HttpOptions::max_connections`.
//!
//! A connection counts its requests ([`Activity::begin`]; one is open until its response body
//! is dropped) and [`Activity::idle`] completes when it must close: no request begun within
//! the first deadline, or none open for the idle timeout. Two relaxed atomics per request; the
//! watch wakes a few times per idle timeout, not per request.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};

/// How many looks at a quiet connection, one idle timeout apart in all, close it: the
/// connection has had no request open for at least the idle timeout, and at most a quarter
/// more.
const QUIET_LOOKS: u32 = 5;

/// One connection's requests: how many were begun and how many are open.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    begun: AtomicU64,
    open: AtomicUsize,
}

impl Activity {
    /// A request has begun: it is open until the returned guard (kept by its response body)
    /// is dropped.
    pub(crate) fn begin(self: &Arc<Self>) -> Open {
        self.begun.fetch_add(1, Ordering::Relaxed);
        self.open.fetch_add(1, Ordering::Relaxed);
        Open(self.clone())
    }

    /// Completes when the connection should close: no request begun within `first`, or later
    /// none open for `idle` (closed within `idle` and a quarter of it).
    pub(crate) async fn idle(&self, first: Duration, idle: Duration) {
        let first_deadline = tokio::time::sleep(first);
        tokio::pin!(first_deadline);
        let mut first_passed = false;
        // A zero idle timeout closes a quiet connection at the next looks, a millisecond apart.
        let look_every = (idle / (QUIET_LOOKS - 1)).max(Duration::from_millis(1));
        let mut looks = tokio::time::interval_at(tokio::time::Instant::now() + look_every, look_every);
        let mut seen = 0;
        let mut quiet = 0;
        loop {
            tokio::select! {
                () = &mut first_deadline, if !first_passed => {
                    if self.begun.load(Ordering::Relaxed) == 0 {
                        tracing::debug!(within = ?first, "a connection sent no request in time: closed");
                        return;
                    }
                    first_passed = true;
                }
                _ = looks.tick() => {
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
            }
        }
    }
}

/// A request that is open: counted in its connection's [`Activity`] until dropped.
#[derive(Debug)]
pub(crate) struct Open(Arc<Activity>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
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
