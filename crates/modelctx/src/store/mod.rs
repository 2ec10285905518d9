//! What outlives one request or one instance, behind traits so that the instances of one
//! deployment can share it through a database or a cache: the store errors every store
//! answers with, the [`Bus`] that carries changes and answers between instances, and the
//! [`OnceStore`] that remembers what may be used only once, and (feature `rate-limit`) the
//! `RateStore` that keeps call budgets.
//!
//! The other stores sit with what they store: legacy sessions and their event logs in
//! [`transport::http`](crate::transport::http) (`SessionStore`, `EventStore`), tasks in
//! [`server::tasks`](crate::server::tasks) (`TaskStore`). Each has an in-memory
//! implementation, the default; the `modelctx-redis` crate has shared ones. [`contract`] holds
//! the tests every implementation must pass.

mod bus;
#[cfg(any(all(test, feature = "http-server"), feature = "store-contract"))]
pub mod contract;
mod once;
#[cfg(feature = "rate-limit")]
mod rate;

use std::fmt;

use futures::future::BoxFuture;

pub use bus::{Bus, BusMessages, LocalBus};
pub use once::{MemoryOnceStore, OnceStore};
#[cfg(feature = "rate-limit")]
pub use rate::{MemoryRateStore, Rate, RateStore};

/// Why a store could not do what was asked; the client gets `-32603` with this message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// What a store operation returns.
pub type StoreFuture<'a, T> = BoxFuture<'a, Result<T, StoreError>>;

#[cfg(feature = "http-server")]
/// A table of sessions by their id, looked up on every request of a session: hashed with
/// `foldhash` (seeded per process) rather than SipHash. The ids entered are the server's own
/// random text; a client chooses only the id it looks up, and cannot make entries collide.
pub(crate) type SessionTable<V> = std::collections::HashMap<String, V, foldhash::fast::RandomState>;

#[cfg(feature = "server")]
/// Gives back the room of a table that held many more entries than it holds now (a
/// `HashMap` keeps its capacity: 10,000 sessions, once gone, held 10 MiB of empty buckets).
pub(crate) fn shrink_when_sparse<K: std::hash::Hash + Eq, V, S: std::hash::BuildHasher>(
    table: &mut std::collections::HashMap<K, V, S>,
) {
    if table.capacity() > 4 * table.len().max(16) {
        table.shrink_to(2 * table.len());
    }
}
