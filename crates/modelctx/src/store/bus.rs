//! The publish/subscribe channel between the instances of one deployment: a change on one
//! instance (a tool added, a resource updated, a task moved on) reaches the listeners on every
//! instance, and a legacy client's answer reaches the instance whose handler waits for it.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt as _;
use futures::stream::BoxStream;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::StoreFuture;

/// The messages of one topic, as they are published from any instance (this one's too).
pub type BusMessages = BoxStream<'static, String>;

/// A publish/subscribe channel shared by the instances of a deployment. Delivery is at most
/// once and only to subscribers present when a message is published: what must not be lost
/// lives in a store, and the bus only says where to look.
pub trait Bus: Send + Sync + fmt::Debug + 'static {
    /// Sends `message` to the subscribers of `topic` on every instance, this one's included.
    fn publish<'a>(&'a self, topic: &'a str, message: String) -> StoreFuture<'a, ()>;
    /// The messages published on `topic` from now on. The stream lasts as long as the bus
    /// (an implementation that reconnects subscribes again by itself); a subscriber too slow
    /// to keep up misses messages rather than holding the others back.
    fn subscribe<'a>(&'a self, topic: &'a str) -> StoreFuture<'a, BusMessages>;
}

/// A bus within one process: for instances that share a process (tests, embedding several
/// servers), or for one instance alone.
#[derive(Clone, Debug, Default)]
pub struct LocalBus {
    topics: Arc<Mutex<HashMap<String, broadcast::Sender<String>>>>,
}

/// Messages a slow subscriber of a [`LocalBus`] may fall behind by before it misses some.
const LOCAL_BUS_BUFFER: usize = 1024;

impl LocalBus {
    /// A bus with no subscribers yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn topic(&self, topic: &str) -> broadcast::Sender<String> {
        let mut topics = self.topics.lock().unwrap_or_else(PoisonError::into_inner);
        topics.entry(topic.to_owned()).or_insert_with(|| broadcast::channel(LOCAL_BUS_BUFFER).0).clone()
    }
}

impl Bus for LocalBus {
    fn publish<'a>(&'a self, topic: &'a str, message: String) -> StoreFuture<'a, ()> {
        // No subscriber is no error: nobody was listening.
        let _ = self.topic(topic).send(message);
        Box::pin(async { Ok(()) })
    }

    fn subscribe<'a>(&'a self, topic: &'a str) -> StoreFuture<'a, BusMessages> {
        let messages = futures::stream::unfold(self.topic(topic).subscribe(), |mut receiver| async move {
            loop {
                match receiver.recv().await {
                    Ok(message) => return Some((message, receiver)),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                }
            }
        })
        .boxed();
        Box::pin(async move { Ok(messages) })
    }
}
