//! The log messages of one request. A server's `notifications/message` carries nothing that
//! says which request it is about, but over Streamable HTTP one sent on a request's own
//! response stream is that request's: the client reads that stream in the task that made the
//! request, where [`logs_of_requests`] can claim it. A gateway relays such a log line to the
//! one caller it belongs to, however many calls are in flight to the same server.

use std::future::Future;

use modelctx_protocol::jsonrpc::Notification;
use tokio::sync::mpsc;

tokio::task_local! {
    static LOGS: mpsc::Sender<Notification>;
}

/// Runs `work`; the log messages a server sends on the response stream of a request `work`
/// makes (Streamable HTTP) go to `logs` instead of [`super::Client::notifications`] — dropped
/// when `logs` is full. Log messages that come any other way (stdio, a session's own stream)
/// are broadcast as ever.
pub async fn logs_of_requests<T>(logs: mpsc::Sender<Notification>, work: impl Future<Output = T>) -> T {
    LOGS.scope(logs, work).await
}

/// `note` when it is not a log message the running request claims.
#[cfg(feature = "http-client")]
pub(super) fn unclaimed(note: Notification) -> Option<Notification> {
    if note.method != modelctx_protocol::Method::LoggingMessage {
        return Some(note);
    }
    match LOGS.try_with(|logs| logs.try_send(note.clone())) {
        Ok(Ok(())) => None,
        Ok(Err(_)) => {
            tracing::debug!("a request's log message was dropped: its reader is behind");
            None
        }
        Err(_) => Some(note),
    }
}
