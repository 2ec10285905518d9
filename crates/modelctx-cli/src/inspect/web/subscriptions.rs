//! The resources the page follows: one subscription per URI, held by `Client::listen` in either
//! era (a `subscriptions/listen` stream in 2026-07-28, `resources/subscribe` in 2025-11-25),
//! each update told to the page as a `resource-updated` event (the page reads it again), at most
//! [`MAX_SUBSCRIPTIONS`] at once per server. Ending one drops its stream (which cancels the
//! listen) and, in a 2025-11-25 session, sends `resources/unsubscribe`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use futures::StreamExt as _;
use modelctx::client::Client;
use modelctx::protocol::v2026::SubscriptionFilter;
use serde_json::json;
use tokio::task::AbortHandle;

use super::session::Session;

/// Resources followed at once per server, at most.
pub const MAX_SUBSCRIPTIONS: usize = 16;

/// Why a subscription was not made.
pub enum Refused {
    /// The URI is followed already.
    Already,
    /// [`MAX_SUBSCRIPTIONS`] are followed.
    Full,
    /// The server refused it (or the connection failed): its words.
    Server(String),
}

/// The subscriptions of one server, by URI.
#[derive(Default)]
pub struct Subscriptions {
    by_uri: Mutex<HashMap<String, AbortHandle>>,
}

impl Subscriptions {
    /// Follows `uri` on `client`, telling `session` of each update; returns once the server
    /// acknowledged the subscription.
    pub async fn follow(
        &self,
        session: &Arc<Session>,
        client: Arc<Client>,
        uri: String,
    ) -> Result<(), Refused> {
        {
            let by_uri = self.by_uri.lock().unwrap_or_else(PoisonError::into_inner);
            if by_uri.contains_key(&uri) {
                return Err(Refused::Already);
            }
            if by_uri.len() >= MAX_SUBSCRIPTIONS {
                return Err(Refused::Full);
            }
        }
        let (acknowledged, heard) = tokio::sync::oneshot::channel();
        let told: Weak<Session> = Arc::downgrade(session);
        let followed = uri.clone();
        let task = tokio::spawn(async move {
            let filter = SubscriptionFilter {
                resource_subscriptions: Some(vec![followed.clone()]),
                ..Default::default()
            };
            let updates = match client.listen(filter).await {
                Ok(updates) => {
                    let _ = acknowledged.send(Ok(()));
                    updates
                }
                Err(error) => {
                    let _ = acknowledged.send(Err(error.to_string()));
                    return;
                }
            };
            futures::pin_mut!(updates);
            while updates.next().await.is_some() {
                let Some(session) = told.upgrade() else { return };
                session.emit(json!({"kind": "resource-updated", "uri": followed}));
            }
        });
        match heard.await {
            Ok(Ok(())) => {
                let mut by_uri = self.by_uri.lock().unwrap_or_else(PoisonError::into_inner);
                if by_uri.contains_key(&uri) {
                    // Another request followed it meanwhile: that one stays.
                    task.abort();
                    return Err(Refused::Already);
                }
                by_uri.insert(uri, task.abort_handle());
                Ok(())
            }
            Ok(Err(why)) => Err(Refused::Server(why)),
            Err(_) => Err(Refused::Server("the subscription ended before the server acknowledged it".into())),
        }
    }

    /// Stops following `uri` (in 2025-11-25 the caller also unsubscribes); `false` when it was
    /// not followed.
    pub fn end(&self, uri: &str) -> bool {
        let ended = self.by_uri.lock().unwrap_or_else(PoisonError::into_inner).remove(uri);
        ended.inspect(AbortHandle::abort).is_some()
    }

    /// The URIs followed.
    pub fn uris(&self) -> Vec<String> {
        let mut uris: Vec<String> =
            self.by_uri.lock().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect();
        uris.sort();
        uris
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for (_, task) in self.by_uri.get_mut().unwrap_or_else(PoisonError::into_inner).drain() {
            task.abort();
        }
    }
}
