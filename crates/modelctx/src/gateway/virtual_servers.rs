//! Virtual servers: named endpoints of the gateway, each exposing a chosen set of its tools,
//! prompts and resources — from any of its backends — as a server of its own.
//!
//! ```json
//! {"mcpServers": {…},
//!  "virtualServers": {
//!    "readers": {"tools": ["files__read*", "search__search"], "prompts": ["*"], "resources": ["mcp-host://files/*"]},
//!    "ops": {"tools": ["git__*"]}
//!  }}
//! ```
//!
//! Each entry names its definitions by their gateway names (tools and prompts) or host URIs
//! (resources, and templates by their host URI templates), `*` matching any run of characters;
//! a kind it does not name, it does not expose. Over HTTP each is served at `/mcp/NAME` beside
//! the whole gateway at `/mcp`, with the same authorization, policies and rate limits; a tool a
//! virtual server does not expose is unknown there. The selections are read as the gateway
//! starts.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::host::config::matches;

/// What one virtual server exposes, by gateway names and host URIs (`*` patterns).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// Tools, by gateway name.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Prompts, by gateway name.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// Resources by host URI, and templates by host URI template.
    #[serde(default)]
    pub resources: Vec<String>,
}

impl Selection {
    pub(super) fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|pattern| matches(pattern, name))
    }

    pub(super) fn has_prompt(&self, name: &str) -> bool {
        self.prompts.iter().any(|pattern| matches(pattern, name))
    }

    pub(super) fn has_resource(&self, uri: &str) -> bool {
        self.resources.iter().any(|pattern| matches(pattern, uri))
    }
}

/// The virtual servers of a configuration's `virtualServers` (an object of selections by
/// name); an error names the entry and what is wrong. A name is letters, digits, `_` and `-`:
/// it is a path segment of the endpoint.
pub fn from_json(servers: &Value) -> Result<BTreeMap<String, Selection>, String> {
    let Value::Object(servers) = servers else {
        return Err(format!(
            "\"virtualServers\" must be an object of virtual servers by name, not {servers}"
        ));
    };
    servers
        .iter()
        .map(|(name, selection)| {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return Err(format!(
                    "virtualServers: {name:?} may hold only letters, digits, '_' and '-' (it is the endpoint's path)"
                ));
            }
            let selection = serde_path_to_error::deserialize::<_, Selection>(selection.clone())
                .map_err(|e| format!("virtualServers.{name}: {}: {}", e.path(), e.inner()))?;
            Ok((name.clone(), selection))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn selections_match_by_pattern_and_a_bad_entry_is_named() {
        let servers =
            from_json(&json!({"readers": {"tools": ["files__read*"], "resources": ["mcp-host://files/*"]}}))
                .unwrap();
        let readers = &servers["readers"];
        assert!(readers.has_tool("files__read_file") && !readers.has_tool("files__write_file"));
        assert!(readers.has_resource("mcp-host://files/notes.md") && !readers.has_prompt("files__hello"));
        let bad_name = from_json(&json!({"a/b": {}})).unwrap_err();
        assert!(bad_name.contains("\"a/b\" may hold only letters"), "{bad_name}");
        let bad_field = from_json(&json!({"x": {"tool": ["y"]}})).unwrap_err();
        assert!(bad_field.starts_with("virtualServers.x: "), "{bad_field}");
    }
}
