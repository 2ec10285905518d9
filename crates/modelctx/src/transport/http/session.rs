//! One legacy session, as this instance holds it: its state as last read from (or written
//! to) the store, and its live parts here.

use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::era::PeerState;

use super::live::{LiveStreams, Standalone};
use crate::server::LegacySession;
use crate::server::exchange::Exchange;
use crate::telemetry::{SessionMeasure, Side};

/// One legacy session, as this instance holds it.
pub(super) struct Session {
    pub(super) id: String,
    /// The state as last read from (or written to) the store.
    pub(super) state: Mutex<LegacySession>,
    /// The session's requests in flight here and the server's own requests awaiting the
    /// client's answer (which arrives by POST).
    pub(super) exchange: Exchange,
    /// The session's request streams running here.
    pub(super) live: LiveStreams,
    /// The session's standalone (GET) stream here.
    pub(super) standalone: Standalone,
    pub(super) last_used: Mutex<Instant>,
    /// Bumped as a change to the state starts (odd: being written) and once it is in the
    /// store (even): a lookup puts the store's copy in place of ours only if no change was
    /// being written when it read the store, nor started since.
    pub(super) generation: AtomicU64,
    /// Held while a change is written to the store, so changes on this instance do not
    /// overtake each other.
    pub(super) writing: tokio::sync::Mutex<()>,
    /// `mcp.server.session.duration`: how long this instance held the session, recorded when
    /// it lets it go (with one instance, from `initialize` to its end).
    _measure: SessionMeasure,
}

impl Session {
    pub(super) fn new(id: String, state: LegacySession, exchange: Exchange) -> Self {
        let measure = SessionMeasure::start(Side::Server, Some(&state.version), "tcp");
        Self {
            id,
            state: Mutex::new(state),
            exchange,
            live: LiveStreams::default(),
            standalone: Standalone::default(),
            last_used: Mutex::new(Instant::now()),
            generation: AtomicU64::new(0),
            writing: tokio::sync::Mutex::new(()),
            _measure: measure,
        }
    }

    /// The session state (negotiated version, capabilities, log level, subscriptions).
    pub(super) fn state(&self) -> MutexGuard<'_, LegacySession> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session's negotiated version.
    pub(super) fn version(&self) -> ProtocolVersion {
        self.state().version
    }

    /// How long since a request last named the session here.
    pub(super) fn idle_for(&self) -> Duration {
        self.last_used.lock().unwrap_or_else(PoisonError::into_inner).elapsed()
    }

    /// Marks the session used now.
    pub(super) fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Ends what the session holds here, once it is gone (deleted, expired or evicted): its
    /// requests are cancelled and its GET stream closed.
    pub(super) fn end(&self) {
        self.exchange.end();
        self.standalone.end();
    }
}

/// Why no session was found.
pub(super) enum Missing {
    /// The request named none.
    NoHeader,
    /// The request named one that does not exist (or expired).
    Unknown,
}

impl Missing {
    pub(super) fn peer(&self) -> PeerState {
        match self {
            Self::NoHeader => PeerState::NoSession,
            Self::Unknown => PeerState::UnknownSession,
        }
    }
}
