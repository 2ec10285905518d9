//! The properties of the parsers a peer feeds that are private to this crate (the stdio line
//! framing, the client's event-stream reader, the config expander), shared by the crate's
//! property tests and, with the `fuzzing` feature, the fuzz targets under `fuzz/`. Each
//! property panics when it fails. Not a stable API.

use bytes::BytesMut;
use modelctx_protocol::jsonrpc::ParseLimits;
use tokio_util::codec::Decoder;

#[cfg(feature = "http-client")]
use crate::client::sse::{SseEvent, take_event};
use crate::transport::framing::{Line, Lines};

/// `bytes` cut at `cuts` (any order, any values; those past the end cut at the end): the
/// chunks a stream may deliver them in.
pub fn chunks_at(bytes: &[u8], cuts: Vec<usize>) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.into_iter().map(|cut| cut.min(bytes.len())).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for cut in cuts {
        chunks.push(bytes[from..cut].to_vec());
        from = cut;
    }
    chunks.push(bytes[from..].to_vec());
    chunks
}

/// The stdio framing of `bytes`, delivered cut at `cuts`, with lines of at most `max` bytes:
/// the same lines come out however the bytes arrive; each newline ends a line, one longer than
/// the limit is reported and not kept, a trailing `\r` is CRLF framing, the end of input ends
/// the last line; no input makes the decoder fail.
pub fn framing_holds(bytes: &[u8], cuts: Vec<usize>, max: usize) {
    let limits = ParseLimits { max_message_bytes: max, ..ParseLimits::default() };
    let whole = decoded_lines(&[bytes.to_vec()], limits);
    assert_eq!(decoded_lines(&chunks_at(bytes, cuts), limits), whole, "the lines depend on the chunks");
    let mut meant: Vec<Option<Vec<u8>>> = bytes
        .split(|b| *b == b'\n')
        .map(|line| (line.len() <= max).then(|| line.strip_suffix(b"\r").unwrap_or(line).to_vec()))
        .collect();
    if bytes.last().is_none_or(|b| *b == b'\n') {
        meant.pop();
    }
    assert_eq!(whole, meant, "the lines are not what the framing means");
}

/// What `chunks` decode to as stdio lines (`None` for an oversize line), fed one after the
/// other as a stream delivers them.
fn decoded_lines(chunks: &[Vec<u8>], limits: ParseLimits) -> Vec<Option<Vec<u8>>> {
    let mut lines = Lines::new(limits);
    let mut buffer = BytesMut::new();
    let mut out = Vec::new();
    let mut take = |line: Line| match line {
        Line::Bytes(bytes) => out.push(Some(bytes.to_vec())),
        Line::Oversize => out.push(None),
    };
    for chunk in chunks {
        buffer.extend_from_slice(chunk);
        while let Some(line) = lines.decode(&mut buffer).expect("the line decoder never fails") {
            take(line);
        }
    }
    while let Some(line) = lines.decode_eof(&mut buffer).expect("the line decoder never fails") {
        take(line);
    }
    out
}

/// The events of an event-stream body `bytes`, delivered cut at `cuts`: the same events come
/// out however the bytes arrive, and reading a message from each never fails.
#[cfg(feature = "http-client")]
pub fn events_hold(bytes: &[u8], cuts: Vec<usize>) {
    let whole = events_of(&[bytes.to_vec()]);
    assert_eq!(events_of(&chunks_at(bytes, cuts)), whole, "the events depend on the chunks");
}

/// The data of the events of `chunks`, fed one after the other as a body delivers them.
#[cfg(feature = "http-client")]
fn events_of(chunks: &[Vec<u8>]) -> Vec<String> {
    let (mut buffer, mut scanned, mut events) = (BytesMut::new(), 0, Vec::new());
    for chunk in chunks {
        buffer.extend_from_slice(chunk);
        while let Some(bytes) = take_event(&mut buffer, &mut scanned) {
            let event = SseEvent::parse(&bytes);
            let _ = event.message(&ParseLimits::default());
            events.push(event.data);
        }
    }
    events
}

/// `${…}` expansion of `text` where `a` is set to `value`: text without `${` comes back as
/// written, any text expands or fails with a reason, and a value is never expanded again (it
/// may hold `${…}` itself).
#[cfg(feature = "host")]
pub fn expansion_holds(text: &str, value: &str) {
    use crate::host::config::expand::expand;
    let lookup = |name: &str| (name == "a").then(|| value.to_owned());
    if let Ok(expanded) = expand(text, &lookup, None)
        && !text.contains("${")
    {
        assert_eq!(expanded, text, "text without `${{` changed");
    }
    assert_eq!(expand("${a}", &lookup, None).as_deref(), Ok(value), "a value was expanded again");
}

/// Fuzz input split into the knobs a property takes: the first byte, up to seven cut
/// positions (the low three bits of the second byte say how many, two bytes each), and the
/// rest as the input proper.
#[cfg(feature = "fuzzing")]
struct Knobs<'a> {
    first: u8,
    cuts: Vec<usize>,
    rest: &'a [u8],
}

#[cfg(feature = "fuzzing")]
impl<'a> Knobs<'a> {
    fn of(data: &'a [u8]) -> Self {
        let (first, data) = data.split_first().map_or((0, data), |(b, rest)| (*b, rest));
        let (count, mut data) = data.split_first().map_or((0, data), |(b, rest)| (usize::from(b & 7), rest));
        let mut cuts = Vec::with_capacity(count);
        while cuts.len() < count {
            let Some((cut, rest)) = data.split_first_chunk::<2>() else { break };
            cuts.push(usize::from(u16::from_le_bytes(*cut)));
            data = rest;
        }
        Self { first, cuts, rest: data }
    }
}

/// Fuzz target: [`framing_holds`], the line limit taken from the first byte (1 to 256).
#[cfg(feature = "fuzzing")]
pub fn stdio_lines(data: &[u8]) {
    let knobs = Knobs::of(data);
    framing_holds(knobs.rest, knobs.cuts, usize::from(knobs.first) + 1);
}

/// Fuzz target: [`events_hold`].
#[cfg(feature = "fuzzing")]
pub fn sse_events(data: &[u8]) {
    let knobs = Knobs::of(data);
    events_hold(knobs.rest, knobs.cuts);
}

/// Fuzz target: [`expansion_holds`], the text and the value split at the first NUL byte.
#[cfg(all(feature = "fuzzing", feature = "host"))]
pub fn config_expand(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (text, value) = text.split_once('\0').unwrap_or((&text, ""));
    expansion_holds(text, value);
}
