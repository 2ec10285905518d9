//! Server-sent events as the client reads them: a reader that splits a response body into
//! events (at blank lines, `\n` or `\r\n`), and the fields of one event.

use std::pin::Pin;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use modelctx_protocol::jsonrpc::{Message, ParseLimits, parse_message_with};

/// Room in an event for its fields besides the message (`event:`, `id:`, `retry:`, the
/// `data:` prefixes).
const EVENT_FIELDS: usize = 4096;

/// The events of one response body.
pub(super) struct SseReader {
    chunks: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
    buffer: BytesMut,
    /// How much of `buffer` is known to hold no event boundary: each chunk is scanned once.
    scanned: usize,
    /// The largest event the reader holds; a longer one ends the stream.
    max_event_bytes: usize,
}

impl SseReader {
    /// Reads `response`'s body as an event stream whose events carry messages within
    /// `limits` (plus room for the event's own fields).
    pub(super) fn new(response: reqwest::Response, limits: &ParseLimits) -> Self {
        let max_event_bytes = limits.max_message_bytes.saturating_add(EVENT_FIELDS);
        Self {
            chunks: Box::pin(response.bytes_stream()),
            buffer: BytesMut::new(),
            scanned: 0,
            max_event_bytes,
        }
    }

    /// The next complete event; `None` once the stream ends or breaks, or an event grows past
    /// the bound. Cancel-safe: what was read stays buffered for the next call.
    pub(super) async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(event) = take_event(&mut self.buffer, &mut self.scanned) {
                return Some(SseEvent::parse(&event));
            }
            if self.buffer.len() > self.max_event_bytes {
                tracing::warn!(
                    limit = self.max_event_bytes,
                    "the server sent an event over the limit; the stream is dropped"
                );
                return None;
            }
            match self.chunks.next().await {
                Some(Ok(chunk)) => self.buffer.extend_from_slice(&chunk),
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "an event stream broke");
                    return None;
                }
                None => return None,
            }
        }
    }
}

/// Takes one complete event (up to a blank line) off the front of `buffer`, searching only
/// past `scanned` (less the length of a marker, which may straddle two chunks).
pub(crate) fn take_event(buffer: &mut BytesMut, scanned: &mut usize) -> Option<Bytes> {
    let from = scanned.saturating_sub(3);
    let text = &buffer[from..];
    let found = [(b"\n\n".as_slice(), 2), (b"\r\n\r\n".as_slice(), 4)]
        .iter()
        .filter_map(|(marker, gap)| {
            text.windows(marker.len()).position(|w| w == *marker).map(|at| (from + at, *gap))
        })
        .min();
    let Some((end, gap)) = found else {
        *scanned = buffer.len();
        return None;
    };
    *scanned = 0;
    let event = buffer.split_to(end + gap).freeze();
    Some(event.slice(..end))
}

/// The fields of one event.
pub(crate) struct SseEvent {
    /// `event:`, the event's type (`message` when absent).
    pub(super) event: Option<String>,
    /// `id:`, for resuming after it.
    pub(super) id: Option<String>,
    /// `retry:`, the reconnection delay, honoured as given (HTTP-46).
    pub(super) retry: Option<Duration>,
    /// The `data:` lines, joined.
    pub(crate) data: String,
}

impl SseEvent {
    pub(crate) fn parse(event: &[u8]) -> Self {
        let text = String::from_utf8_lossy(event);
        let mut parsed = Self { event: None, id: None, retry: None, data: String::new() };
        let mut data = Vec::new();
        for line in text.lines() {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" => data.push(value),
                "event" => parsed.event = Some(value.to_owned()),
                "id" if !value.contains('\0') => parsed.id = Some(value.to_owned()),
                "retry" => {
                    parsed.retry = value.parse().ok().map(Duration::from_millis);
                }
                _ => {}
            }
        }
        parsed.data = data.join("\n");
        parsed
    }

    /// The JSON-RPC message in the data; `None` for an event without data (a priming event)
    /// or with data that is not one.
    pub(crate) fn message(&self, limits: &ParseLimits) -> Option<Message> {
        if self.data.trim().is_empty() {
            return None;
        }
        match parse_message_with(self.data.as_bytes(), limits) {
            Ok(message) => Some(message),
            Err(failure) => {
                tracing::warn!(error = %failure.error.message, "the server sent a bad message on its stream");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_split_at_blank_lines_and_read_from_their_data_lines() {
        let mut buffer = BytesMut::from(
            "id: 1-0\nretry: 1000\ndata: \n\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n\r\npartial",
        );
        let priming = SseEvent::parse(&take_event(&mut buffer, &mut 0).unwrap());
        assert_eq!((priming.id.as_deref(), priming.retry), (Some("1-0"), Some(Duration::from_millis(1000))));
        assert!(priming.message(&ParseLimits::default()).is_none());
        let note = SseEvent::parse(&take_event(&mut buffer, &mut 0).unwrap());
        let message = note.message(&ParseLimits::default()).unwrap();
        assert!(matches!(message, Message::Notification(n) if n.method.as_str() == "n"));
        assert!(take_event(&mut buffer, &mut 0).is_none(), "an incomplete event waits for more");
        assert_eq!(&buffer[..], b"partial");
    }

    /// Each chunk is scanned once (the reader used to rescan its whole buffer on every chunk),
    /// and a boundary split across two chunks is still found.
    #[test]
    fn a_boundary_across_chunks_is_found_scanning_each_chunk_once() {
        let mut buffer = BytesMut::from("data: {\"a\":1}\r\n");
        let mut scanned = 0;
        assert!(take_event(&mut buffer, &mut scanned).is_none());
        assert_eq!(scanned, buffer.len(), "what was scanned is remembered");
        buffer.extend_from_slice(b"\r\ndata: next");
        let event = take_event(&mut buffer, &mut scanned).expect("the boundary straddling the chunks");
        assert_eq!(SseEvent::parse(&event).data, "{\"a\":1}");
        assert_eq!(&buffer[..], b"data: next");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, .. Default::default() })]

        /// However a body splits its bytes, the same events come out, and no input panics.
        #[test]
        fn events_do_not_depend_on_how_the_bytes_arrive(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![proptest::strategy::Just(b'\n'), proptest::strategy::Just(b'\r'), proptest::strategy::Just(b':'), proptest::prelude::any::<u8>()],
                0..300,
            ),
            cuts in proptest::collection::vec(0usize..300, 0..8),
        ) {
            crate::fuzzing::events_hold(&bytes, cuts);
        }
    }
}
