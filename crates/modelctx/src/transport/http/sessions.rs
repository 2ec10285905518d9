//! Legacy sessions of the HTTP transport, by `Mcp-Session-Id`: their state lives in the
//! [`SessionStore`] (shared by instances), their live parts — requests in flight, questions
//! awaiting answers, attached streams — with the instance that runs them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::HeaderValue;
use http::Response;
use modelctx_protocol::jsonrpc::{ErrorObject, RequestId};
use modelctx_protocol::{JsonObject, Method};

use super::HttpOptions;
use super::McpBody;
use super::body::error_response;
use super::relay::{self, LocalSessions};
use super::session::{Missing, Session};
use super::store::{HttpStores, StoreError};
use crate::server::exchange::Lifecycle;
use crate::server::{LegacySession, Principal};
use crate::store::SessionTable;

/// The result of a lookup: the session, or why there is none; `Err` when the store failed.
pub(super) type Lookup = Result<Result<Arc<Session>, Missing>, StoreError>;

/// The sessions of one endpoint.
pub(super) struct Sessions {
    pub(super) stores: HttpStores,
    lifecycle: Arc<Lifecycle>,
    /// Sessions this instance has served, for their live parts.
    local: Arc<LocalSessions>,
    idle: Duration,
    /// Most sessions this instance holds the live parts of (`HttpOptions::max_sessions`).
    max_local: usize,
    /// When the table was last swept of idle sessions.
    swept: Mutex<Instant>,
    /// Whether the messages other instances relay for these sessions are taken (started
    /// once, with the first session, when the server has a bus).
    relaying: AtomicBool,
}

pub(crate) fn fresh_id() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the system random source works");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// How many times a change is applied again on a session other instances changed meanwhile.
const MAX_CHANGE_ATTEMPTS: usize = 16;

/// A store failure as the client sees it.
pub(super) fn store_failure(error: &StoreError) -> ErrorObject {
    ErrorObject::internal(format!("the session store failed: {error}"))
}

/// A store failure answering a request outright: 503, for the store is away for a while
/// (Redis restarting) and the request may be sent again.
pub(super) fn store_unavailable(id: Option<RequestId>, error: &StoreError) -> Response<McpBody> {
    error_response(503, id, store_failure(error))
}

/// A change to a session's state being written: the generation is odd from its start to its
/// end, however the end comes (the request may be dropped mid-write).
struct Changing<'a>(&'a AtomicU64);

impl<'a> Changing<'a> {
    fn start(generation: &'a AtomicU64) -> Self {
        generation.fetch_add(1, Ordering::AcqRel);
        Self(generation)
    }
}

impl Drop for Changing<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

impl Sessions {
    pub(super) fn new(options: &HttpOptions, lifecycle: Arc<Lifecycle>) -> Self {
        let stores = options
            .stores
            .clone()
            .unwrap_or_else(|| HttpStores::in_memory(options.session_idle_timeout, options.max_sessions));
        let local = Arc::new(Mutex::new(SessionTable::default()));
        Self {
            stores,
            lifecycle,
            local,
            idle: options.session_idle_timeout,
            max_local: options.max_sessions.max(1),
            swept: Mutex::new(Instant::now()),
            relaying: AtomicBool::new(false),
        }
    }

