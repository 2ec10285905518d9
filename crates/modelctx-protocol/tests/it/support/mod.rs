//! Shared machinery for the wire tests: the official schemas, a registry from schema
//! definition names to our Rust types, a generator of schema-valid instances, and a JSON
//! comparison that treats `42` and `42.0` as the same number.

#![allow(dead_code)] // each test binary uses a different part

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Parses a value into `T` and serialises it back.
pub type Roundtrip = fn(Value) -> Result<Value, String>;

/// One registry row: a schema definition and the Rust type that carries it.
pub struct Entry {
    pub definition: &'static str,
    pub rust_type: &'static str,
    pub roundtrip: Roundtrip,
}

pub fn roundtrip<T: DeserializeOwned + Serialize>(value: Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value).map_err(|e| format!("deserialize: {e}"))?;
    serde_json::to_value(&typed).map_err(|e| format!("serialize: {e}"))
}

/// `registry!["Name" => Type, …]` builds the definition → type table.
#[macro_export]
macro_rules! registry {
    ($($name:literal => $ty:ty),* $(,)?) => {
        vec![$($crate::support::Entry {
            definition: $name,
            rust_type: stringify!($ty),
            roundtrip: $crate::support::roundtrip::<$ty>,
        }),*]
    };
}

pub fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec")
}

/// The revision's `schema.json`.
pub fn schema(revision: &str) -> Value {
    let path = spec_dir().join(revision).join("schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("schema.json parses")
}

pub fn definitions(schema: &Value) -> &Map<String, Value> {
    schema["$defs"].as_object().expect("$defs")
}

/// A validator for one definition of `schema` (draft 2020-12).
pub fn validator(schema: &Value, definition: &str) -> jsonschema::Validator {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{definition}"),
        "$defs": schema["$defs"],
    });
    jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("schema for {definition}: {e}"))
}

/// All validation errors of `instance` against `definition`, joined.
pub fn schema_errors(schema: &Value, definition: &str, instance: &Value) -> Option<String> {
    let validator = validator(schema, definition);
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// Compares JSON values, numbers by numeric value.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The registry row of `definition`.
pub fn entry<'r>(registry: &'r [Entry], definition: &str) -> &'r Entry {
    registry
        .iter()
        .find(|e| e.definition == definition)
        .unwrap_or_else(|| panic!("no Rust type registered for {definition}"))
}

/// Every `$defs` name has exactly one registry row, and every row names a definition.
pub fn assert_registry_complete(schema: &Value, registry: &[Entry]) {
    let missing: Vec<&String> = definitions(schema)
        .keys()
        .filter(|name| !registry.iter().any(|e| e.definition == name.as_str()))
        .collect();
    assert!(missing.is_empty(), "definitions without a Rust type: {missing:?}");
    assert_eq!(definitions(schema).len(), registry.len(), "registry rows name unknown definitions");
}

