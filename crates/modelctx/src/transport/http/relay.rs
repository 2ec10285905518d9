//! What a legacy client sends one instance for another: its answer to a server request (and
//! its cancellation of a request) reaches the instance where that request waits, through the
//! server's bus — so a deployment needs no sticky sessions.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures::StreamExt as _;
use modelctx_protocol::jsonrpc::{Message, parse_message};
use serde_json::{Value, json};

use super::session::Session;
use crate::server::Server;
use crate::store::SessionTable;

/// The bus topic of messages relayed between instances.
const RELAYED: &str = "session-messages";

/// How long to wait before subscribing to the bus again after it failed.
const RESUBSCRIBE_AFTER: Duration = Duration::from_secs(1);

/// The sessions this instance holds live parts of, by id.
pub(super) type LocalSessions = Mutex<SessionTable<Arc<Session>>>;

/// Hands `message` — an answer, an error, or a cancellation the session's requests here did
/// not take — to the other instances, one of which holds what it is for. Without a bus it
/// is dropped (nothing else could take it).
pub(super) async fn forward(server: &Server, session: &Session, message: &Message) {
    let Some(bus) = server.bus() else {
        return tracing::debug!(session = %session.id, "a message for no request of this instance");
    };
    let relayed = json!({"from": server.instance(), "session": session.id, "message": message.to_json()});
    if let Err(e) = bus.publish(RELAYED, relayed.to_string()).await {
        tracing::warn!(error = %e, "a client's message could not be relayed to the other instances");
    }
}

/// Applies the messages other instances relay to this instance's sessions, while `local`
/// lasts (the endpoint is alive).
pub(super) async fn relay(server: Server, local: Weak<LocalSessions>) {
    let Some(bus) = server.bus().cloned() else { return };
    loop {
        match bus.subscribe(RELAYED).await {
            Ok(mut messages) => {
                while let Some(relayed) = messages.next().await {
                    let Some(local) = local.upgrade() else { return };
                    apply(&server, &local, &relayed);
                }
                tracing::warn!("the bus subscription ended; subscribing again");
            }
            Err(e) => tracing::warn!(error = %e, "could not subscribe to the bus; trying again"),
        }
        if local.upgrade().is_none() {
            return;
        }
        tokio::time::sleep(RESUBSCRIBE_AFTER).await;
    }
}

fn apply(server: &Server, local: &LocalSessions, relayed: &str) {
    let Ok(relayed) = serde_json::from_str::<Value>(relayed) else { return };
    let text = |member: &str| relayed.get(member).and_then(Value::as_str);
    let (Some(from), Some(session), Some(message)) = (text("from"), text("session"), text("message")) else {
        return;
    };
    if from == server.instance() {
        return;
    }
    let Some(session) = local.lock().unwrap_or_else(PoisonError::into_inner).get(session).cloned() else {
        return;
    };
    match parse_message(message.as_bytes()) {
        Ok(Message::Response(answer)) => {
            drop(session.exchange.deliver(answer.id, Ok(answer.result)));
        }
        Ok(Message::Error(error)) => {
            if let Some(id) = error.id {
                drop(session.exchange.deliver(id, Err(error.error)));
            }
        }
        Ok(Message::Notification(notification)) => {
            session.exchange.cancel(notification.params);
        }
        Ok(Message::Request(_)) | Err(_) => {}
    }
}
