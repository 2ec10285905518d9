//! `x-mcp-header` annotations in a tool's `inputSchema`: finding them and enforcing the
//! rules that make a tool definition valid (HTTP-26).

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use super::{MCP_PARAM_PREFIX, X_MCP_HEADER};
use crate::JsonObject;

/// One argument mirrored into a header: the `x-mcp-header` name and where the argument
/// sits in `arguments`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct McpParamHeader {
    /// The annotation's value, the `{Name}` of `Mcp-Param-{Name}`.
    pub name: String,
    /// The chain of `properties` keys from the schema root to the argument.
    pub path: Vec<String>,
}

impl McpParamHeader {
    /// The full header name, `Mcp-Param-{Name}`.
    pub fn header_name(&self) -> String {
        format!("{MCP_PARAM_PREFIX}{}", self.name)
    }

    /// The argument's value in `arguments`, if every step of the path is present.
    pub fn argument<'a>(&self, arguments: &'a JsonObject) -> Option<&'a Value> {
        let (first, rest) = self.path.split_first()?;
        rest.iter().try_fold(arguments.get(first)?, |value, key| value.get(key))
    }

    /// The path for messages: `arguments.a.b`.
    pub fn argument_path(&self) -> String {
        std::iter::once("arguments").chain(self.path.iter().map(String::as_str)).collect::<Vec<_>>().join(".")
    }
}

/// Why an `inputSchema`'s `x-mcp-header` annotations make the tool invalid. Each variant
/// names the annotated schema by JSON Pointer from the `inputSchema` root.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XMcpHeaderError {
    /// The annotation is not a string.
    NotAString {
        /// Where the annotation is.
        pointer: String,
    },
    /// The annotation is not on a property reached from the root through `properties`
    /// keys alone (it sits under `items`, `oneOf`, `$defs`, … or on the root itself).
    NotStaticallyReachable {
        /// Where the annotation is.
        pointer: String,
        /// The header name.
        name: String,
    },
    /// The annotation is the empty string.
    Empty {
        /// Where the annotation is.
        pointer: String,
    },
    /// The header name holds a control character (CR and LF included).
    ControlCharacter {
        /// Where the annotation is.
        pointer: String,
        /// The header name.
        name: String,
    },
    /// The header name holds a character that is not an RFC 9110 `tchar`.
    InvalidToken {
        /// Where the annotation is.
        pointer: String,
        /// The header name.
        name: String,
        /// The first offending character.
        character: char,
    },
    /// The property's `type` is not `integer`, `string` or `boolean` (`number`, `object`,
    /// `array`, or no `type` at all). A list of types qualifies when every entry is one of
    /// those or `null`.
    UnsupportedType {
        /// Where the annotation is.
        pointer: String,
        /// The header name.
        name: String,
        /// The property's `type` as JSON, or `None` when it has none.
        found: Option<String>,
    },
    /// Two annotations name the same header, ignoring case.
    Duplicate {
        /// The second header name.
        name: String,
        /// Where the first annotation is.
        first: String,
        /// Where the second annotation is.
        second: String,
    },
}

impl fmt::Display for XMcpHeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAString { pointer } => {
                write!(f, "x-mcp-header at {pointer:?} is not a string")
            }
            Self::NotStaticallyReachable { pointer, name } => write!(
                f,
                "x-mcp-header {name:?} at {pointer:?} is not on a property reached through `properties` alone"
            ),
            Self::Empty { pointer } => write!(f, "x-mcp-header at {pointer:?} is empty"),
            Self::ControlCharacter { pointer, name } => {
                write!(f, "x-mcp-header {name:?} at {pointer:?} holds a control character")
            }
            Self::InvalidToken { pointer, name, character } => write!(
                f,
                "x-mcp-header {name:?} at {pointer:?} holds {character:?}, which is not allowed in a header name"
            ),
            Self::UnsupportedType { pointer, name, found } => write!(
                f,
                "x-mcp-header {name:?} at {pointer:?} is on a property of type {}; only integer, string and boolean are allowed",
                found.as_deref().unwrap_or("(none)")
            ),
            Self::Duplicate { name, first, second } => write!(
                f,
                "x-mcp-header {name:?} at {second:?} repeats the one at {first:?} (names ignore case)"
            ),
        }
    }
}

