//! Where a request's notifications and questions go: the connection's outbox, or a channel of
//! the request's own that its first message opens.
//!
//! Over Streamable HTTP most requests send nothing before their answer, which is then plain
//! JSON; a channel made for each of them (a tokio `mpsc` channel and its first block) cost
//! about 700 instructions a call to make and drop. `OwnOutbox` makes it when a message is
//! sent, or when the transport has to wait on the request.

#[cfg(feature = "http-server")]
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::outgoing::Outgoing;

/// Messages a request sends on its own channel before the transport reads them.
#[cfg(feature = "http-server")]
const OWN_BUFFER: usize = 64;

/// Where a request's notifications and questions go.
#[derive(Clone)]
pub(crate) enum NotificationSink {
    /// The connection's outbox, which every request of the connection shares (stdio,
    /// HTTP+SSE).
    Shared(mpsc::Sender<Outgoing>),
    /// The request's own channel (Streamable HTTP: its answer is JSON unless a message comes
    /// first, then an SSE stream).
    #[cfg(feature = "http-server")]
    Own(Arc<OwnOutbox>),
}

/// The way out is closed: the peer or the request's stream is gone.
#[derive(Debug)]
pub(crate) struct Closed;

impl NotificationSink {
    /// A sink of the request's own, unopened, and the transport's end of it.
    #[cfg(feature = "http-server")]
    pub(crate) fn own() -> (Self, OutboxEnd) {
        let own = Arc::new(OwnOutbox::default());
        (Self::Own(own.clone()), OutboxEnd(own))
    }

    /// Sends `message`, waiting for room.
    pub(crate) async fn send(&self, message: Outgoing) -> Result<(), Closed> {
        match self {
            Self::Shared(outbox) => outbox.send(message).await.map_err(|_| Closed),
            #[cfg(feature = "http-server")]
            Self::Own(own) => match own.sender() {
                Some(sender) => sender.send(message).await.map_err(|_| Closed),
                None => Err(Closed),
            },
        }
    }

    /// A place for one message, once the peer has read enough to make room; `None` when the
    /// way out is closed.
    pub(crate) async fn room(&self) -> Option<mpsc::OwnedPermit<Outgoing>> {
        let sender = match self {
            Self::Shared(outbox) => outbox.clone(),
            #[cfg(feature = "http-server")]
            Self::Own(own) => own.sender()?,
        };
        sender.reserve_owned().await.ok()
    }
}

impl From<mpsc::Sender<Outgoing>> for NotificationSink {
    fn from(outbox: mpsc::Sender<Outgoing>) -> Self {
        Self::Shared(outbox)
    }
}

/// A request's own channel, opened by its first message or by the transport that waits on
/// the request ([`OutboxEnd::receiver`]), closed by the transport once it has answered with
/// nothing sent first ([`OutboxEnd::close`]). The request's contexts hold it, and with it the
/// sending end: once they are all gone, the receiver hears the end.
#[cfg(feature = "http-server")]
#[derive(Default)]
pub(crate) struct OwnOutbox(Mutex<Own>);

#[cfg(feature = "http-server")]
#[derive(Default)]
enum Own {
    #[default]
    Unopened,
    Open {
        sender: mpsc::Sender<Outgoing>,
        /// Until the transport takes it.
        receiver: Option<mpsc::Receiver<Outgoing>>,
    },
    Closed,
}

#[cfg(feature = "http-server")]
impl OwnOutbox {
    fn own(&self) -> std::sync::MutexGuard<'_, Own> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The sending end, opening the channel; `None` once closed.
    fn sender(&self) -> Option<mpsc::Sender<Outgoing>> {
        let mut own = self.own();
        if matches!(*own, Own::Unopened) {
            let (sender, receiver) = mpsc::channel(OWN_BUFFER);
            *own = Own::Open { sender, receiver: Some(receiver) };
        }
        match &*own {
            Own::Open { sender, .. } => Some(sender.clone()),
            Own::Unopened | Own::Closed => None,
        }
    }
}

/// The transport's end of a request's [`OwnOutbox`]: it takes the receiver, or closes the way
/// out, once.
#[cfg(feature = "http-server")]
pub(crate) struct OutboxEnd(Arc<OwnOutbox>);

