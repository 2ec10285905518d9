//! Errors whose code depends on the era.

use crate::Era;
use crate::jsonrpc::ErrorObject;

/// A `resources/read` of an unknown URI: `-32002` for legacy requests (2025-11-25
/// SHOULD), `-32602` for modern ones (2026-07-28 MUST; `-32002` is reserved there).
pub fn resource_not_found(era: Era, uri: &str) -> ErrorObject {
    match era {
        Era::Legacy => ErrorObject::legacy_resource_not_found(uri),
        Era::Modern => ErrorObject::resource_not_found(uri),
    }
}
