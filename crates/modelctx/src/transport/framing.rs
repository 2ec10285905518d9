//! Newline framing, shared by the server's stdio transport and the client's: each line as
//! bytes, bounded in length, an oversize line reported and skipped.

use modelctx_protocol::jsonrpc::ParseLimits;
use tokio_util::bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::Decoder;

/// One line of input (its bytes, without the newline), or the news that a line over the size
/// limit was discarded.
pub(crate) enum Line {
    Bytes(Bytes),
    Oversize,
}

/// Newline framing with a bound on each line, over bytes: a line is never decoded as text
/// here (the JSON parser says what is wrong with one that is not UTF-8), and an oversize line
/// is an item, not an error — `FramedRead` ends the stream after any decoder error, which
/// would close the connection over one bad line. (`LinesCodec` decodes UTF-8;
/// `AnyDelimiterCodec` tests every byte against a list of delimiters, a cost per byte on the
/// hottest path.) The newline is found with `memchr`, many bytes at a time.
pub(crate) struct Lines {
    /// The longest line, without its newline.
    max: usize,
    /// How far the buffer is known to hold no newline.
    next_index: usize,
    /// Whether the rest of an oversize line is being skipped.
    discarding: bool,
}

impl Lines {
    /// Lines of at most `limits.max_message_bytes`.
    pub(crate) fn new(limits: ParseLimits) -> Self {
        Self { max: limits.max_message_bytes, next_index: 0, discarding: false }
    }

    /// `line` without a trailing `\r` (CRLF framing).
    fn line(mut line: BytesMut) -> Line {
        if line.last() == Some(&b'\r') {
            line.truncate(line.len() - 1);
        }
        Line::Bytes(line.freeze())
    }
}

impl Decoder for Lines {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        loop {
            // Never look further than one byte past the longest line.
            let read_to = self.max.saturating_add(1).min(buf.len());
            let newline = memchr::memchr(b'\n', &buf[self.next_index.min(read_to)..read_to]);
            match (self.discarding, newline) {
                (true, Some(offset)) => {
                    // The end of the oversize line: skip through it and go on.
                    buf.advance(self.next_index + offset + 1);
                    (self.discarding, self.next_index) = (false, 0);
                }
                (true, None) => {
                    buf.advance(read_to);
                    self.next_index = 0;
                    if buf.is_empty() {
                        return Ok(None);
                    }
                }
                (false, Some(offset)) => {
                    let end = self.next_index + offset;
                    self.next_index = 0;
                    let mut line = buf.split_to(end + 1);
                    line.truncate(end);
                    return Ok(Some(Self::line(line)));
                }
                (false, None) if buf.len() > self.max => {
                    self.discarding = true;
                    self.next_index = 0;
                    return Ok(Some(Line::Oversize));
                }
                (false, None) => {
                    self.next_index = read_to;
                    return Ok(None);
                }
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        if let Some(line) = self.decode(buf)? {
            return Ok(Some(line));
        }
        self.next_index = 0;
        if self.discarding || buf.is_empty() {
            buf.clear();
            return Ok(None);
        }
        Ok(Some(Self::line(buf.split_to(buf.len()))))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        /// However a stream splits its bytes, the same lines come out, none over the limit, and
        /// no input makes the decoder fail or panic.
        #[test]
        fn lines_do_not_depend_on_how_the_bytes_arrive(
            bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'{'), any::<u8>()], 0..400),
            cuts in prop::collection::vec(0usize..400, 0..8),
            max in 1usize..64,
        ) {
            crate::fuzzing::framing_holds(&bytes, cuts, max);
        }
    }
}