#[cfg(feature = "http-server")]
impl OutboxEnd {
    /// The receiving end, for a transport that waits on the request: opened now if no message
    /// has come yet.
    pub(crate) fn receiver(self) -> mpsc::Receiver<Outgoing> {
        let mut own = self.0.own();
        if let Own::Open { receiver, .. } = &mut *own
            && let Some(receiver) = receiver.take()
        {
            return receiver;
        }
        // Nothing sent yet (this end alone takes the receiver or closes): open it now.
        let (sender, receiver) = mpsc::channel(OWN_BUFFER);
        *own = Own::Open { sender, receiver: None };
        receiver
    }

    /// The way out of a request answered at once that may send more afterwards: `None` when
    /// it sent nothing and nothing more can come (no copy of its context is left: they alone
    /// share the outbox with this end), else the receiving end, opened now if need be.
    pub(crate) fn after_answer(self) -> Option<mpsc::Receiver<Outgoing>> {
        let unopened = matches!(*self.0.own(), Own::Unopened);
        if unopened && Arc::strong_count(&self.0) == 1 {
            return None;
        }
        Some(self.receiver())
    }

    /// Closes the way out of a request that has been answered: later messages are refused.
    /// The messages sent before, if any were, come back with their channel.
    pub(crate) fn close(self) -> Option<mpsc::Receiver<Outgoing>> {
        match std::mem::replace(&mut *self.0.own(), Own::Closed) {
            Own::Open { receiver, .. } => receiver,
            Own::Unopened | Own::Closed => None,
        }
    }
}

#[cfg(all(test, feature = "http-server"))]
mod tests {
    use modelctx_protocol::Method;
    use modelctx_protocol::jsonrpc::{Message, Notification};

    use super::*;

    fn note() -> Outgoing {
        Message::Notification(Notification { method: Method::Progress, params: None }).into()
    }

    #[tokio::test]
    async fn a_request_that_sends_nothing_opens_no_channel_and_is_closed() {
        let (sink, end) = NotificationSink::own();
        assert!(end.close().is_none(), "nothing was sent: no channel");
        assert!(sink.send(note()).await.is_err(), "closed after the answer");
        assert!(sink.room().await.is_none());
    }

    #[tokio::test]
    async fn messages_sent_before_the_answer_come_back_with_the_close() {
        let (sink, end) = NotificationSink::own();
        sink.send(note()).await.unwrap();
        let mut messages = end.close().expect("the channel the message opened");
        assert!(messages.try_recv().is_ok());
        assert!(sink.send(note()).await.is_err(), "closed after the answer");
    }

    #[tokio::test]
    async fn after_an_answer_the_way_out_stays_open_only_while_a_context_can_send() {
        // No context left, nothing sent: nothing to wait for, and no channel made.
        let (sink, end) = NotificationSink::own();
        drop(sink);
        assert!(end.after_answer().is_none());
        // A context kept for work that goes on: what it sends later is heard, then the end.
        let (sink, end) = NotificationSink::own();
        let mut later = end.after_answer().expect("a context can still send");
        assert!(later.is_empty());
        sink.send(note()).await.unwrap();
        drop(sink);
        assert!(later.recv().await.is_some());
        assert!(later.recv().await.is_none(), "every context is gone");
        // Sent before the answer, its context gone since: the message comes back.
        let (sink, end) = NotificationSink::own();
        sink.send(note()).await.unwrap();
        drop(sink);
        let mut sent = end.after_answer().expect("the channel the message opened");
        assert!(sent.try_recv().is_ok());
    }

    #[tokio::test]
    async fn a_waiting_transport_hears_each_message_then_the_end() {
        for sent_first in [false, true] {
            let (sink, end) = NotificationSink::own();
            if sent_first {
                sink.send(note()).await.unwrap();
            }
            let mut messages = end.receiver();
            sink.room().await.expect("room").send(note());
            sink.send(note()).await.unwrap();
            for _ in 0..2 + usize::from(sent_first) {
                assert!(messages.recv().await.is_some());
            }
            drop(sink);
            assert!(messages.recv().await.is_none(), "every context is gone");
        }
    }
}
