//! Params read into their types and results written as JSON objects: what the method table,
//! the legacy session and the tasks share.

use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::{ErrorObject, RequestMethod};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The params of request method `M`, with `-32602` naming the problem.
pub(crate) fn params_of<M: RequestMethod>(params: Option<JsonObject>) -> Result<M::Params, ErrorObject> {
    parse_params(params)
}

/// Parses a request's params into `T`, with `-32602` naming the problem.
pub(crate) fn parse_params<T: DeserializeOwned>(params: Option<JsonObject>) -> Result<T, ErrorObject> {
    T::deserialize(params.map_or(Value::Null, Value::Object)).map_err(ErrorObject::invalid_params)
}

/// The params of an extension's `method` without their `_meta`, read into `T`, with `-32602`
/// naming the method and the problem.
#[cfg(feature = "experimental")]
pub(crate) fn extension_params<T: DeserializeOwned>(
    method: &str,
    params: Option<JsonObject>,
) -> Result<T, ErrorObject> {
    let mut params = params.unwrap_or_default();
    params.remove("_meta");
    T::deserialize(Value::Object(params))
        .map_err(|e| ErrorObject::invalid_params(format!("{method} params: {e}")))
}

/// A result as a JSON object.
pub(crate) fn to_object(result: &impl Serialize) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => object,
        other => unreachable!("results serialise to objects, got {other:?}"),
    }
}
