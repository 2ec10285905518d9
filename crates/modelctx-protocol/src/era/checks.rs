//! Checks both transports apply: a modern request's `_meta`, and `initialize` negotiation.

use serde_json::Value;

use super::versions::ServerVersions;
use crate::JsonObject;
use crate::jsonrpc::ErrorObject;
use crate::meta;
use crate::version::{Era, ProtocolVersion};

/// The body's `_meta["io.modelcontextprotocol/protocolVersion"]`, if the key is present.
pub(super) fn body_version(params: Option<&JsonObject>) -> Option<&Value> {
    params?.get("_meta")?.get(meta::PROTOCOL_VERSION)
}

/// Whether the request opts into modern rules by carrying a `_meta` protocol version.
pub(super) fn is_modern_body(params: Option<&JsonObject>) -> bool {
    body_version(params).is_some()
}

/// Validates a modern request's required `_meta`: a served modern version (`-32022`
/// otherwise, listing every served version) and client capabilities (`-32602` otherwise).
pub(super) fn check_request_meta(
    params: Option<&JsonObject>,
    versions: &ServerVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let meta = params.and_then(|p| p.get("_meta"));
    let Some(meta) = meta.and_then(Value::as_object) else {
        return Err(missing_meta(meta::PROTOCOL_VERSION));
    };
    let requested = match meta.get(meta::PROTOCOL_VERSION) {
        Some(Value::String(text)) => text,
        Some(_) => {
            return Err(ErrorObject::invalid_params(format!(
                "_meta[\"{}\"] must be a string such as \"2026-07-28\"",
                meta::PROTOCOL_VERSION
            )));
        }
        None => return Err(missing_meta(meta::PROTOCOL_VERSION)),
    };
    let version = ProtocolVersion::parse(requested)
        .filter(|v| v.era() == Era::Modern && versions.supports(*v))
        .ok_or_else(|| ErrorObject::unsupported_protocol_version(&versions.all(), requested))?;
    match meta.get(meta::CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => Ok(version),
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "_meta[\"{}\"] must be an object ({{}} declares none)",
            meta::CLIENT_CAPABILITIES
        ))),
        None => Err(missing_meta(meta::CLIENT_CAPABILITIES)),
    }
}

/// `-32602` for a request that lacks a required `_meta` field.
pub(super) fn missing_meta(key: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "missing required _meta field \"{key}\": 2026-07-28 requests carry \
         \"{}\" and \"{}\" in params._meta (or open a legacy session with initialize)",
        meta::PROTOCOL_VERSION,
        meta::CLIENT_CAPABILITIES
    ))
}

/// The legacy version to open an `initialize` session at, or — on a server without legacy
/// support — the error naming the versions it does serve (VER-13).
pub(super) fn negotiate_initialize(
    params: Option<&JsonObject>,
    versions: &ServerVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let requested = params.and_then(|p| p.get("protocolVersion")).and_then(Value::as_str).unwrap_or_default();
    versions.negotiate_legacy(requested).ok_or_else(|| initialize_not_served(requested, versions))
}

fn initialize_not_served(requested: &str, versions: &ServerVersions) -> ErrorObject {
    let mut error = ErrorObject::unsupported_protocol_version(&versions.all(), requested);
    error.message = format!(
        "This server does not use the initialize handshake; send 2026-07-28 requests with \
         _meta instead. {}",
        error.message
    );
    error
}

/// The error for a request that is neither modern nor inside a legacy session.
pub(super) fn no_era(versions: &ServerVersions) -> ErrorObject {
    if versions.modern().is_empty() {
        ErrorObject::invalid_request("no session: send initialize first")
    } else {
        missing_meta(meta::PROTOCOL_VERSION)
    }
}
