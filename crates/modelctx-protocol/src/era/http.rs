//! CHECKLIST §10.3: one server, both eras, one Streamable HTTP endpoint.

use super::checks::{body_version, check_request_meta, missing_meta, negotiate_initialize};
use super::{PeerState, Refused, Route, ServerVersions};
use crate::Method;
use crate::headers;
use crate::jsonrpc::{ErrorObject, Message, Request};
use crate::meta;
use crate::version::{Era, ProtocolVersion};

/// The HTTP method of a request to the MCP endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpMethod {
    /// `POST`: one JSON-RPC message.
    Post,
    /// `GET`: open a legacy session's stream (or resume it with `Last-Event-ID`).
    Get,
    /// `DELETE`: end a legacy session.
    Delete,
    /// Anything else.
    Other,
}

/// What the router needs from an HTTP POST's headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HttpRequestFacts<'a> {
    /// The `Origin` check passed (or there was no `Origin` header).
    pub origin_allowed: bool,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<&'a str>,
    /// `Mcp-Method`.
    pub mcp_method: Option<&'a str>,
    /// `Mcp-Name`, as sent (possibly in the Base64 sentinel form).
    pub mcp_name: Option<&'a str>,
}

impl<'a> HttpRequestFacts<'a> {
    /// Facts for a request with no MCP headers from an allowed origin.
    pub fn allowed() -> Self {
        Self { origin_allowed: true, ..Self::default() }
    }

    /// The value of one of the standard headers, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&'a str> {
        [
            (headers::MCP_PROTOCOL_VERSION, self.protocol_version),
            (headers::MCP_METHOD, self.mcp_method),
            (headers::MCP_NAME, self.mcp_name),
        ]
        .into_iter()
        .find(|(header, _)| header.eq_ignore_ascii_case(name))
        .and_then(|(_, value)| value)
    }
}

/// The verdict for a request without a JSON-RPC body (GET, DELETE, others).
#[derive(Clone, Debug, PartialEq)]
pub enum StreamRoute {
    /// GET: open (or resume) the standalone SSE stream of the session at this version.
    OpenStream(ProtocolVersion),
    /// DELETE: end the session.
    EndSession,
    /// Refuse with this status and id-less error body.
    Reject(Refused),
}

const BAD_REQUEST: u16 = 400;

fn origin_rejection() -> ErrorObject {
    ErrorObject::invalid_request(
        "the Origin header names a site this server does not accept (DNS-rebinding protection); \
         allow it in the server's origin list if it is yours",
    )
}

fn unknown_session() -> ErrorObject {
    ErrorObject::invalid_request(
        "session not found or expired: start a new session with initialize, without Mcp-Session-Id",
    )
}

/// Routes a GET, DELETE or other body-less request.
pub fn route_http_stream(
    method: HttpMethod,
    origin_allowed: bool,
    peer: &PeerState,
    versions: &ServerVersions,
) -> StreamRoute {
    let reject = |status, error| StreamRoute::Reject(Refused { status, error, id: None });
    if !origin_allowed {
        return reject(403, origin_rejection());
    }
    let method_not_allowed = || {
        reject(
            405,
            ErrorObject::invalid_request(
                "only POST is served here: 2026-07-28 has no GET stream or DELETE (use subscriptions/listen)",
            ),
        )
    };
    if method == HttpMethod::Other || !versions.serves_legacy() {
        return method_not_allowed();
    }
    match (method, peer) {
        (_, PeerState::UnknownSession) => reject(404, unknown_session()),
        (_, PeerState::NoSession) => reject(
            BAD_REQUEST,
            ErrorObject::invalid_request("GET and DELETE need the Mcp-Session-Id that initialize returned"),
        ),
        (HttpMethod::Get, PeerState::Session(version)) => StreamRoute::OpenStream(*version),
        (HttpMethod::Delete, PeerState::Session(_)) => StreamRoute::EndSession,
        (HttpMethod::Post | HttpMethod::Other, PeerState::Session(_)) => method_not_allowed(),
    }
}

