//! How a server tells its changes: to this instance's listeners at once, and — when the server
//! has a [`Bus`] — to every other instance's, whose changes it hears in turn.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::ServerEvent;
use crate::store::Bus;

/// The bus topic of server events.
const EVENTS: &str = "events";

/// How long to wait before subscribing to the bus again after it failed.
const RESUBSCRIBE_AFTER: Duration = Duration::from_secs(1);

/// The changes of one server, told locally and across instances.
pub(crate) struct Announcer {
    local: broadcast::Sender<ServerEvent>,
    bus: Option<Arc<dyn Bus>>,
    /// This instance's id on the bus: its own messages come back and are passed over.
    instance: Arc<str>,
    hearing: AtomicBool,
}

/// An event as the bus carries it, tagged with the instance it comes from.
fn encode(instance: &str, event: &ServerEvent) -> String {
    let (kind, subject) = match event {
        ServerEvent::ToolsChanged => ("tools", None),
        ServerEvent::ResourcesChanged => ("resources", None),
        ServerEvent::PromptsChanged => ("prompts", None),
        ServerEvent::ResourceUpdated(uri) => ("resource", Some(uri)),
        ServerEvent::TaskChanged(id) => ("task", Some(id)),
        #[cfg(feature = "experimental")]
        ServerEvent::EventsChanged => ("events", None),
    };
    json!({"from": instance, "kind": kind, "subject": subject}).to_string()
}

/// The event of a bus message and the instance that sent it; `None` for a message that is
/// not one (another version's, or garbage).
fn decode(message: &str) -> Option<(String, ServerEvent)> {
    let value: Value = serde_json::from_str(message).ok()?;
    let from = value.get("from")?.as_str()?.to_owned();
    let subject = || value.get("subject").and_then(Value::as_str).map(str::to_owned);
    let event = match value.get("kind")?.as_str()? {
        "tools" => ServerEvent::ToolsChanged,
        "resources" => ServerEvent::ResourcesChanged,
        "prompts" => ServerEvent::PromptsChanged,
        "resource" => ServerEvent::ResourceUpdated(subject()?),
        "task" => ServerEvent::TaskChanged(subject()?),
        #[cfg(feature = "experimental")]
        "events" => ServerEvent::EventsChanged,
        _ => return None,
    };
    Some((from, event))
}

impl Announcer {
    pub(crate) fn new(bus: Option<Arc<dyn Bus>>, instance: Arc<str>) -> Self {
        Self { local: broadcast::channel(256).0, bus, instance, hearing: AtomicBool::new(false) }
    }

    /// The sender of this instance's own listeners, for changes that are this instance's
    /// alone (its event types).
    #[cfg(feature = "experimental")]
    pub(crate) fn local(&self) -> broadcast::Sender<ServerEvent> {
        self.local.clone()
    }

    /// This instance's id on the bus.
    #[cfg(feature = "http-server")]
    pub(crate) fn instance(&self) -> &str {
        &self.instance
    }

    /// The bus between instances, if the server has one.
    pub(crate) fn bus(&self) -> Option<&Arc<dyn Bus>> {
        self.bus.as_ref()
    }

    /// Tells `event` to this instance's listeners and, outside a runtime only locally, to
    /// the other instances'.
    pub(crate) fn announce(&self, event: ServerEvent) {
        if let Some(bus) = &self.bus
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let (bus, message) = (bus.clone(), encode(&self.instance, &event));
            runtime.spawn(async move {
                if let Err(e) = bus.publish(EVENTS, message).await {
                    tracing::warn!(error = %e, "a change could not be told to the other instances");
                }
            });
        }
        // No receiver just means no client is listening.
        let _ = self.local.send(event);
    }

    /// The changes of this instance and, once a runtime runs, of the other instances.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.hear_others();
        self.local.subscribe()
    }

    /// Starts relaying the other instances' events to the local listeners, once; it stops
    /// when the server is gone.
    fn hear_others(&self) {
        let Some(bus) = self.bus.clone() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        if self.hearing.swap(true, Ordering::AcqRel) {
            return;
        }
        let (local, instance) = (self.local.downgrade(), self.instance.clone());
        runtime.spawn(relay(bus, local, instance));
    }
}

/// Relays the bus's events from other instances to `local` while it lasts, subscribing again
/// after a failure.
async fn relay(bus: Arc<dyn Bus>, local: broadcast::WeakSender<ServerEvent>, instance: Arc<str>) {
    loop {
        match bus.subscribe(EVENTS).await {
            Ok(mut messages) => {
                while let Some(message) = messages.next().await {
                    let Some(local) = local.upgrade() else { return };
                    match decode(&message) {
                        Some((from, event)) if *from != *instance => {
                            let _ = local.send(event);
                        }
                        Some(_) => {}
                        None => tracing::debug!(%message, "a bus message that is no server event"),
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_crosses_the_bus_as_it_was() {
        for event in [
            ServerEvent::ToolsChanged,
            ServerEvent::ResourcesChanged,
            ServerEvent::PromptsChanged,
            ServerEvent::ResourceUpdated("file:///a".into()),
            ServerEvent::TaskChanged("t1".into()),
        ] {
            assert_eq!(decode(&encode("i", &event)), Some(("i".into(), event)));
        }
        assert_eq!(decode("{\"from\":\"i\",\"kind\":\"other\"}"), None);
        assert_eq!(decode("not json"), None);
    }
}
