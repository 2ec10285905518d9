//! Tool and prompt arguments from the command line: `key=value` pairs typed by the input
//! schema (`n=3` is a number when the schema says number, a string when it says string),
//! `key:=JSON` for a raw JSON value, and a whole `{…}` object.

use modelctx_protocol::JsonObject;
use serde_json::{Map, Value};

use super::exit::Failure;

/// The JSON types a schema allows for one property (`type`, or the types of its
/// `anyOf`/`oneOf` branches); empty when it does not say.
fn allowed_types(schema: Option<&Value>) -> Vec<String> {
    let Some(schema) = schema else { return Vec::new() };
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema.get(key).and_then(Value::as_array))
            .flatten()
            .flat_map(|branch| allowed_types(Some(branch)))
            .collect(),
    }
}

/// `raw` as the JSON value the property's schema asks for.
fn typed(key: &str, raw: &str, schema: Option<&Value>) -> Result<Value, Failure> {
    let types = allowed_types(schema);
    let wants = |kind: &str| types.iter().any(|t| t == kind);
    if types.is_empty() || wants("string") {
        return Ok(Value::String(raw.to_owned()));
    }
    let parsed: Option<Value> = serde_json::from_str(raw).ok();
    let fits = |value: &Value| match value {
        Value::Number(n) => wants("number") || (wants("integer") && (n.is_i64() || n.is_u64())),
        Value::Bool(_) => wants("boolean"),
        Value::Array(_) => wants("array"),
        Value::Object(_) => wants("object"),
        Value::Null => wants("null"),
        Value::String(_) => false,
    };
    match parsed {
        Some(value) if fits(&value) => Ok(value),
        _ => Err(Failure::Usage(format!(
            "argument {key}: {raw:?} is not {} (the input schema says so); use {key}:=JSON for a raw JSON value",
            types.join(" or ")
        ))),
    }
}

/// Builds the arguments object: the `{…}` objects among `items` first, then each
/// `key=value` (typed by `input_schema`) or `key:=JSON` over them.
pub fn build(items: &[String], input_schema: Option<&JsonObject>) -> Result<JsonObject, Failure> {
    let properties = input_schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
    let mut arguments = Map::new();
    for item in items {
        if item.trim_start().starts_with('{') {
            match serde_json::from_str::<Value>(item) {
                Ok(Value::Object(object)) => arguments.extend(object),
                _ => return Err(Failure::Usage(format!("{item:?} is not a JSON object"))),
            }
            continue;
        }
        let Some((key, raw)) = item.split_once('=') else {
            return Err(Failure::Usage(format!("{item:?} is not key=value, key:=JSON or a {{…}} object")));
        };
        let value = match key.strip_suffix(':') {
            Some(key) => {
                let value = serde_json::from_str(raw)
                    .map_err(|e| Failure::Usage(format!("argument {key}: {raw:?} is not JSON: {e}")))?;
                arguments.insert(key.to_owned(), value);
                continue;
            }
            None => typed(key, raw, properties.and_then(|p| p.get(key)))?,
        };
        arguments.insert(key.to_owned(), value);
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> JsonObject {
        json!({"type": "object", "properties": {
            "n": {"type": "number"}, "i": {"type": "integer"}, "s": {"type": "string"},
            "b": {"type": "boolean"}, "tags": {"type": "array"}, "maybe": {"type": ["integer", "null"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "number"}]}
        }})
        .as_object()
        .cloned()
        .unwrap()
    }

    fn args(items: &[&str]) -> Result<Value, Failure> {
        let items: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
        build(&items, Some(&schema())).map(Value::Object)
    }

    #[test]
    fn values_take_the_type_the_schema_names() {
        let built =
            args(&["n=3", "i=-4", "s=007", "b=true", "tags=[1,2]", "maybe=null", "either=5", "extra=x"]);
        assert_eq!(
            built.unwrap(),
            json!({"n": 3, "i": -4, "s": "007", "b": true, "tags": [1, 2], "maybe": null, "either": "5", "extra": "x"})
        );
    }

    #[test]
    fn raw_json_and_whole_objects_combine_in_order() {
        let built = args(&[r#"{"n": 1, "s": "a"}"#, "n=2", "s:=[\"raw\"]"]).unwrap();
        assert_eq!(built, json!({"n": 2, "s": ["raw"]}));
    }

    #[test]
    fn a_value_of_the_wrong_type_is_a_usage_error_naming_the_argument() {
        for (item, says) in
            [("n=three", "is not number"), ("i=1.5", "is not integer"), ("b=yes", "is not boolean")]
        {
            match args(&[item]) {
                Err(Failure::Usage(message)) => assert!(message.contains(says), "{message}"),
                other => panic!("{item}: {other:?}"),
            }
        }
        assert!(matches!(args(&["no-equals"]), Err(Failure::Usage(_))));
        assert!(matches!(args(&["{not json"]), Err(Failure::Usage(_))));
    }
}
