//! GET: a legacy session's standalone SSE stream, carrying the notifications the session
//! should hear of (list changes, subscribed resource updates).

use std::sync::Arc;

use bytes::Bytes;
use http::Response;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use super::body::sse_response;
use super::sessions::Session;
use super::{McpBody, Shared};

/// Opens a stream for the session (a client may hold several; each hears every change). The
/// first event carries an id and no data, so the client has an id to resume from (HTTP-44).
pub(super) fn open(shared: &Arc<Shared>, session: Arc<Session>) -> Response<McpBody> {
    let (sender, stream) = mpsc::channel(64);
    let mut events = shared.server.events();
    let closing = shared.closing.clone();
    let priming = Bytes::from(format!("id: {}-0\ndata: \n\n", session.id));
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = closing.cancelled() => return,
                () = sender.closed() => return,
                event = events.recv() => event,
            };
            let notification = match event {
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
