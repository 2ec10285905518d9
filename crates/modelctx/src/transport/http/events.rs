//! The per-session event log of legacy SSE streams: every event a request's stream carries
//! gets an id `{stream}-{n}` unique in the session (HTTP-53) and is kept (bounded), so a
//! client whose stream broke — or that the server released — can resume it with a GET
//! carrying `Last-Event-ID` and receive exactly what it missed of *that* stream (HTTP-54,
//! HTTP-55).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use bytes::Bytes;
use modelctx_protocol::jsonrpc::Message;
use tokio::sync::mpsc;

/// Events kept per stream; older ones are dropped (a resume past them starts later).
const EVENTS_PER_STREAM: usize = 256;
/// Streams kept per session; the oldest finished ones are forgotten first.
const STREAMS_PER_SESSION: usize = 32;
/// Frames buffered toward a live client before it counts as too slow (it may resume).
pub(super) const LIVE_BUFFER: usize = 256;

#[derive(Default)]
struct StreamLog {
    events: VecDeque<(u64, Bytes)>,
    next: u64,
    live: Option<mpsc::Sender<Bytes>>,
    done: bool,
}

/// One session's streams.
#[derive(Default)]
pub(super) struct EventLog {
    streams: Mutex<HashMap<u64, StreamLog>>,
    next_stream: Mutex<u64>,
}

/// What a resuming client gets: the events it missed and, unless the stream is finished,
/// the rest as it comes.
pub(super) struct Resumed {
    pub(super) missed: Vec<Bytes>,
    pub(super) live: Option<mpsc::Receiver<Bytes>>,
}

fn frame(id: &str, data: &str) -> Bytes {
    Bytes::from(format!("id: {id}\nevent: message\ndata: {data}\n\n"))
}

impl EventLog {
    fn streams(&self) -> MutexGuard<'_, HashMap<u64, StreamLog>> {
        self.streams.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a stream delivered live to `live`; returns its number.
    pub(super) fn open(&self, live: mpsc::Sender<Bytes>) -> u64 {
        let number = {
            let mut next = self.next_stream.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            *next += 1;
            *next
        };
        let mut streams = self.streams();
        if streams.len() >= STREAMS_PER_SESSION {
            let oldest = streams.iter().filter(|(_, log)| log.done).map(|(n, _)| *n).min();
            if let Some(oldest) = oldest.or_else(|| streams.keys().min().copied()) {
                streams.remove(&oldest);
            }
        }
        streams.insert(number, StreamLog { next: 1, live: Some(live), ..StreamLog::default() });
        number
    }

    /// Logs `message` on stream `number` and delivers it to the live client, if any.
    pub(super) fn record(&self, number: u64, message: &Message) {
        let mut streams = self.streams();
        let Some(log) = streams.get_mut(&number) else { return };
        let event = log.next;
        log.next += 1;
        let bytes = frame(&format!("{number}-{event}"), &message.to_json());
        if log.events.len() == EVENTS_PER_STREAM {
            log.events.pop_front();
        }
        log.events.push_back((event, bytes.clone()));
        if let Some(live) = &log.live
            && live.try_send(bytes).is_err()
        {
            // Gone or too slow: it can resume from its last event id.
            log.live = None;
        }
    }

    /// Ends the live delivery of stream `number` (the client resumes with a GET).
    pub(super) fn release(&self, number: u64) {
        if let Some(log) = self.streams().get_mut(&number) {
            log.live = None;
        }
    }

    /// Marks stream `number` complete: its answer is logged; live delivery ends.
    pub(super) fn finish(&self, number: u64) {
        if let Some(log) = self.streams().get_mut(&number) {
            log.done = true;
            log.live = None;
        }
    }

    /// Resumes after the event `last_event_id` (`{stream}-{n}`); `None` when the id names
    /// no stream of this session.
    pub(super) fn resume(&self, last_event_id: &str) -> Option<Resumed> {
        let (number, event) = last_event_id.split_once('-')?;
        let (number, event): (u64, u64) = (number.parse().ok()?, event.parse().ok()?);
        let mut streams = self.streams();
        let log = streams.get_mut(&number)?;
        let missed = log.events.iter().filter(|(n, _)| *n > event).map(|(_, bytes)| bytes.clone()).collect();
        let live = (!log.done).then(|| {
            let (sender, receiver) = mpsc::channel(LIVE_BUFFER);
            log.live = Some(sender);
            receiver
        });
        Some(Resumed { missed, live })
    }
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::jsonrpc::{Message, Notification};

    use super::*;

    fn note(n: u64) -> Message {
        Message::Notification(Notification { method: format!("n{n}"), params: None })
    }

    #[test]
    fn http_54_55_a_resume_replays_only_what_that_stream_missed() {
        let log = EventLog::default();
        let (live, _gone) = mpsc::channel(8);
        let first = log.open(live.clone());
        let second = log.open(live);
        for n in 1..=3 {
            log.record(first, &note(n));
        }
        log.record(second, &note(9));
        let resumed = log.resume(&format!("{first}-1")).expect("a known stream");
        let texts: Vec<String> =
            resumed.missed.iter().map(|b| String::from_utf8(b.to_vec()).unwrap()).collect();
        assert_eq!(texts.len(), 2);
        assert!(texts[0].starts_with(&format!("id: {first}-2\n")) && texts[0].contains("\"n2\""));
        assert!(texts.iter().all(|t| !t.contains("\"n9\"")), "never another stream's events");
        assert!(resumed.live.is_some(), "an unfinished stream continues live");
        log.finish(first);
        assert!(log.resume(&format!("{first}-3")).unwrap().live.is_none());
        assert!(log.resume("99-1").is_none());
        assert!(log.resume("garbage").is_none());
    }
}
