//! The calls in flight through the gateway, by backend, each with its inbound request: what
//! routes a 2025-11-25 backend's live questions and log messages, which nothing ties to a
//! call, to the one call that can own them; and the backend tasks being followed, each with
//! its inbound request, which route the questions that name their task.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::server::RequestContext;

/// The calls in flight through the gateway, by backend: each with its inbound request.
#[derive(Default)]
pub(super) struct InFlight {
    calls: Mutex<HashMap<String, Vec<(u64, RequestContext)>>>,
    next_id: AtomicU64,
    /// The inbound request of each backend task being followed, by backend and task id.
    tasks: Mutex<HashMap<(String, String), RequestContext>>,
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

    /// Backend `server`'s task `id` is followed for the inbound request `ctx`.
    pub(super) fn task_started(&self, server: &str, id: &str, ctx: &RequestContext) {
        self.task_map().insert((server.to_owned(), id.to_owned()), ctx.clone());
    }

    /// Backend `server`'s task `id` is no longer followed.
    pub(super) fn task_ended(&self, server: &str, id: &str) {
        self.task_map().remove(&(server.to_owned(), id.to_owned()));
    }

    /// The inbound request for which backend `server`'s task `id` is followed.
    pub(super) fn for_task(&self, server: &str, id: &str) -> Option<RequestContext> {
        self.task_map().get(&(server.to_owned(), id.to_owned())).cloned()
    }

    fn task_map(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), RequestContext>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
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
