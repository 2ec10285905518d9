//! The client's half of era negotiation (CHECKLIST §10.1, VER-08..VER-12): reading the
//! outcome of a first modern request — `server/discover` on stdio, any request on HTTP —
//! into a verdict. The fallback never keys on one error code: only the codes that exist
//! only in 2026-07-28 (`-32020`, `-32021`, `-32022`, and `-32601` with HTTP 404) prove a
//! modern server; anything else, or silence, means legacy.

use serde::Deserialize;
use serde_json::Value;

use crate::jsonrpc::{ErrorCode, ErrorObject, Message};
use crate::version::{Era, ProtocolVersion};

/// What the client should do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EraVerdict {
    /// The server is modern and serves this version (the newest both sides speak): use it,
    /// retrying the probe with it if the probe was refused.
    Modern(ProtocolVersion),
    /// The server is legacy, or modern servers and we share only a legacy version:
    /// perform the `initialize` handshake.
    Legacy {
        /// HTTP: the endpoint answered 400/404/405 without a modern error body, so if
        /// `initialize` fails too, try the deprecated HTTP+SSE transport.
        try_http_sse: bool,
    },
    /// The server is modern but serves no version the client speaks.
    Incompatible {
        /// The versions the server named.
        supported: Vec<String>,
    },
    /// Not an era signal (authorization needed, server error): handle that, then probe again.
    Undecided,
}

/// How a stdio `server/discover` probe ended.
#[derive(Clone, Copy, Debug)]
pub enum ProbeOutcome<'a> {
    /// A result came back.
    Result(&'a Value),
    /// An error came back.
    Error(&'a ErrorObject),
    /// Nothing came back in time.
    TimedOut,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Supported {
    #[serde(default)]
    supported_versions: Vec<String>,
    #[serde(default)]
    supported: Vec<String>,
}

fn supported_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(|v| Supported::deserialize(v).ok())
        .map(|s| if s.supported_versions.is_empty() { s.supported } else { s.supported_versions })
        .unwrap_or_default()
}

/// Picks the newest modern version both sides speak; failing that, legacy when a legacy
/// version is shared (CHECKLIST §19 #8); else incompatible.
fn choose(server: Vec<String>, ours: &[ProtocolVersion]) -> EraVerdict {
    let shared: Vec<ProtocolVersion> =
        server.iter().filter_map(|text| ProtocolVersion::parse(text)).filter(|v| ours.contains(v)).collect();
    match shared.iter().filter(|v| v.era() == Era::Modern).max() {
        Some(version) => EraVerdict::Modern(*version),
        None if !shared.is_empty() => EraVerdict::Legacy { try_http_sse: false },
        None => EraVerdict::Incompatible { supported: server },
    }
}

fn preferred(ours: &[ProtocolVersion]) -> ProtocolVersion {
    ours.iter().copied().filter(|v| v.era() == Era::Modern).max().unwrap_or(ProtocolVersion::LATEST)
}

fn from_modern_error(error: &ErrorObject, ours: &[ProtocolVersion]) -> Option<EraVerdict> {
    match error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => Some(choose(supported_list(error.data.as_ref()), ours)),
        ErrorCode::HEADER_MISMATCH | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            Some(EraVerdict::Modern(preferred(ours)))
        }
        _ => None,
    }
}

/// Reads a stdio `server/discover` probe; `ours` lists the versions the client speaks.
pub fn stdio_probe_verdict(outcome: ProbeOutcome<'_>, ours: &[ProtocolVersion]) -> EraVerdict {
    match outcome {
        ProbeOutcome::Result(result) => choose(supported_list(Some(result)), ours),
        ProbeOutcome::Error(error) => {
            from_modern_error(error, ours).unwrap_or(EraVerdict::Legacy { try_http_sse: false })
        }
        ProbeOutcome::TimedOut => EraVerdict::Legacy { try_http_sse: false },
    }
}

/// Reads the HTTP answer to a first modern request: its status and body (JSON or empty;
/// an SSE body counts as success through its status).
pub fn http_probe_verdict(status: u16, body: &[u8], ours: &[ProtocolVersion]) -> EraVerdict {
    let error = match crate::jsonrpc::parse_message(body) {
        Ok(Message::Error(response)) => Some(response.error),
        _ => None,
    };
    if let Some(error) = &error {
        if let Some(verdict) = from_modern_error(error, ours) {
            return verdict;
        }
        if status == 404 && error.code == ErrorCode::METHOD_NOT_FOUND {
            return EraVerdict::Modern(preferred(ours));
        }
    }
    match status {
        // A legacy server that answered without a session: its error is not a modern one.
        200..=299 if error.is_some() => EraVerdict::Legacy { try_http_sse: false },
        200..=299 => EraVerdict::Modern(preferred(ours)),
        400 | 404 | 405 => EraVerdict::Legacy { try_http_sse: true },
        _ => EraVerdict::Undecided,
    }
}