impl std::error::Error for XMcpHeaderError {}

/// Keywords whose value maps names to subschemas (walked by entry, so that a definition
/// named like a keyword is still seen as a schema).
const SCHEMA_MAP_KEYWORDS: [&str; 5] =
    ["$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties"];
/// Keywords whose value is data, never a schema.
const DATA_KEYWORDS: [&str; 4] = ["const", "default", "enum", "examples"];

/// Finds every `x-mcp-header` annotation in a tool's `inputSchema` and checks it (HTTP-26):
/// a non-empty RFC 9110 token without control characters, unique ignoring case, on a
/// property of type `integer`, `string` or `boolean`, reached from the root through a chain
/// of `properties` keys only. An annotation anywhere else (under `items`, `oneOf`, `anyOf`,
/// `allOf`, `not`, `if`/`then`/`else`, `$defs`, in a `$ref` target, …) makes the tool
/// invalid; a client on HTTP drops such a tool from `tools/list` (HTTP-27).
///
/// Returns the annotated arguments ordered by path.
pub fn validate_x_mcp_headers(input_schema: &JsonObject) -> Result<Vec<McpParamHeader>, XMcpHeaderError> {
    let mut found = Vec::new();
    visit(input_schema, "", Some(&[]), &mut found)?;
    found.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (header, pointer) in &found {
        if let Some(first) = seen.insert(header.name.to_ascii_lowercase(), pointer) {
            return Err(XMcpHeaderError::Duplicate {
                name: header.name.clone(),
                first: first.to_owned(),
                second: pointer.clone(),
            });
        }
    }
    Ok(found.into_iter().map(|(header, _)| header).collect())
}

/// Escapes one JSON Pointer reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Walks one schema object. `path` is the `properties` chain that reached it, or `None`
/// once the walk has passed through any other keyword.
fn visit(
    schema: &JsonObject,
    pointer: &str,
    path: Option<&[String]>,
    found: &mut Vec<(McpParamHeader, String)>,
) -> Result<(), XMcpHeaderError> {
    if let Some(annotation) = schema.get(X_MCP_HEADER) {
        found.push((check(schema, annotation, pointer, path)?, pointer.to_owned()));
    }
    for (keyword, value) in schema {
        let here = format!("{pointer}/{}", escape(keyword));
        match (keyword.as_str(), value) {
            (X_MCP_HEADER, _) => {}
            (k, _) if DATA_KEYWORDS.contains(&k) => {}
            ("properties", Value::Object(properties)) => {
                for (name, property) in properties {
                    let child = path.map(|p| [p, std::slice::from_ref(name)].concat());
                    let at = format!("{here}/{}", escape(name));
                    if let Value::Object(property) = property {
                        visit(property, &at, child.as_deref(), found)?;
                    }
                }
            }
            (k, Value::Object(map)) if SCHEMA_MAP_KEYWORDS.contains(&k) => {
                for (name, sub) in map {
                    visit_unreachable(sub, &format!("{here}/{}", escape(name)), found)?;
                }
            }
            // Every other keyword (`items`, `prefixItems`, `oneOf`, `anyOf`, `allOf`, `not`,
            // `if`/`then`/`else`, `additionalProperties`, vendor extensions, …): what it
            // holds is not reachable through `properties` alone.
            (_, sub) => visit_unreachable(sub, &here, found)?,
        }
    }
    Ok(())
}

