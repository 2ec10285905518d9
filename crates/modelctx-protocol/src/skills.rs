//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): its identifier and the
//! markers of its methods. Its params and results are plain JSON objects here; the server and
//! client of `modelctx` give them their shape.

use crate::macros::method_names;

/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of skills' files.
pub const SCHEME: &str = "skill://";

method_names! {
    /// `skills/list`: the skills a server offers, a page at a time.
    ListSkills = "skills/list";
    /// `skills/get`: one skill's entry, by the URI of its `SKILL.md`.
    GetSkill = "skills/get";
    /// `resources/directory/read`: the files under a directory of a skill.
    ReadDirectory = "resources/directory/read";
}
