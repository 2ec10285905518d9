//! GET: a legacy session's standalone SSE stream, carrying the notifications the session
//! should hear of (list changes, subscribed resource updates), from this instance and, with
//! a bus, from every other. A session holds one such stream here at a time: a new GET takes
//! the place of the open one, which ends once it has sent what it holds, so that no message
//! goes out on two streams (HTTP-52).

use std::sync::Arc;

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
        // With a bus, the session may be subscribed on another instance: its store copy decides.
        let store = server.bus().map(|_| shared.sessions.stores.sessions.clone());
        let closing = shared.lifecycle.closing().clone();
        tokio::spawn(dispatch(session.clone(), server.events(), closing, store));
    }
    let priming = Bytes::from(format!("id: {}-0\ndata: \n\n", session.id));
    sse_response(vec![priming], stream, Some(gone.drop_guard()))
}

/// Sends each server event the session should hear of to its standalone stream of the
/// moment; stops when the client dropped the stream and no other took its place, at
/// shutdown, or once the session is gone.
async fn dispatch(
    session: Arc<Session>,
    mut events: broadcast::Receiver<ServerEvent>,
    closing: CancellationToken,
    store: Option<Arc<dyn SessionStore>>,
) {
    let standalone = &session.standalone;
    loop {
        let Some(gone) = standalone.watch() else { return };
        let event = tokio::select! {
            () = closing.cancelled() => return standalone.end(),
            // Dropped: a stream that took its place, or none.
            () = gone.cancelled() => continue,
            event = events.recv() => event,
        };
        let notification = match event {
            // Whether the session subscribed may have changed on another instance.
            Ok(event @ ServerEvent::ResourceUpdated(_)) => match &store {
                Some(store) => match store.get(&session.id).await {
                    Ok(Some(state)) => state.notification_for(&event),
                    Ok(None) => return standalone.end(),
                    Err(_) => session.state().notification_for(&event),
                },
                None => session.state().notification_for(&event),
            },
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
