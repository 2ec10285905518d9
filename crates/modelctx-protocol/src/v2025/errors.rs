//! The one 2025-11-25 error with a shape of its own. The generic codes are [`ErrorObject`]s
//! built with its constructors (`-32002` resource-not-found with
//! [`ErrorObject::legacy_resource_not_found`]).

use serde_json::json;

use super::client_features::ElicitRequestURLParams;
use crate::jsonrpc::{ErrorCode, ErrorObject, JsonRpcErrorResponse};

/// The `-32042` error response (`URLElicitationRequiredError`): the request cannot go on
/// until the user completes the URL-mode elicitations listed in `error.data.elicitations`.
/// Build its error with [`url_elicitation_required`].
pub type URLElicitationRequiredError = JsonRpcErrorResponse;

/// The `-32042` error object listing the URL-mode elicitations a request needs first.
pub fn url_elicitation_required(elicitations: &[ElicitRequestURLParams]) -> ErrorObject {
    let message = match elicitations.len() {
        1 => "URL elicitation required: the user must complete 1 elicitation first".to_owned(),
        n => format!("URL elicitation required: the user must complete {n} elicitations first"),
    };
    ErrorObject::new(ErrorCode::URL_ELICITATION_REQUIRED, message)
        .with_data(json!({ "elicitations": elicitations }))
}