/// Routes the JSON-RPC message of a POST.
pub(super) fn route_post(
    message: &Message,
    facts: &HttpRequestFacts<'_>,
    peer: &PeerState,
    versions: &ServerVersions,
) -> Route {
    let reject = |status, error| Route::Reject(Refused::new(status, error, message));
    // 1. Origin first, in both eras.
    if !facts.origin_allowed {
        return reject(403, origin_rejection());
    }
    let header = facts.protocol_version.map(|text| (text, ProtocolVersion::parse(text)));
    let header_is_modern = matches!(header, Some((_, Some(v))) if v.era() == Era::Modern);
    let modern = header_is_modern || body_version(message.params()).is_some();
    match message {
        // 2. Modern: the headers must mirror the body.
        Message::Request(request) if modern => match check_modern_request(request, facts, versions) {
            Ok(version) => Route::Modern(version),
            Err(error) => reject(BAD_REQUEST, error),
        },
        Message::Notification(_) if modern => Route::Modern(notification_version(header, versions)),
        // 3. `initialize` needs no header and opens a new session.
        Message::Request(request) if request.method == Method::Initialize => {
            match negotiate_initialize(request.params.as_ref(), versions) {
                Ok(version) => Route::Initialize(version),
                Err(error) => reject(BAD_REQUEST, error),
            }
        }
        // 4. Legacy session traffic.
        _ => match peer {
            PeerState::UnknownSession => reject(404, unknown_session()),
            PeerState::Session(version) => match header {
                None => Route::Legacy(*version),
                Some((_, Some(sent))) if sent == *version => Route::Legacy(*version),
                Some((text, _)) => reject(
                    BAD_REQUEST,
                    ErrorObject::invalid_request(format!(
                        "MCP-Protocol-Version {text:?} differs from the session's negotiated {version}"
                    )),
                ),
            },
            // 5. Neither modern nor in a session.
            PeerState::NoSession => route_sessionless(message, header, versions)
                .map_or_else(|error| reject(BAD_REQUEST, error), Route::Modern),
        },
    }
}

/// A POST with no modern markers and no session: notifications are accepted as modern
/// (2026-07-28 defines no header rules for them); requests and responses are refused with
/// the reason that fits the header they carry.
fn route_sessionless(
    message: &Message,
    header: Option<(&str, Option<ProtocolVersion>)>,
    versions: &ServerVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    match (message, header) {
        (Message::Notification(_), header) => Ok(notification_version(header, versions)),
        (Message::Response(_) | Message::Error(_), _) => Err(ErrorObject::invalid_request(
            "JSON-RPC responses are accepted only inside a legacy session (send Mcp-Session-Id)",
        )),
        (Message::Request(_), Some((text, None))) => Err(ErrorObject::header_mismatch(format!(
            "MCP-Protocol-Version {text:?} is not a protocol version (YYYY-MM-DD)"
        ))),
        (Message::Request(_), Some((text, Some(version)))) if versions.supports(version) => {
            Err(ErrorObject::invalid_request(format!(
                "MCP-Protocol-Version {text} needs the Mcp-Session-Id that initialize returned"
            )))
        }
        (Message::Request(_), Some((text, Some(_)))) => {
            Err(ErrorObject::unsupported_protocol_version(&versions.all(), text))
        }
        (Message::Request(_), None) => Err(ErrorObject::header_mismatch(
            "missing MCP-Protocol-Version header: 2026-07-28 requests send it with _meta; \
             legacy clients send initialize first",
        )),
    }
}

fn notification_version(
    header: Option<(&str, Option<ProtocolVersion>)>,
    versions: &ServerVersions,
) -> ProtocolVersion {
    header
        .and_then(|(_, version)| version)
        .filter(|v| v.era() == Era::Modern && versions.supports(*v))
        .or_else(|| versions.modern().first().copied())
        .unwrap_or(ProtocolVersion::LATEST)
}

/// The modern POST checks: the body's `_meta` version, every mirrored header against the
/// body, then the `_meta` contents.
fn check_modern_request(
    request: &Request,
    facts: &HttpRequestFacts<'_>,
    versions: &ServerVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let params = request.params.as_ref();
    if body_version(params).is_none() {
        return Err(missing_meta(meta::PROTOCOL_VERSION));
    }
    headers::check_standard_headers(&request.method, params, |name| facts.header(name))?;
    check_request_meta(params, versions)
}
