//! JSON Schemas, for the server (tool input and output schemas) and the client (results
//! checked against a tool's `outputSchema`) alike: generated from Rust types with `schemars`
//! (draft 2020-12), compiled for validation with `jsonschema` (the `validation` feature).

#[cfg(all(feature = "validation", feature = "server"))]
use std::sync::OnceLock;

use modelctx_protocol::JsonObject;
use serde_json::Value;

/// The JSON Schema (2020-12) of `T`, as an object.
#[cfg(feature = "server")]
pub(crate) fn schema_of<T: schemars::JsonSchema>() -> JsonObject {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(schema)) => schema,
        // `true`/`false` schemas: "anything" is the closest object form.
        _ => JsonObject::new(),
    }
}

/// A compiled schema that explains failures by instance path.
#[cfg(feature = "validation")]
pub(crate) struct Validator(jsonschema::Validator);

#[cfg(feature = "validation")]
impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

#[cfg(feature = "validation")]
impl Validator {
    /// Compiles `schema`: draft 2020-12 unless it declares another supported `$schema`
    /// (BASE-20); an unknown dialect is an error (BASE-21). Network and file `$ref`s are never
    /// fetched (BASE-23): `jsonschema` is built without its retrievers, so they fail to
    /// resolve and the schema is refused (BASE-24).
    pub(crate) fn new(schema: &JsonObject) -> Result<Self, String> {
        let schema = Value::Object(schema.clone());
        jsonschema::validator_for(&schema).map(Self).map_err(|e| e.to_string())
    }

    /// `None` when `value` conforms; otherwise every violation, each naming where it is
    /// (`/a: "x" is not of type "number"`).
    pub(crate) fn explain(&self, value: &Value) -> Option<String> {
        // Most values conform: checked without gathering errors first.
        if self.0.is_valid(value) {
            return None;
        }
        let problems: Vec<String> = self
            .0
            .iter_errors(value)
            .map(|error| {
                let path = error.instance_path().to_string();
                let place = if path.is_empty() { "(root)".to_owned() } else { path };
                format!("{place}: {error}")
            })
            .collect();
        (!problems.is_empty()).then(|| problems.join("; "))
    }
}

/// A schema compiled when it is first needed, or at once when asked (the registration
/// check): a server that starts pays nothing for the schemas of tools nobody calls. Compiling
/// checks the schema against its meta-schema, which costs more than the compilation itself.
#[cfg(all(feature = "validation", feature = "server"))]
#[derive(Debug, Default)]
pub(crate) struct CompiledOnUse(OnceLock<Result<Validator, String>>);

#[cfg(all(feature = "validation", feature = "server"))]
impl CompiledOnUse {
    /// `schema` compiled now; why it does not compile.
    pub(crate) fn now(schema: &JsonObject) -> Result<Self, String> {
        Ok(Self(OnceLock::from(Ok(Validator::new(schema)?))))
    }

    /// The validator of `schema` (the schema this value was made for), compiled on the first
    /// call; why it does not compile.
    pub(crate) fn get(&self, schema: &JsonObject) -> Result<&Validator, &str> {
        self.0.get_or_init(|| Validator::new(schema)).as_ref().map_err(String::as_str)
    }
}

#[cfg(all(test, feature = "validation", feature = "server"))]
mod tests {
    use serde_json::json;

    use super::*;

    fn compiled(schema: Value) -> Result<Validator, String> {
        Validator::new(schema.as_object().expect("an object schema"))
    }

    /// BASE-20: a schema without `$schema` is read as draft 2020-12 (`prefixItems` is a
    /// 2020-12 keyword: older drafts ignore it).
    #[test]
    fn base_20_a_schema_without_a_dialect_is_2020_12() {
        let validator = compiled(json!({"type": "array", "prefixItems": [{"type": "integer"}]})).unwrap();
        assert!(validator.explain(&json!([1, "x"])).is_none());
        assert!(validator.explain(&json!(["not an integer"])).is_some(), "prefixItems applied");
    }

    /// BASE-21: a schema declaring a dialect nobody supports is refused, saying so.
    #[test]
    fn base_21_an_unknown_dialect_is_an_error_that_says_so() {
        let refused = compiled(json!({"$schema": "https://example.com/my-dialect", "type": "object"})).err();
        assert!(refused.expect("refused").contains("example.com/my-dialect"));
        assert!(compiled(json!({"$schema": "http://json-schema.org/draft-07/schema#"})).is_ok());
    }

    /// BASE-23: a `$ref` to a network URI is never fetched; the schema is refused instead.
    #[test]
    fn base_23_a_network_ref_is_never_fetched() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}/schema.json", listener.local_addr().unwrap());
        assert!(compiled(json!({"$ref": url})).is_err(), "an unresolvable reference refuses the schema");
        assert!(listener.accept().is_err(), "nothing connected to the schema's host");
    }

    #[test]
    fn a_schema_compiled_on_use_is_compiled_once_and_keeps_its_error() {
        let good = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let good = good.as_object().unwrap();
        let lazy = CompiledOnUse::default();
        let first: *const Validator = lazy.get(good).unwrap();
        assert!(std::ptr::eq(first, lazy.get(good).unwrap()), "compiled once");
        assert!(lazy.get(good).unwrap().explain(&json!({"n": "x"})).is_some());
        let bad = json!({"type": "object", "$schema": "https://example.com/unknown"});
        let bad = bad.as_object().unwrap();
        assert!(CompiledOnUse::now(bad).is_err(), "checked now");
        let lazy = CompiledOnUse::default();
        assert!(lazy.get(bad).unwrap_err().contains("example.com/unknown"));
    }
}
