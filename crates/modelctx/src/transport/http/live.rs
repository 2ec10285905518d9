//! The live parts of a legacy session on this instance: the request streams whose handlers
//! run here, with the client attached to each, and the session's standalone (GET) stream.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::server::outgoing::Outgoing;

/// Frames buffered toward a live client before it counts as too slow (it may resume).
pub(super) const LIVE_BUFFER: usize = 256;

/// An event on its way to a live client: its number, and its SSE frame.
pub(super) type LiveFrame = (u64, Bytes);

/// The request streams of one session whose handlers run on this instance.
#[derive(Default)]
pub(super) struct LiveStreams {
    /// By stream number: the attached client, if any.
    running: Mutex<HashMap<u64, Option<mpsc::Sender<LiveFrame>>>>,
}

impl LiveStreams {
    fn running(&self) -> MutexGuard<'_, HashMap<u64, Option<mpsc::Sender<LiveFrame>>>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a stream delivered live to `live`; returns its number, random so that instances
    /// sharing an event store never collide.
    pub(super) fn open(&self, live: mpsc::Sender<LiveFrame>) -> u64 {
        let mut bytes = [0u8; 6];
        getrandom::fill(&mut bytes).expect("the system random source works");
        let number = bytes.iter().fold(1u64, |n, byte| (n << 8) | u64::from(*byte));
        self.running().insert(number, Some(live));
        number
    }

    /// Ends the live delivery of `stream`; the client resumes with a GET.
    pub(super) fn release(&self, stream: u64) {
        if let Some(live) = self.running().get_mut(&stream) {
            *live = None;
        }
    }

    /// Delivers event `event` of `stream` to its live client; a client gone or too slow is
    /// let go (it can resume from its last event id).
    pub(super) fn send(&self, stream: u64, event: u64, frame: Bytes) {
        if let Some(live) = self.running().get_mut(&stream)
            && let Some(sender) = live
            && sender.try_send((event, frame)).is_err()
        {
            // Gone or too slow: it can resume from its last event id.
            *live = None;
        }
    }

    /// Attaches a new live client to `stream` if its handler runs here.
    pub(super) fn attach(&self, stream: u64) -> Option<mpsc::Receiver<LiveFrame>> {
        let mut running = self.running();
        let live = running.get_mut(&stream)?;
        let (sender, receiver) = mpsc::channel(LIVE_BUFFER);
        *live = Some(sender);
        Some(receiver)
    }

    /// Forgets `stream`: its handler finished.
    pub(super) fn end(&self, stream: u64) {
        self.running().remove(&stream);
    }
}

/// The open standalone stream of a session: where its messages go, and the token tripped
/// when the client drops it. `None` when there is none, and no dispatcher runs.
type Slot = Option<(mpsc::Sender<Outgoing>, CancellationToken)>;

/// The standalone stream of one session on this instance.
#[derive(Default)]
pub(super) struct Standalone {
    slot: Mutex<Slot>,
}

impl Standalone {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `stream` the session's stream, ending the one it replaces; `true` when no
    /// dispatcher runs and one must start.
    pub(super) fn replace(&self, stream: mpsc::Sender<Outgoing>, gone: CancellationToken) -> bool {
        self.slot().replace((stream, gone)).is_none()
    }

    /// The token of the open stream; `None` once the client dropped it (the dispatcher then
    /// stops).
    pub(super) fn watch(&self) -> Option<CancellationToken> {
        let mut slot = self.slot();
        if slot.as_ref().is_some_and(|(_, gone)| gone.is_cancelled()) {
            *slot = None;
        }
        slot.as_ref().map(|(_, gone)| gone.clone())
    }

    /// Where to send a message now.
    pub(super) fn sender(&self) -> Option<mpsc::Sender<Outgoing>> {
        self.slot().as_ref().map(|(stream, _)| stream.clone())
    }

    /// Ends the stream (shutdown, or the session is gone).
    pub(super) fn end(&self) {
        *self.slot() = None;
    }
}
