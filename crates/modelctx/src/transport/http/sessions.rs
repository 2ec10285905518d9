//! Legacy sessions of the HTTP transport, by `Mcp-Session-Id` (kept in memory).

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderMap;
use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::era::PeerState;
use modelctx_protocol::headers::MCP_SESSION_ID;
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject, RequestId};
use tokio_util::sync::CancellationToken;

use super::HttpOptions;
use super::events::EventLog;
use crate::server::LegacySession;
use crate::server::input::PendingAnswers;

/// One legacy session.
pub(super) struct Session {
    pub(super) id: String,
    state: Mutex<LegacySession>,
    /// Server-to-client requests awaiting the client's answer (which arrives by POST).
    pub(super) answers: PendingAnswers,
    pub(super) next_outgoing_id: Arc<AtomicU64>,
    /// The session's request streams, for resumption.
    pub(super) events: EventLog,
    /// Requests in flight, for `notifications/cancelled`.
    pub(super) in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    last_seen: Mutex<Instant>,
}

impl Session {
    /// The session state (negotiated version, capabilities, log level, subscriptions).
    pub(super) fn state(&self) -> MutexGuard<'_, LegacySession> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn version(&self) -> ProtocolVersion {
        self.state().version
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

/// Every session of one endpoint.
pub(super) struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
    idle: Duration,
    max: usize,
}

fn fresh_id() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the system random source works");
    URL_SAFE_NO_PAD.encode(bytes)
}

impl Sessions {
    pub(super) fn new(options: &HttpOptions) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            idle: options.session_idle_timeout,
            max: options.max_sessions,
        }
    }

    fn map(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The session the request names, refreshing its idle clock.
    pub(super) fn lookup(&self, headers: &HeaderMap) -> Result<Arc<Session>, Missing> {
        let Some(id) = headers.get(MCP_SESSION_ID) else { return Err(Missing::NoHeader) };
        let id = id.to_str().map_err(|_| Missing::Unknown)?;
        let mut map = self.map();
        let session = map.get(id).cloned().ok_or(Missing::Unknown)?;
        let mut last_seen = session.last_seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if last_seen.elapsed() > self.idle {
            drop(last_seen);
            map.remove(id);
            return Err(Missing::Unknown);
        }
        *last_seen = Instant::now();
        drop(last_seen);
        Ok(session)
    }

    /// Stores a new session, forgetting expired ones first; refuses beyond the limit.
    pub(super) fn create(&self, state: LegacySession) -> Result<Arc<Session>, ErrorObject> {
        let mut map = self.map();
        map.retain(|_, s| s.last_seen.lock().map(|t| t.elapsed() <= self.idle).unwrap_or(false));
        if map.len() >= self.max {
            return Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("this server holds its maximum of {} sessions; try again later", self.max),
            ));
        }
        let session = Arc::new(Session {
            id: fresh_id(),
            state: Mutex::new(state),
            answers: PendingAnswers::default(),
            next_outgoing_id: Arc::new(AtomicU64::new(1)),
            events: EventLog::default(),
            in_flight: Mutex::new(HashMap::new()),
            last_seen: Mutex::new(Instant::now()),
        });
        map.insert(session.id.clone(), session.clone());
        Ok(session)
    }

    /// Ends a session (DELETE): its requests are cancelled and its id answers 404 from now on.
    pub(super) fn remove(&self, session: &Session) {
        self.map().remove(&session.id);
        for token in session.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner).values() {
            token.cancel();
        }
    }
}
