//! GET: a legacy session's standalone SSE stream, carrying the notifications the session
//! should hear of (list changes, subscribed resource updates), from this instance and, with
//! a bus, from every other. A session holds one such stream here at a time: a new GET takes
//! the place of the open one, which ends once it has sent what it holds, so that no message
//! goes out on two streams (HTTP-52).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Response};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::body::{sse_frames, sse_response};
use super::events;
use super::session::Session;
use super::store::SessionStore;
use super::{McpBody, Shared};
use crate::server::ServerEvent;

/// Opens a GET stream: with `Last-Event-ID` naming one of the session's request streams, the
/// rest of that stream (HTTP-54); otherwise the session's standalone stream, replacing the one
/// open, whose first event carries an id and no data (HTTP-44).
pub(super) async fn open(
    shared: &Arc<Shared>,
    session: Arc<Session>,
    headers: &HeaderMap,
) -> Response<McpBody> {
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    if let Some(last) = last
        && let Some(resumed) = events::resume(&*shared.sessions.stores.events, &session, last).await
    {
        return sse_frames(resumed.missed, resumed.live, resumed.after);
    }
    let (sender, stream) = mpsc::channel(64);
    let gone = CancellationToken::new();
    if session.standalone.replace(sender, gone.clone()) {
        let server = shared.lifecycle.server();
        let store = Store {
            sessions: shared.sessions.stores.sessions.clone(),
            shared_by_instances: server.bus().is_some(),
            check_every: (shared.options.session_idle_timeout / 4).min(MAX_CHECK_EVERY),
        };
        let closing = shared.lifecycle.closing().clone();
        tokio::spawn(dispatch(session.clone(), server.events(), closing, store));
    }
    let priming = Bytes::from(format!("id: {}-0\ndata: \n\n", session.id));
    sse_response(vec![priming], stream, Some(gone.drop_guard()))
}

/// The longest a GET stream goes without asking the store whether its session still exists.
const MAX_CHECK_EVERY: Duration = Duration::from_secs(30);

/// The session store as a GET stream's dispatcher reads it.
struct Store {
    sessions: Arc<dyn SessionStore>,
    /// Whether other instances serve the session too (a bus): its subscriptions may have
    /// changed there, so the store's copy decides who hears of a resource update.
    shared_by_instances: bool,
    /// How often the stream asks whether its session still exists.
    check_every: Duration,
}

/// Sends each server event the session should hear of to its standalone stream of the
/// moment; stops when the client dropped the stream and no other took its place, at
/// shutdown, or once the session is gone: deleted here, or found gone from the store
/// (deleted elsewhere, evicted or expired) at the next look. An open stream keeps its session
/// in use: each look refreshes it.
async fn dispatch(
    session: Arc<Session>,
    mut events: broadcast::Receiver<ServerEvent>,
    closing: CancellationToken,
    store: Store,
) {
    let standalone = &session.standalone;
    let mut looks =
        tokio::time::interval_at(tokio::time::Instant::now() + store.check_every, store.check_every);
    loop {
        let Some(gone) = standalone.watch() else { return };
        let event = tokio::select! {
            () = closing.cancelled() => return standalone.end(),
            // Dropped: a stream that took its place, or none.
            () = gone.cancelled() => continue,
            _ = looks.tick() => {
                match store.sessions.get(&session.id).await {
                    Ok(Some(_)) => session.touch(),
                    Ok(None) => return session.end(),
                    Err(e) => tracing::debug!(error = %e, "a GET stream could not look its session up"),
                }
                continue;
            }
            event = events.recv() => event,
        };
        let notification = match event {
            Ok(event @ ServerEvent::ResourceUpdated(_)) if store.shared_by_instances => {
                match store.sessions.get(&session.id).await {
                    Ok(Some(state)) => state.notification_for(&event),
                    Ok(None) => return session.end(),
                    Err(_) => session.state().notification_for(&event),
                }
            }
            Ok(event) => session.state().notification_for(&event),
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "a session stream missed server events");
                None
            }
            Err(RecvError::Closed) => return standalone.end(),
        };
        if let Some(notification) = notification
            && let Some(stream) = standalone.sender()
        {
            // Gone meanwhile: the message is lost, as on a broken connection.
            let _ = stream.send(notification.into()).await;
        }
    }
}