/// Walks a value below a keyword other than `properties`: objects as schemas, arrays
/// element by element; every annotation found there is invalid.
fn visit_unreachable(
    value: &Value,
    pointer: &str,
    found: &mut Vec<(McpParamHeader, String)>,
) -> Result<(), XMcpHeaderError> {
    match value {
        Value::Object(schema) => visit(schema, pointer, None, found),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(index, sub)| visit_unreachable(sub, &format!("{pointer}/{index}"), found)),
        _ => Ok(()),
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Checks one annotation on the schema at `pointer`.
fn check(
    schema: &JsonObject,
    annotation: &Value,
    pointer: &str,
    path: Option<&[String]>,
) -> Result<McpParamHeader, XMcpHeaderError> {
    let pointer = pointer.to_owned();
    let Some(name) = annotation.as_str() else {
        return Err(XMcpHeaderError::NotAString { pointer });
    };
    let name = name.to_owned();
    let path = match path {
        Some(path) if !path.is_empty() => path.to_vec(),
        _ => return Err(XMcpHeaderError::NotStaticallyReachable { pointer, name }),
    };
    if name.is_empty() {
        return Err(XMcpHeaderError::Empty { pointer });
    }
    if name.chars().any(char::is_control) {
        return Err(XMcpHeaderError::ControlCharacter { pointer, name });
    }
    if let Some(character) = name.chars().find(|&c| !is_tchar(c)) {
        return Err(XMcpHeaderError::InvalidToken { pointer, name, character });
    }
    let primitive = |t: &Value| matches!(t.as_str(), Some("integer" | "string" | "boolean"));
    let allowed = match schema.get("type") {
        Some(Value::Array(types)) => {
            types.iter().any(primitive) && types.iter().all(|t| primitive(t) || t.as_str() == Some("null"))
        }
        Some(single) => primitive(single),
        None => false,
    };
    if !allowed {
        let found = schema.get("type").map(Value::to_string);
        return Err(XMcpHeaderError::UnsupportedType { pointer, name, found });
    }
    Ok(McpParamHeader { name, path })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn validate(schema: Value) -> Result<Vec<McpParamHeader>, XMcpHeaderError> {
        validate_x_mcp_headers(schema.as_object().expect("an object"))
    }

    fn with_region(region: Value) -> Value {
        json!({ "type": "object", "properties": { "region": region, "query": { "type": "string" } } })
    }

    #[test]
    fn http_25_spec_example_yields_one_header() {
        let headers = validate(with_region(
            json!({ "type": "string", "description": "The region", "x-mcp-header": "Region" }),
        ))
        .unwrap();
        assert_eq!(headers, [McpParamHeader { name: "Region".into(), path: vec!["region".into()] }]);
        assert_eq!(headers[0].header_name(), "Mcp-Param-Region");
        assert_eq!(headers[0].argument_path(), "arguments.region");
    }

    #[test]
    fn http_26_nested_properties_are_reachable() {
        let schema = json!({ "type": "object", "properties": {
            "target": { "type": "object", "properties": {
                "tenant": { "type": "integer", "x-mcp-header": "Tenant" },
                "dry_run": { "type": ["boolean", "null"], "x-mcp-header": "Dry-Run" }
            } },
            "a/b": { "type": "string", "x-mcp-header": "Slash" }
        } });
        let headers = validate(schema).unwrap();
        let paths: Vec<Vec<&str>> =
            headers.iter().map(|h| h.path.iter().map(String::as_str).collect()).collect();
        assert_eq!(paths, [vec!["a/b"], vec!["target", "dry_run"], vec!["target", "tenant"]]);
        let arguments = json!({ "target": { "tenant": 7 } });
        let tenant = headers.iter().find(|h| h.name == "Tenant").unwrap();
        assert_eq!(tenant.argument(arguments.as_object().unwrap()), Some(&json!(7)));
        let dry_run = headers.iter().find(|h| h.name == "Dry-Run").unwrap();
        assert_eq!(dry_run.argument(arguments.as_object().unwrap()), None);
    }

    #[test]
    fn http_26_name_must_be_a_non_empty_token() {
        assert!(matches!(
            validate(with_region(json!({ "type": "string", "x-mcp-header": "" }))),
            Err(XMcpHeaderError::Empty { .. })
        ));
        assert!(matches!(
            validate(with_region(json!({ "type": "string", "x-mcp-header": "Re\r\ngion" }))),
            Err(XMcpHeaderError::ControlCharacter { .. })
        ));
        for bad in ["Re gion", "Re:gion", "Région", "(x)", "a/b"] {
            let error = validate(with_region(json!({ "type": "string", "x-mcp-header": bad }))).unwrap_err();
            assert!(matches!(error, XMcpHeaderError::InvalidToken { .. }), "{bad:?}: {error}");
        }
        assert!(matches!(
            validate(with_region(json!({ "type": "string", "x-mcp-header": 5 }))),
            Err(XMcpHeaderError::NotAString { .. })
        ));
        validate(with_region(json!({ "type": "string", "x-mcp-header": "A1!#$%&'*+-.^_`|~" }))).unwrap();
    }

    #[test]
    fn http_26_names_are_case_insensitively_unique() {
        let schema = json!({ "type": "object", "properties": {
            "a": { "type": "string", "x-mcp-header": "Region" },
            "b": { "type": "string", "x-mcp-header": "REGION" }
        } });
        let error = validate(schema).unwrap_err();
        assert_eq!(
            error,
            XMcpHeaderError::Duplicate {
                name: "REGION".into(),
                first: "/properties/a".into(),
                second: "/properties/b".into()
            }
        );
    }

    #[test]
    fn http_26_only_integer_string_boolean() {
        for ok in [json!("integer"), json!("string"), json!("boolean"), json!(["string", "null"])] {
            validate(with_region(json!({ "type": ok, "x-mcp-header": "Region" }))).unwrap();
        }
        for bad in
            [json!("number"), json!("object"), json!("array"), json!(["string", "number"]), json!(["null"])]
        {
            let error = validate(with_region(json!({ "type": bad, "x-mcp-header": "Region" }))).unwrap_err();
            assert!(matches!(error, XMcpHeaderError::UnsupportedType { .. }), "{bad}: {error}");
        }
        let error = validate(with_region(json!({ "x-mcp-header": "Region" }))).unwrap_err();
        assert!(matches!(error, XMcpHeaderError::UnsupportedType { found: None, .. }));
        assert!(error.to_string().contains("(none)"));
    }

    #[test]
    fn http_26_annotations_outside_the_properties_chain_are_invalid() {
        let annotated = json!({ "type": "string", "x-mcp-header": "Hidden" });
        let cases = [
            ("items", json!({ "type": "array", "items": annotated })),
            ("prefixItems", json!({ "type": "array", "prefixItems": [annotated] })),
            ("oneOf", json!({ "oneOf": [annotated] })),
            ("anyOf", json!({ "anyOf": [annotated] })),
            ("allOf", json!({ "allOf": [annotated] })),
            ("not", json!({ "not": annotated })),
            ("if", json!({ "if": annotated })),
            ("then", json!({ "then": annotated })),
            ("else", json!({ "else": annotated })),
            ("additionalProperties", json!({ "additionalProperties": annotated })),
            ("patternProperties", json!({ "patternProperties": { "^x": annotated } })),
            ("$defs", json!({ "$defs": { "R": annotated } })),
            ("definitions", json!({ "definitions": { "R": annotated } })),
            ("$defs entry named const", json!({ "$defs": { "const": annotated } })),
            ("vendor keyword", json!({ "x-vendor": { "deep": [annotated] } })),
        ];
        for (label, region) in cases {
            let error = validate(with_region(region)).unwrap_err();
            assert!(matches!(error, XMcpHeaderError::NotStaticallyReachable { .. }), "{label}: {error}");
        }
        // A property under `items` is no better than `items` itself.
        let deep =
            json!({ "type": "array", "items": { "type": "object", "properties": { "r": annotated } } });
        let error = validate(with_region(deep)).unwrap_err();
        assert_eq!(
            error,
            XMcpHeaderError::NotStaticallyReachable {
                pointer: "/properties/region/items/properties/r".into(),
                name: "Hidden".into()
            }
        );
        // The root is not a property.
        let root = json!({ "type": "object", "x-mcp-header": "Root", "properties": {} });
        assert!(matches!(validate(root), Err(XMcpHeaderError::NotStaticallyReachable { .. })));
    }

    #[test]
    fn http_26_ref_does_not_carry_an_annotation() {
        let schema = json!({
            "type": "object",
            "properties": { "region": { "$ref": "#/$defs/Region" } },
            "$defs": { "Region": { "type": "string", "x-mcp-header": "Region" } }
        });
        let error = validate(schema).unwrap_err();
        assert_eq!(
            error,
            XMcpHeaderError::NotStaticallyReachable {
                pointer: "/$defs/Region".into(),
                name: "Region".into()
            }
        );
    }

    #[test]
    fn http_26_data_and_property_names_are_not_annotations() {
        let schema = json!({ "type": "object", "properties": {
            "x-mcp-header": { "type": "string" },
            "mode": { "type": "string", "const": { "x-mcp-header": "No" },
                      "default": { "x-mcp-header": "No" }, "examples": [{ "x-mcp-header": "No" }] }
        } });
        assert_eq!(validate(schema).unwrap(), []);
    }
}
