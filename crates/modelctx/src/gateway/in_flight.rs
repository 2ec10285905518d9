//! The calls in flight through the gateway, by backend, each with its inbound request: what
//! routes a 2025-11-25 backend's live questions and log messages, which nothing ties to a
//! call, to the one call that can own them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::server::RequestContext;

/// The calls in flight through the gateway, by backend: each with its inbound request.
#[derive(Default)]
pub(super) struct InFlight {
    calls: Mutex<HashMap<String, Vec<(u64, RequestContext)>>>,
    next_id: AtomicU64,
}

/// One call in [`InFlight`] until dropped.
pub(super) struct Entered<'a> {
    in_flight: &'a InFlight,
    server: &'a str,
    id: u64,
}

impl InFlight {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(u64, RequestContext)>>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Enters a call to `server` for the inbound request `ctx`, until the guard is dropped.
    pub(super) fn enter<'a>(&'a self, server: &'a str, ctx: &RequestContext) -> Entered<'a> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.calls().entry(server.to_owned()).or_default().push((id, ctx.clone()));
        Entered { in_flight: self, server, id }
    }

    /// The inbound request of the one call in flight to `server`, when there is exactly one.
    pub(super) fn sole(&self, server: &str) -> Option<RequestContext> {
        match self.calls().get(server).map(Vec::as_slice) {
            Some([(_, ctx)]) => Some(ctx.clone()),
            _ => None,
        }
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut calls = self.in_flight.calls();
        if let Some(list) = calls.get_mut(self.server) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                calls.remove(self.server);
            }
        }
    }
}