    fn local(&self) -> MutexGuard<'_, SessionTable<Arc<Session>>> {
        self.relay_others();
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts taking the answers and cancellations other instances relay for the sessions
    /// held here, once (with a bus, in a runtime).
    fn relay_others(&self) {
        let server = self.lifecycle.server();
        if server.bus().is_none() || self.relaying.swap(true, Ordering::AcqRel) {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(relay::relay(server.clone(), Arc::downgrade(&self.local)))),
            Err(_) => self.relaying.store(false, Ordering::Release),
        }
    }

    /// The session a request's `Mcp-Session-Id` (`id`) names, as the store knows it now; a
    /// session another principal opened is unknown to this caller.
    pub(super) async fn lookup(&self, id: Option<&HeaderValue>, principal: Option<&Principal>) -> Lookup {
        let Some(id) = id else { return Ok(Err(Missing::NoHeader)) };
        let Ok(id) = id.to_str() else { return Ok(Err(Missing::Unknown)) };
        let seen = self.local().get(id).map(|session| session.generation.load(Ordering::Acquire));
        let Some(state) = self.stores.sessions.get(id).await? else {
            if let Some(gone) = self.local().remove(id) {
                gone.end();
            }
            return Ok(Err(Missing::Unknown));
        };
        // Another principal's session is no session of this caller's: 404, as if unknown.
        if state.owner != principal.map(Principal::key) {
            return Ok(Err(Missing::Unknown));
        }
        let session = {
            let mut local = self.local();
            match local.get(id) {
                Some(session) => Arc::clone(session),
                None => {
                    self.make_room(&mut local);
                    let session = Arc::new(Session::new(
                        id.to_owned(),
                        state.clone(),
                        self.lifecycle.client_exchange(),
                    ));
                    local.insert(id.to_owned(), Arc::clone(&session));
                    session
                }
            }
        };
        {
            let mut current = session.state();
            if seen.is_some_and(|seen| seen % 2 == 0 && seen == session.generation.load(Ordering::Acquire)) {
                *current = state;
            }
        }
        session.touch();
        Ok(Ok(session))
    }

    /// Serves a request that reads or changes the session state (`ping`, `logging/setLevel`,
    /// `resources/subscribe`, …) and writes a change to the store before answering
    /// ([`Sessions::change`]); `None` when `method` is not one.
    pub(super) async fn serve_own(
        &self,
        session: &Session,
        server: &crate::server::Server,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Option<Result<JsonObject, ErrorObject>> {
        // A ping changes nothing: answered without a copy of the state to compare with.
        if *method == Method::Ping {
            return session.state().handle(server, method, params);
        }
        match self.change(session, |state| state.handle(server, method, params.clone())).await {
            Ok(served) => served,
            Err(error) => Some(Err(error)),
        }
    }

    /// Applies `change` to the session's state and, when it changed anything, writes the
    /// result to the store before returning what `change` returned. Changes on one instance
    /// are applied one after the other; one another instance made meanwhile is read back and
    /// `change` applied again on top of it (the store compares and sets), so that none is lost
    /// (the store's copy used to be overwritten blindly).
    pub(super) async fn change<R>(
        &self,
        session: &Session,
        mut change: impl FnMut(&mut LegacySession) -> R,
    ) -> Result<R, ErrorObject> {
        let _writing = session.writing.lock().await;
        for _ in 0..MAX_CHANGE_ATTEMPTS {
            let (result, written, _changing) = {
                let mut state = session.state();
                let changing = Changing::start(&session.generation);
                let before = state.clone();
                let result = change(&mut state);
                let written = (*state != before).then(|| (before, state.clone()));
                (result, written, changing)
            };
            let Some((before, after)) = written else { return Ok(result) };
            let sessions = &self.stores.sessions;
            if sessions.update(&session.id, &before, after).await.map_err(|e| store_failure(&e))? {
                return Ok(result);
            }
            match sessions.get(&session.id).await.map_err(|e| store_failure(&e))? {
                Some(current) => *session.state() = current,
                None => {
                    return Err(store_failure(&StoreError(format!(
                        "session {} ended meanwhile",
                        session.id
                    ))));
                }
            }
        }
        Err(ErrorObject::internal(format!(
            "the session kept changing on other instances; the change was given up after {MAX_CHANGE_ATTEMPTS} attempts"
        )))
    }

    /// Stores a new session; this instance forgets the live parts of those idle too long.
    pub(super) async fn create(&self, state: LegacySession) -> Result<Arc<Session>, ErrorObject> {
        let id = fresh_id();
        self.stores.sessions.create(&id, state.clone()).await.map_err(|e| ErrorObject::internal(e.0))?;
        let session = Arc::new(Session::new(id.clone(), state, self.lifecycle.client_exchange()));
        let mut local = self.local();
        self.make_room(&mut local);
        local.insert(id, session.clone());
        Ok(session)
    }

    /// Makes room in this instance's table for one more session: the sessions idle too long
    /// go (at `max_local`, or once a quarter of the idle timeout passed since they last went),
    /// then, at `max_local`, the least recently used that nothing here holds (a request or a
    /// GET stream holds its session). A session let go here is still in the store: its next
    /// request brings it back. (Sessions the store evicted used to stay here for the idle
    /// timeout, and every `initialize` scanned them all.)
    fn make_room(&self, local: &mut SessionTable<Arc<Session>>) {
        let mut swept = self.swept.lock().unwrap_or_else(PoisonError::into_inner);
        if local.len() < self.max_local && swept.elapsed() < self.idle / 4 {
            return;
        }
        *swept = Instant::now();
        drop(swept);
        local.retain(|_, session| Arc::strong_count(session) > 1 || session.idle_for() <= self.idle);
        crate::store::shrink_when_sparse(local);
        while local.len() >= self.max_local {
            let unheld = local.iter().filter(|(_, session)| Arc::strong_count(session) == 1);
            let Some(oldest) = unheld.max_by_key(|(_, session)| session.idle_for()).map(|(id, _)| id.clone())
            else {
                break;
            };
            local.remove(&oldest);
        }
    }

    /// Ends a session (DELETE): its requests here are cancelled, its GET stream closed, and
    /// its id answers 404 from now on, on every instance.
    pub(super) async fn remove(&self, session: &Session) -> Result<(), StoreError> {
        {
            let mut local = self.local();
            local.remove(&session.id);
            crate::store::shrink_when_sparse(&mut local);
        }
        session.end();
        self.stores.sessions.remove(&session.id).await?;
        self.stores.events.forget(&session.id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Server;
    use modelctx_protocol::ProtocolVersion;

    /// This instance's table of live sessions stays within `max_sessions`, however many the
    /// store evicts (the sessions it evicted stayed here for the idle timeout: 20,000
    /// `initialize`s added 32 MiB, and each scanned them all); one a request holds stays.
    #[tokio::test]
    async fn the_table_of_live_sessions_stays_within_the_bound() {
        let server = Server::builder("s", "1").build().unwrap();
        let options = HttpOptions { max_sessions: 4, ..HttpOptions::default() };
        let sessions = Sessions::new(&options, Lifecycle::new(server.clone()));
        let params = serde_json::json!({
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}
        });
        let state = || {
            let params = params.as_object().cloned();
            LegacySession::initialize(&server, ProtocolVersion::V2025_11_25, params).unwrap().0
        };
        let held = sessions.create(state()).await.unwrap();
        for _ in 0..100 {
            sessions.create(state()).await.unwrap();
        }
        let local = sessions.local();
        assert_eq!(local.len(), 4);
        assert!(local.contains_key(&held.id), "a session a request holds is kept");
    }
}