/// Generated instances of every definition (each union branch, minimal and maximal) are
/// valid, parse into the registered type, and serialise back to equal JSON.
pub fn assert_generated_instances_round_trip(
    schema: &Value,
    registry: &[Entry],
    protocol_version: &'static str,
) {
    let mut generator = Generator::new(schema, protocol_version);
    let mut failures = Vec::new();
    let mut checked = 0;
    for definition in definitions(schema).keys() {
        let entry = entry(registry, definition);
        for instance in generator.instances(definition) {
            if let Some(errors) = schema_errors(schema, definition, &instance) {
                failures.push(format!("generator produced an invalid {definition}: {errors}\n  {instance}"));
                continue;
            }
            checked += 1;
            match (entry.roundtrip)(instance.clone()) {
                Ok(back) if json_eq(&back, &instance) => {}
                Ok(back) => failures.push(format!(
                    "{definition} as {}: changed:\n  in:  {instance}\n  out: {back}",
                    entry.rust_type
                )),
                Err(e) => {
                    failures.push(format!("{definition} as {}: {e}\n  in: {instance}", entry.rust_type))
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures over {checked} instances:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 300, "only {checked} instances were checked");
}

/// How much of a schema the generator fills in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Required members only.
    Minimal,
    /// Every declared member (to a bounded depth), one entry in every map.
    Maximal,
}

/// Generates instances of one definition: for a top-level union one per branch, each in
/// both fills. Values are chosen to survive typing: integers where the schema says integer,
/// fractions where it says number, valid protocol versions where a version is expected.
pub struct Generator<'a> {
    defs: &'a Map<String, Value>,
    protocol_version: &'static str,
    /// Rotates through `anyOf` branches below the top level.
    turn: usize,
}

const MAX_DEPTH: usize = 7;

impl<'a> Generator<'a> {
    pub fn new(schema: &'a Value, protocol_version: &'static str) -> Self {
        Self { defs: definitions(schema), protocol_version, turn: 0 }
    }

    pub fn instances(&mut self, definition: &str) -> Vec<Value> {
        let schema = &self.defs[definition];
        let branches = schema.get("anyOf").and_then(Value::as_array).map_or(1, Vec::len);
        let mut out = Vec::new();
        for branch in 0..branches {
            for fill in [Fill::Minimal, Fill::Maximal] {
                self.turn = branch;
                let value = if branches > 1 {
                    self.generate(&schema["anyOf"][branch], fill, 0, definition, None)
                } else {
                    self.generate(schema, fill, 0, definition, None)
                };
                if !out.contains(&value) {
                    out.push(value);
                }
            }
        }
        out
    }

    fn generate(&mut self, schema: &Value, fill: Fill, depth: usize, def: &str, key: Option<&str>) -> Value {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.trim_start_matches("#/$defs/");
            let target = self.defs[name].clone();
            return self.generate(&target, fill, depth + 1, name, key);
        }
        if let Some(constant) = schema.get("const") {
            return constant.clone();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return values[self.turn % values.len()].clone();
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let mut merged = Map::new();
            for part in parts.clone() {
                if let Value::Object(members) = self.generate(&part, fill, depth, def, key) {
                    merged.extend(members);
                }
            }
            return Value::Object(merged);
        }
        if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
            let branch = branches[self.turn % branches.len()].clone();
            self.turn += 1;
            return self.generate(&branch, fill, depth, def, key);
        }
        match schema.get("type") {
            Some(Value::Array(kinds)) => {
                let kind = kinds[self.turn % kinds.len()].as_str().unwrap_or("string").to_owned();
                self.generate_kind(&kind, schema, fill, depth, def, key)
            }
            Some(Value::String(kind)) => {
                let kind = kind.clone();
                self.generate_kind(&kind, schema, fill, depth, def, key)
            }
            _ if schema.get("properties").is_some() => {
                self.generate_kind("object", schema, fill, depth, def, key)
            }
            // An unconstrained value (`{}`): any JSON will do.
            _ => json!({"any": [1, "two", true, null]}),
        }
    }

    fn generate_kind(
        &mut self,
        kind: &str,
        schema: &Value,
        fill: Fill,
        depth: usize,
        def: &str,
        key: Option<&str>,
    ) -> Value {
        match kind {
            "object" => self.generate_object(schema, fill, depth, def),
            "array" => {
                let count = if fill == Fill::Maximal && depth < MAX_DEPTH { 2 } else { 1 };
                let items = schema.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..count).map(|_| self.generate(&items, fill, depth + 1, def, None)).collect())
            }
            "string" => Value::String(self.string_for(schema, def, key)),
            "integer" => {
                let low = schema.get("minimum").and_then(Value::as_i64).unwrap_or(0);
                json!(low.max(0) + if fill == Fill::Maximal { 3 } else { 1 })
            }
            "number" => {
                let high = schema.get("maximum").and_then(Value::as_f64).unwrap_or(10.0);
                json!(high.min(10.0) / 4.0)
            }
            "boolean" => json!(fill == Fill::Maximal),
            "null" => Value::Null,
            other => panic!("generator: unknown type {other}"),
        }
    }

    fn generate_object(&mut self, schema: &Value, fill: Fill, depth: usize, def: &str) -> Value {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        match schema.get("properties").and_then(Value::as_object) {
            Some(properties) => {
                for (name, property) in properties.clone() {
                    let wanted =
                        required.contains(&name.as_str()) || (fill == Fill::Maximal && depth < MAX_DEPTH);
                    if wanted {
                        let value = self.generate(&property, fill, depth + 1, def, Some(&name));
                        out.insert(name, value);
                    }
                }
            }
            // A map: one entry of the declared value shape, when filling everything.
            None => {
                if let Some(values @ Value::Object(_)) = schema.get("additionalProperties")
                    && fill == Fill::Maximal
                    && depth < MAX_DEPTH
                {
                    let values = values.clone();
                    out.insert(
                        "com.example/entry".into(),
                        self.generate(&values, fill, depth + 1, def, None),
                    );
                }
            }
        }
        Value::Object(out)
    }

    fn string_for(&self, schema: &Value, def: &str, key: Option<&str>) -> String {
        match (key, schema.get("format").and_then(Value::as_str)) {
            (Some("io.modelcontextprotocol/protocolVersion" | "protocolVersion"), _) => {
                self.protocol_version.into()
            }
            (Some("resultType"), _) if def == "InputRequiredResult" => "input_required".into(),
            (Some("resultType"), _) => "complete".into(),
            (Some("mimeType"), _) => "text/plain".into(),
            (Some("lastModified" | "createdAt" | "lastUpdatedAt"), _) | (_, Some("date-time")) => {
                "2025-01-12T15:00:58Z".into()
            }
            (_, Some("uri")) => "https://example.com/item".into(),
            (_, Some("byte")) => "aGVsbG8=".into(),
            (_, Some("email")) => "someone@example.com".into(),
            (_, Some("date")) => "2025-01-12".into(),
            _ => "text".into(),
        }
    }
}

/// The example files of the 2026-07-28 revision: (folder = definition name, file, JSON).
pub fn examples() -> Vec<(String, PathBuf, Value)> {
    let root = spec_dir().join("2026-07-28/examples");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("examples folder") {
        let dir = dir.unwrap().path();
        let definition = dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                let value: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                out.push((definition.clone(), file, value));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}
