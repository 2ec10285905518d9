//! GET: a legacy session's standalone SSE stream, carrying the notifications the session
//! should hear of (list changes, subscribed resource updates), from this instance and, with
//! a bus, from every other.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderMap, Response};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use super::body::{sse_frames, sse_response};
use super::events;
use super::sessions::Session;
use super::{McpBody, Shared};
use crate::server::ServerEvent;

/// Opens a GET stream: with `Last-Event-ID` naming one of the session's request streams, the
/// rest of that stream (HTTP-54); otherwise a standalone stream for the session (a client may
/// hold several; each hears every change), whose first event carries an id and no data
/// (HTTP-44).
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
    let mut events = shared.lifecycle.server().events();
    let closing = shared.lifecycle.closing().clone();
    // With a bus, the session may be subscribed on another instance: its store copy decides.
    let store = shared.lifecycle.server().bus().map(|_| shared.sessions.stores.sessions.clone());
    let priming = Bytes::from(format!("id: {}-0\ndata: \n\n", session.id));
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = closing.cancelled() => return,
                () = sender.closed() => return,
                event = events.recv() => event,
            };
            let notification = match event {
                // Whether the session subscribed may have changed on another instance.
                Ok(event @ ServerEvent::ResourceUpdated(_)) => match &store {
                    Some(store) => match store.get(&session.id).await {
                        Ok(Some(state)) => state.notification_for(&event),
                        Ok(None) => return,
                        Err(_) => session.state().notification_for(&event),
                    },
                    None => session.state().notification_for(&event),
                },
                Ok(event) => session.state().notification_for(&event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a session stream missed server events");
                    None
                }
                Err(RecvError::Closed) => return,
            };
            if let Some(notification) = notification
                && sender.send(notification.into()).await.is_err()
            {
                return;
            }
        }
    });
    sse_response(vec![priming], stream, None)
}
