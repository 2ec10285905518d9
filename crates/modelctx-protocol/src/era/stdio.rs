//! CHECKLIST §10.2: one server, both eras, one stdio stream.

use super::checks::{check_request_meta, is_modern_body, negotiate_initialize, no_era};
use super::{PeerState, Refused, Route, ServerVersions};
use crate::Method;
use crate::jsonrpc::{ErrorObject, Message};

/// The status field of a stdio rejection carries no meaning; 400 keeps it well-formed.
const NO_STATUS: u16 = 400;

pub(super) fn route(message: &Message, peer: &PeerState, versions: &ServerVersions) -> Route {
    let reject = |error: ErrorObject| Route::Reject(Refused::new(NO_STATUS, error, message));
    let session = match peer {
        PeerState::Session(version) => Some(*version),
        PeerState::NoSession | PeerState::UnknownSession => None,
    };
    match (message, session) {
        // 1. A request with a `_meta` protocol version is modern, session or not.
        (Message::Request(request), _) if is_modern_body(request.params.as_ref()) => {
            match check_request_meta(request.params.as_ref(), versions) {
                Ok(version) => Route::Modern(version),
                Err(error) => reject(error),
            }
        }
        // 2. `initialize` opens the legacy session of this process, once.
        (Message::Request(request), _) if request.method == Method::Initialize => {
            match (session, negotiate_initialize(request.params.as_ref(), versions)) {
                (_, Err(error)) => reject(error),
                (Some(version), Ok(_)) => reject(ErrorObject::invalid_request(format!(
                    "this stdio connection already has a session at {version}; initialize is sent once"
                ))),
                (None, Ok(version)) => Route::Initialize(version),
            }
        }
        // 3. Anything else inside a legacy session follows legacy rules.
        (_, Some(version)) => Route::Legacy(version),
        // 4. Without a session, modern rules apply.
        (Message::Request(_), None) => reject(no_era(versions)),
        (Message::Notification(_), None) => match versions.modern().first() {
            Some(version) => Route::Modern(*version),
            None => Route::Ignore("a notification before initialize on a legacy-only server"),
        },
        (Message::Response(_) | Message::Error(_), None) => Route::Ignore(
            "a response with no legacy session to route it to (2026-07-28 clients send no responses)",
        ),
    }
}
