//! Protocol revisions as a type, and the era each one belongs to.
//!
//! Feature code never compares version strings: it asks a [`ProtocolVersion`] for its
//! [`Era`] or compares two versions with `<`/`>`, which follow the calendar.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Model Context Protocol revision identifier, `YYYY-MM-DD`.
///
/// Any well-formed date is a `ProtocolVersion`; whether a peer *supports* it is a separate
/// question (see [`ProtocolVersion::is_known`] and the era router). Ordering is
/// chronological.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion {
    year: u16,
    month: u8,
    day: u8,
}

/// Which family of rules a message follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2025-11-25 and older: an `initialize` handshake opens a session that carries the
    /// negotiated version, capabilities, log level and subscriptions.
    Legacy,
    /// 2026-07-28 and newer: stateless; every request carries its version and client
    /// capabilities in `params._meta`.
    Modern,
}

impl ProtocolVersion {
    /// 2024-11-05: the first public revision (HTTP+SSE transport).
    pub const V2024_11_05: Self = Self::new(2024, 11, 5);
    /// 2025-03-26: Streamable HTTP without the `MCP-Protocol-Version` header.
    pub const V2025_03_26: Self = Self::new(2025, 3, 26);
    /// 2025-06-18: adds the `MCP-Protocol-Version` header, elicitation, structured output.
    pub const V2025_06_18: Self = Self::new(2025, 6, 18);
    /// 2025-11-25: the last revision with the `initialize` handshake.
    pub const V2025_11_25: Self = Self::new(2025, 11, 25);
    /// 2026-07-28: the stateless revision (per-request `_meta`, `server/discover`, MRTR).
    pub const V2026_07_28: Self = Self::new(2026, 7, 28);

    /// The newest revision this crate implements.
    pub const LATEST: Self = Self::V2026_07_28;
    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_LEGACY: Self = Self::V2025_11_25;
    /// Every revision this crate recognises, oldest first.
    pub const KNOWN: [Self; 5] =
        [Self::V2024_11_05, Self::V2025_03_26, Self::V2025_06_18, Self::V2025_11_25, Self::V2026_07_28];

    const fn new(year: u16, month: u8, day: u8) -> Self {
        Self { year, month, day }
    }

    /// Parses `YYYY-MM-DD`; `None` for anything else (including impossible months/days).
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return None;
        }
        let digits = |range: std::ops::Range<usize>| -> Option<u16> {
            bytes[range]
                .iter()
                .try_fold(0u16, |acc, b| b.is_ascii_digit().then(|| acc * 10 + u16::from(b - b'0')))
        };
        let year = digits(0..4)?;
        let month = u8::try_from(digits(5..7)?).ok()?;
        let day = u8::try_from(digits(8..10)?).ok()?;
        ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(Self { year, month, day })
    }

    /// Whether this is one of the revisions in [`ProtocolVersion::KNOWN`].
    pub fn is_known(self) -> bool {
        Self::KNOWN.contains(&self)
    }

    /// The era whose rules this revision follows: everything from 2026-07-28 on is modern.
    pub fn era(self) -> Era {
        if self >= Self::V2026_07_28 { Era::Modern } else { Era::Legacy }
    }

    /// Whether Streamable HTTP clients of this revision send `MCP-Protocol-Version`
    /// (2025-06-18 and newer).
    pub fn has_version_header(self) -> bool {
        self >= Self::V2025_06_18
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.text().as_str())
    }
}

/// A version's `YYYY-MM-DD` text, written digit by digit ([`ProtocolVersion::text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionText([u8; 10]);

impl VersionText {
    /// The text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("digits and dashes")
    }
}

impl ProtocolVersion {
    /// Its `YYYY-MM-DD` text, without the formatting machinery `to_string` goes through
    /// (a request over HTTP compares its header with it).
    pub fn text(self) -> VersionText {
        let mut text = *b"0000-00-00";
        let mut put = |end: usize, mut value: u16, digits: usize| {
            for place in (end - digits..end).rev() {
                text[place] = b"0123456789"[usize::from(value % 10)];
                value /= 10;
            }
        };
        put(4, self.year, 4);
        put(7, u16::from(self.month), 2);
        put(10, u16::from(self.day), 2);
        VersionText(text)
    }
}

impl fmt::Debug for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProtocolVersion({self})")
    }
}

/// The text was not a `YYYY-MM-DD` protocol version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidProtocolVersion(pub String);

impl fmt::Display for InvalidProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a protocol version of the form YYYY-MM-DD", self.0)
    }
}

impl std::error::Error for InvalidProtocolVersion {}

impl FromStr for ProtocolVersion {
    type Err = InvalidProtocolVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| InvalidProtocolVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(VersionVisitor)
    }
}

/// Reads a version from the text in place (serde's `Cow<str>` always copies it): every
/// 2026-07-28 request's `_meta` has one.
struct VersionVisitor;

impl serde::de::Visitor<'_> for VersionVisitor {
    type Value = ProtocolVersion;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a protocol version of the form YYYY-MM-DD")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<ProtocolVersion, E> {
        text.parse().map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_chronologically_and_assigns_eras() {
        assert!(ProtocolVersion::V2025_11_25 < ProtocolVersion::V2026_07_28);
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_03_26);
        assert_eq!(ProtocolVersion::V2025_11_25.era(), Era::Legacy);
        assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Modern);
        assert_eq!(ProtocolVersion::parse("2027-01-01").unwrap().era(), Era::Modern);
    }

    #[test]
    fn parses_only_well_formed_dates() {
        assert_eq!(ProtocolVersion::parse("2026-07-28"), Some(ProtocolVersion::V2026_07_28));
        for bad in ["", "2026-7-28", "2026-13-01", "2026-00-10", "2026-07-32", "2026/07/28", "２026-07-28"] {
            assert_eq!(ProtocolVersion::parse(bad), None, "{bad}");
        }
        assert_eq!(ProtocolVersion::V2025_03_26.to_string(), "2025-03-26");
        for text in ["2026-07-28", "0001-01-09", "9999-12-31"] {
            let version = ProtocolVersion::parse(text).unwrap();
            assert_eq!(version.text().as_str(), text);
            assert_eq!(format!("{version:>12}"), format!("  {text}"), "padded as text is");
        }
    }
}
