//! The Skills extension's file format, shared by the server that lists skills and the client
//! that loads them: a `SKILL.md`'s YAML frontmatter, and the digest an entry gives each file.

use modelctx_protocol::JsonObject;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The frontmatter of a `SKILL.md`: the YAML between its opening `---` line and the next, a
/// mapping with non-empty `name` and `description` strings, kept with its YAML types. The
/// error says what is wrong, after "SKILL.md".
pub(crate) fn frontmatter(text: &str) -> Result<JsonObject, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let refused = |why: &str| format!("SKILL.md {why}");
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(|| refused("must start with a `---` line opening its YAML frontmatter"))?;
    let end = rest
        .match_indices("\n---")
        .map(|(at, _)| at)
        .find(|at| {
            let after = &rest[at + 4..];
            let line_end = after.find('\n').unwrap_or(after.len());
            after[..line_end].trim_end().is_empty()
        })
        .ok_or_else(|| refused("has no `---` line closing its frontmatter"))?;
    let yaml = rest[..end].trim_end_matches('\r');
    let parsed: Value =
        yaml_serde::from_str(yaml).map_err(|e| refused(&format!("has frontmatter that is not YAML: {e}")))?;
    let Value::Object(frontmatter) = parsed else {
        return Err(refused("has frontmatter that is not a mapping"));
    };
    for field in ["name", "description"] {
        if frontmatter.get(field).and_then(Value::as_str).is_none_or(str::is_empty) {
            return Err(refused(&format!("frontmatter needs `{field}`, a non-empty string")));
        }
    }
    Ok(frontmatter)
}

/// A file's digest as a skill entry gives it: `sha256:` and the lowercase hex SHA-256.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
