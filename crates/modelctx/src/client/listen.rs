//! Subscribed changes as a stream, in both eras.

use futures::Stream;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::{meta, v2026};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::dialect::Dialect;
use super::{Client, ClientError, UNBOUNDED};

/// The notifications a subscription asked for.
struct Wanted {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
    /// `notifications/events/list_changed` (experimental).
    #[cfg(feature = "experimental")]
    events: bool,
    /// The subscription's id (its `subscriptions/listen` request id), once acknowledged.
    subscription: Option<Value>,
}

impl From<&v2026::SubscriptionFilter> for Wanted {
    fn from(filter: &v2026::SubscriptionFilter) -> Self {
        Self {
            tools: filter.tools_list_changed == Some(true),
            prompts: filter.prompts_list_changed == Some(true),
            resources: filter.resources_list_changed == Some(true),
            uris: filter.resource_subscriptions.clone().unwrap_or_default(),
            #[cfg(feature = "experimental")]
            events: filter.events_list_changed == Some(true),
            subscription: None,
        }
    }
}

/// The `subscriptionId` a notification carries in `_meta`, if any.
fn subscription_of(note: &Notification) -> Option<&Value> {
    note.params.as_ref()?.get("_meta")?.get(meta::SUBSCRIPTION_ID)
}

impl Wanted {
    fn includes(&self, note: &Notification) -> bool {
        // SUB-05: a notification tagged for another subscription is not this one's.
        if let (Some(ours), Some(theirs)) = (&self.subscription, subscription_of(note))
            && ours != theirs
        {
            return false;
        }
        match note.method {
            Method::ToolListChanged => self.tools,
            Method::PromptListChanged => self.prompts,
            Method::ResourceListChanged => self.resources,
            Method::ResourceUpdated => {
                let uri = note.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str);
                uri.is_some_and(|uri| self.uris.iter().any(|wanted| wanted == uri))
            }
            #[cfg(feature = "experimental")]
            Method::Other(ref method) if &**method == modelctx_protocol::events::LIST_CHANGED => self.events,
            _ => false,
        }
    }
}

impl Client {
    /// Subscribes to the changes `filter` names and returns them as a stream: in 2026-07-28 a
    /// `subscriptions/listen` request held open (returning once the server acknowledged it;
    /// dropping the stream cancels it), in 2025-11-25 `resources/subscribe` for each URI, the
    /// list changes arriving on the connection (or the HTTP session stream) anyway.
    pub async fn listen(
        &self,
        filter: v2026::SubscriptionFilter,
    ) -> Result<impl Stream<Item = Notification> + Send + '_, ClientError> {
        // One 2026-07-28 subscription is set up at a time, its notifications heard from
        // then on: the acknowledgement that follows its request is its own.
        let setup = match self.dialect {
            Dialect::Modern => Some(self.listen_setup.lock().await),
            Dialect::Legacy => None,
        };
        let mut notes = self.notifications();
        let mut wanted = Wanted::from(&filter);
        let listen = match self.dialect {
            Dialect::Modern => {
                let params = json!({"notifications": filter});
                let params = params.as_object().cloned().unwrap_or_default();
                let mut call = Box::pin(self.request_within(&Method::SubscriptionsListen, params, UNBOUNDED));
                let acknowledged = async {
                    loop {
                        match notes.recv().await {
                            Ok(note) if note.method == Method::SubscriptionsAcknowledged => {
                                return subscription_of(&note).cloned();
                            }
                            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                            Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
                        }
                    }
                };
                tokio::select! {
                    ended = &mut call => return Err(ended.err().unwrap_or_else(|| ClientError::invalid_result(Method::SubscriptionsListen, "the subscription ended before it was acknowledged"))),
                    subscription = acknowledged => {
                        wanted.subscription = subscription;
                        drop(setup);
                    }
                    () = tokio::time::sleep(self.options.request_timeout) => {
                        return Err(ClientError::timeout(Method::SubscriptionsListen, self.options.request_timeout));
                    }
                }
                Some(call)
            }
            Dialect::Legacy => {
                for uri in filter.resource_subscriptions.iter().flatten() {
                    self.request(Method::Subscribe, json!({"uri": uri})).await?;
                }
                None
            }
        };
        Ok(futures::stream::unfold((listen, notes, wanted), |(mut listen, mut notes, wanted)| async move {
            loop {
                let note = match &mut listen {
                    Some(call) => tokio::select! {
                        _ = call => return None,
                        note = notes.recv() => note,
                    },
                    None => notes.recv().await,
                };
                match note {
                    Ok(note) if wanted.includes(&note) => return Some((note, (listen, notes, wanted))),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        }))
    }
}
