//! Seeing every JSON-RPC message of a connection: what an inspector logs, or a test records.

use std::fmt;
use std::sync::Arc;

/// Which way a message went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireDirection {
    /// From the client to the server.
    Sent,
    /// From the server to the client.
    Received,
}

/// Called with every JSON-RPC message the client sends or receives, as its JSON text
/// ([`ClientOptions::wire_tap`](super::ClientOptions::wire_tap)): over stdio each line, over
/// HTTP each body posted and each message of a JSON answer or an event stream. It runs on the
/// connection's own tasks, so it must be quick (push to a channel, say).
#[derive(Clone)]
pub struct WireTap(Arc<See>);

/// What a tap calls.
type See = dyn Fn(WireDirection, &str) + Send + Sync;

impl WireTap {
    /// A tap that hands each message to `see`.
    pub fn new(see: impl Fn(WireDirection, &str) + Send + Sync + 'static) -> Self {
        Self(Arc::new(see))
    }

    pub(crate) fn sent(&self, message: &str) {
        (self.0)(WireDirection::Sent, message);
    }

    pub(crate) fn received(&self, message: &str) {
        (self.0)(WireDirection::Received, message);
    }
}

impl fmt::Debug for WireTap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WireTap(..)")
    }
}
