//! The `subscriptions/listen` streams of stateless 2026-07-28 requests that one connection
//! holds open ([`HttpOptions::max_listens_per_connection`](super::HttpOptions)). The endpoint
//! bounds them all together (`Limits::max_subscriptions`); this share keeps a few connections
//! from holding every one of them (four HTTP/2 connections of 256 streams each used to lock
//! every other client's listens out). `serve_http` hands each connection's count to the
//! endpoint with each request; an endpoint served some other way (`McpHttp::handle`) has the
//! endpoint's bound alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One connection's open listens.
#[derive(Debug, Default)]
pub(crate) struct ConnectionListens(AtomicUsize);

impl ConnectionListens {
    /// One more listen, unless `max` are open: held until the returned guard is dropped.
    pub(crate) fn take(self: &Arc<Self>, max: usize) -> Option<ListenHeld> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| (open < max).then_some(open + 1))
            .ok()?;
        Some(ListenHeld(Arc::clone(self)))
    }
}

/// An open listen, counted in its connection's [`ConnectionListens`] until dropped.
#[derive(Debug)]
pub(crate) struct ListenHeld(Arc<ConnectionListens>);

impl Drop for ListenHeld {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::AcqRel);
    }
}
