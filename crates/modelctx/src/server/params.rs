//! Params read into their types and results written as JSON objects: what the method table,
//! the legacy session and the tasks share.

use modelctx_protocol::jsonrpc::{ErrorObject, RequestMethod};
use modelctx_protocol::{JsonObject, v2025};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The params of request method `M`, with `-32602` naming the problem.
pub(crate) fn params_of<M: RequestMethod>(params: Option<JsonObject>) -> Result<M::Params, ErrorObject> {
    parse_params(params)
}

/// The params of a 2025-11-25 `tools/call`. Those of the common shape — a string `name`, and
/// `arguments` as an object or left out — are taken apart as they are: read by serde, the
/// arguments would be copied entry by entry. Any other are read by [`params_of`].
pub(crate) fn legacy_call_params(
    params: Option<JsonObject>,
) -> Result<v2025::CallToolRequestParams, ErrorObject> {
    let common = |map: &JsonObject| {
        let members = match map.get("arguments") {
            None => 1,
            Some(Value::Object(_)) => 2,
            Some(_) => return false,
        };
        map.len() == members && matches!(map.get("name"), Some(Value::String(_)))
    };
    match params {
        Some(map) if common(&map) => {
            let mut call =
                v2025::CallToolRequestParams { meta: None, name: String::new(), arguments: None, task: None };
            for (key, value) in map {
                match value {
                    Value::String(name) if key == "name" => call.name = name,
                    Value::Object(arguments) => call.arguments = Some(arguments),
                    _ => {}
                }
            }
            Ok(call)
        }
        other => params_of::<v2025::CallTool>(other),
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_legacy_call_is_read_as_serde_reads_it() {
        let cases = [
            json!({"name": "echo", "arguments": {"message": "hi", "n": [1, {"a": null}]}}),
            json!({"name": "echo"}),
            json!({"name": "echo", "arguments": null}),
            json!({"name": "echo", "arguments": [1]}),
            json!({"name": 7, "arguments": {}}),
            json!({"arguments": {}}),
            json!({"name": "echo", "arguments": {}, "_meta": {"progressToken": 1}}),
            json!({"name": "echo", "task": {"ttl": 1000}}),
            json!({"name": "echo", "other": 1}),
        ];
        for params in cases {
            let Value::Object(map) = params else { unreachable!() };
            assert_eq!(
                legacy_call_params(Some(map.clone())),
                params_of::<v2025::CallTool>(Some(map.clone())),
                "{map:?}"
            );
        }
        assert_eq!(legacy_call_params(None), params_of::<v2025::CallTool>(None));
    }
}
