//! Events (experimental, SEP-3415), the client's side: the event types a server lists, a poll,
//! and a push stream as a `Stream`.

use futures::Stream;
use modelctx_protocol::events::{
    ACTIVE, ERROR, EVENT, EXTENSION_ID, EventOccurrence, EventType, HEARTBEAT, LIST, ListResult, POLL,
    PollResult, STREAM, SUBSCRIBE, StreamPosition, SubscribeParams, SubscribeResult, SubscriptionParams,
    TERMINATED, UNSUBSCRIBE, UnsubscribeParams,
};
use modelctx_protocol::jsonrpc::{ErrorObject, Notification};
use modelctx_protocol::{Method, meta};
use serde_json::Value;
use tokio::sync::broadcast;

use super::{Client, ClientError, UNBOUNDED};

/// What a push stream brings, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum EventStreamItem {
    /// The stream is active from this position (first; again after a gap, `truncated`).
    Active(StreamPosition),
    /// An occurrence, with the position after it.
    Event(EventOccurrence),
    /// Nothing happened up to this position.
    Heartbeat(StreamPosition),
    /// A recoverable failure; the stream goes on.
    Error(ErrorObject),
    /// The server ended the subscription.
    Terminated(ErrorObject),
}

impl EventStreamItem {
    /// `note` as an item of a stream, when it is one.
    fn of(note: &Notification) -> Option<Self> {
        let params = Value::Object(note.params.clone().unwrap_or_default());
        let error =
            || serde_json::from_value::<ErrorObject>(params.get("error").cloned().unwrap_or_default()).ok();
        match note.method.as_str() {
            ACTIVE => serde_json::from_value(params.clone()).ok().map(Self::Active),
            EVENT => serde_json::from_value(params.clone()).ok().map(Self::Event),
            HEARTBEAT => serde_json::from_value(params.clone()).ok().map(Self::Heartbeat),
            ERROR => error().map(Self::Error),
            TERMINATED => error().map(Self::Terminated),
            _ => None,
        }
    }
}

/// The `subscriptionId` a notification carries in `_meta`, if any.
fn subscription_of(note: &Notification) -> Option<&Value> {
    note.params.as_ref()?.get("_meta")?.get(meta::SUBSCRIPTION_ID)
}

fn params_of(params: &impl serde::Serialize) -> Result<serde_json::Value, ClientError> {
    serde_json::to_value(params).map_err(|e| ClientError::invalid_params(e.to_string()))
}

impl Client {
    /// Refuses `method` to a server that did not declare events (a client MUST NOT send it).
    fn offers_events(&self, method: &str) -> Result<(), ClientError> {
        let declared =
            self.server().capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID));
        if declared { Ok(()) } else { Err(ClientError::undeclared(EXTENSION_ID, Method::from(method))) }
    }

    /// The event types the server offers, every page read.
    pub async fn list_events(&self) -> Result<Vec<EventType>, ClientError> {
        self.offers_events(LIST)?;
        let mut types = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => serde_json::json!({"cursor": cursor}),
                None => serde_json::json!({}),
            };
            let page = self.request(LIST, params).await?;
            let page: ListResult = serde_json::from_value(Value::Object(page))
                .map_err(|e| ClientError::invalid_result(Method::from(LIST), e.to_string()))?;
            types.extend(page.events);
            match page.next_cursor {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => return Ok(types),
            }
        }
    }

    /// One poll of the subscription `params` describes; poll again from the result's cursor
    /// (at once when `hasMore`, else after `nextPollMs`).
    pub async fn poll_events(&self, params: &SubscriptionParams) -> Result<PollResult, ClientError> {
        self.offers_events(POLL)?;
        let result = self.request(POLL, params_of(params)?).await?;
        serde_json::from_value(Value::Object(result))
            .map_err(|e| ClientError::invalid_result(Method::from(POLL), e.to_string()))
    }

    /// Makes (or refreshes: call it again before `refreshBefore`) the webhook subscription
    /// `params` describes; the server POSTs occurrences to `params.delivery.url`, signed with
    /// its secret (`modelctx::webhooks::new_secret` makes one; `modelctx::webhooks::verify`
    /// checks a delivery).
    pub async fn subscribe_webhook(&self, params: &SubscribeParams) -> Result<SubscribeResult, ClientError> {
        self.offers_events(SUBSCRIBE)?;
        let result = self.request(SUBSCRIBE, params_of(params)?).await?;
        serde_json::from_value(Value::Object(result))
            .map_err(|e| ClientError::invalid_result(Method::from(SUBSCRIBE), e.to_string()))
    }

    /// Ends the webhook subscription `params` names at once (else it lapses at its TTL).
    pub async fn unsubscribe_webhook(&self, params: &UnsubscribeParams) -> Result<(), ClientError> {
        self.offers_events(UNSUBSCRIBE)?;
        self.request(UNSUBSCRIBE, params_of(params)?).await.map(drop)
    }

    /// Opens a push stream of the subscription `params` describes, returning once the server
    /// said it is active (that first `active` is the stream's first item); dropping the stream
    /// ends the subscription. No time limit applies to it: heartbeats say it is alive.
    pub async fn stream_events(
        &self,
        params: &SubscriptionParams,
    ) -> Result<impl Stream<Item = EventStreamItem> + Send + '_, ClientError> {
        self.offers_events(STREAM)?;
        let params = params_of(params)?.as_object().cloned().unwrap_or_default();
        // One subscription is set up at a time: the `active` that follows its request is its own.
        let setup = self.listen_setup.lock().await;
        let mut notes = self.notifications();
        let method = Method::from(STREAM);
        let mut call =
            Box::pin(async move { self.request_within(&Method::from(STREAM), params, UNBOUNDED).await });
        let activated = async {
            loop {
                match notes.recv().await {
                    Ok(note) if note.method.as_str() == ACTIVE => {
                        return (subscription_of(&note).cloned(), EventStreamItem::of(&note));
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
                }
            }
        };
        let (subscription, first) = tokio::select! {
            ended = &mut call => {
                let why = "the stream ended before it was active";
                return Err(ended.err().unwrap_or_else(|| ClientError::invalid_result(method.clone(), why)));
            }
            activated = activated => activated,
            () = tokio::time::sleep(self.options.request_timeout) => {
                return Err(ClientError::timeout(method, self.options.request_timeout));
            }
        };
        drop(setup);
        let state = (call, notes, subscription, first);
        Ok(futures::stream::unfold(state, |(mut call, mut notes, subscription, first)| async move {
            if let Some(first) = first {
                return Some((first, (call, notes, subscription, None)));
            }
            loop {
                // Notifications first: the server's last ones (a `terminated`) come before the
                // stream's answer, and must not be lost to it.
                let note = tokio::select! {
                    biased;
                    note = notes.recv() => note,
                    _ = &mut call => return None,
                };
                match note {
                    Ok(note) if subscription_of(&note) == subscription.as_ref() => {
                        if let Some(item) = EventStreamItem::of(&note) {
                            return Some((item, (call, notes, subscription, None)));
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        }))
    }
}
