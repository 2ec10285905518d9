//! The era router: for each incoming message, modern (stateless, 2026-07-28), legacy
//! (an `initialize` session, 2025-11-25 and older), or a rejection with the precise error.
//!
//! It is a pure function of the message, the transport's facts and what is known of the
//! peer, so every transport and the tests share one decision procedure — the one in
//! CHECKLIST §10.2 (stdio) and §10.3 (Streamable HTTP). The client side of version
//! negotiation (reading a probe's outcome) is in [`client`].
//!
//! Feature code never looks at version strings: it receives the [`Route`]'s
//! [`ProtocolVersion`] and [`Era`].

mod checks;
pub mod client;
mod http;
mod request_meta;
mod stdio;
mod versions;

pub use http::{HttpMethod, HttpRequestFacts, StreamRoute, route_http_stream};
pub(crate) use request_meta::version_key;
pub use request_meta::{DeclaredClient, MetaMemo, RequestMeta};
pub use versions::ServerVersions;

use crate::jsonrpc::{ErrorObject, Message, RequestId};
use crate::version::{Era, ProtocolVersion};

/// The transport a message arrived on, with the facts the router needs.
#[derive(Clone, Debug)]
pub enum Transport<'a> {
    /// One line on the server's stdin.
    Stdio,
    /// The body of an HTTP POST to the MCP endpoint.
    Http(HttpRequestFacts<'a>),
}

/// What the server knows of the peer before this message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerState {
    /// No legacy session: on stdio, no `initialize` yet; on HTTP, no `Mcp-Session-Id` header.
    NoSession,
    /// A legacy session with its negotiated version (stdio: this process; HTTP: the
    /// session named by `Mcp-Session-Id`).
    Session(ProtocolVersion),
    /// HTTP only: the request named a session that does not exist or has expired.
    UnknownSession,
}

/// The router's verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// Process statelessly under 2026-07-28 rules at this version.
    Modern(ProtocolVersion),
    /// Process under the legacy session's rules at this version.
    Legacy(ProtocolVersion),
    /// An `initialize` request: open a legacy session at this negotiated version.
    Initialize(ProtocolVersion),
    /// Refuse the message; answer with the rejection's error if it was a request.
    Reject(Refused),
    /// Drop the message: it is a response or error that no request of ours awaits.
    Ignore(&'static str),
}

impl Route {
    /// The era whose rules apply, when the message is accepted.
    pub fn era(&self) -> Option<Era> {
        match self {
            Self::Modern(_) => Some(Era::Modern),
            Self::Legacy(_) | Self::Initialize(_) => Some(Era::Legacy),
            Self::Reject(_) | Self::Ignore(_) => None,
        }
    }

    /// Whether the message is accepted under modern rules.
    pub fn is_modern(&self) -> bool {
        matches!(self, Self::Modern(_))
    }

    /// The refusal, if the message is refused.
    pub fn refused(&self) -> Option<&Refused> {
        match self {
            Self::Reject(refused) => Some(refused),
            _ => None,
        }
    }
}

/// A refused message: the JSON-RPC error to answer with, and the HTTP status to use.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// HTTP status (400, 403, 404, 405 from the router; a server's own refusals may use
    /// others); stdio ignores it.
    pub status: u16,
    /// The error object.
    pub error: ErrorObject,
    /// The id to answer; `None` for notifications (which are never answered on stdio, and
    /// get an id-less error body over HTTP).
    pub id: Option<RequestId>,
}

impl Refused {
    fn new(status: u16, error: ErrorObject, message: &Message) -> Self {
        let id = match message {
            Message::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        Self { status, error, id }
    }
}

/// Routes one incoming message.
pub fn route(
    message: &Message,
    transport: &Transport<'_>,
    peer: &PeerState,
    versions: &ServerVersions,
) -> Route {
    match transport {
        Transport::Stdio => stdio::route(message, peer, versions),
        Transport::Http(facts) => http::route_post(message, facts, peer, versions),
    }
}

/// The HTTP status for an error produced by *dispatch* (after routing): modern requests get
/// `404` for an unknown method and `400` for a missing client capability; everything else,
/// and every legacy error, travels as `200` with the JSON-RPC error body (a `404` would tell
/// a legacy client its session is gone).
pub fn dispatch_error_status(era: Era, error: &ErrorObject) -> u16 {
    use crate::jsonrpc::ErrorCode;
    match (era, error.code) {
        (Era::Modern, ErrorCode::METHOD_NOT_FOUND) => 404,
        (
            Era::Modern,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        ) => 400,
        _ => 200,
    }
}
