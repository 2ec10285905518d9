//! The Skills extension (SEP-2640) on the client: list a server's skills, then load one —
//! its `SKILL.md` read and verified against its entry — and only then read its other files,
//! each verified too.
//!
//! What the client guarantees:
//! - **Lazy retrieval.** Listing reads no file; [`Client::load_skill`] reads the `SKILL.md`
//!   alone; a skill's other files are read one by one with [`Client::read_skill_file`], only
//!   once the skill loaded.
//! - **Verification on read.** Every file read is checked against its entry: its byte length
//!   against `size` (first, so a longer file is refused even before its digest), its bytes
//!   against `digest` (`sha256:`), and a `SKILL.md`'s YAML frontmatter against the entry's
//!   `frontmatter`, field by field. Any difference is an error, and the content is not handed
//!   back: unverified content is never used.

use base64::Engine as _;
use modelctx_protocol::JsonObject;
use modelctx_protocol::Method;
use modelctx_protocol::types::TextOrBlob;
use serde::{Deserialize, Serialize};

use super::{Client, ClientError};
use crate::skill_file;

/// A skill as `skills/list` gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// Its `SKILL.md`'s URI (`skill://…/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md`'s frontmatter, as the server read it.
    pub frontmatter: JsonObject,
    /// Its files, the `SKILL.md` among them.
    #[serde(default)]
    pub resources: Vec<SkillFile>,
}

/// A file of a skill, as its entry lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// A skill whose `SKILL.md` was read and verified.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSkill {
    /// Its entry.
    pub entry: SkillEntry,
    /// Its `SKILL.md`, verified.
    pub manifest: String,
}

impl Client {
    /// Every skill of the server (`skills/list`, following `nextCursor`). Reads no file.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        self.list_all(&Method::ListSkills, "skills").await
    }

    /// Loads `entry`: reads its `SKILL.md` and verifies its size, digest and frontmatter
    /// against the entry. On any difference the skill is not loaded, and no other file of
    /// it is read.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
        let bytes = self.read_verified(entry, &entry.uri).await?;
        let manifest = String::from_utf8(bytes).map_err(|_| refused(&entry.uri, "it is not UTF-8".into()))?;
        let read = skill_file::frontmatter(&manifest).map_err(|why| refused(&entry.uri, why))?;
        if let Some(field) = differing_field(&read, &entry.frontmatter) {
            return Err(refused(
                &entry.uri,
                format!("its frontmatter's {field:?} differs from the one skills/list gave"),
            ));
        }
        Ok(LoadedSkill { entry: entry.clone(), manifest })
    }

    /// Reads file `uri` of a loaded skill, verified against its entry.
    pub async fn read_skill_file(&self, skill: &LoadedSkill, uri: &str) -> Result<Vec<u8>, ClientError> {
        self.read_verified(&skill.entry, uri).await
    }

    /// Reads `uri`, which `entry` must list, and checks its size and digest.
    async fn read_verified(&self, entry: &SkillEntry, uri: &str) -> Result<Vec<u8>, ClientError> {
        let Some(listed) = entry.resources.iter().find(|file| file.uri == uri) else {
            return Err(refused(uri, format!("skill {} lists no such file", entry.uri)));
        };
        let contents = self.read_resource(uri).await?;
        let bytes = match contents.into_iter().next() {
            Some(TextOrBlob::Text(text)) => text.text.into_bytes(),
            Some(TextOrBlob::Blob(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob.blob)
                .map_err(|e| refused(uri, format!("its base64 does not decode: {e}")))?,
            None => return Err(refused(uri, "the server sent no contents for it".into())),
        };
        if bytes.len() as u64 != listed.size {
            return Err(refused(
                uri,
                format!("it is {} bytes long, its entry says {}", bytes.len(), listed.size),
            ));
        }
        let digest = skill_file::digest(&bytes);
        if digest != listed.digest {
            return Err(refused(uri, format!("its digest is {digest}, its entry says {}", listed.digest)));
        }
        Ok(bytes)
    }
}

/// The first field, in either frontmatter, whose value the other does not share.
fn differing_field<'a>(read: &'a JsonObject, listed: &'a JsonObject) -> Option<&'a str> {
    read.iter()
        .find(|(key, value)| listed.get(*key) != Some(value))
        .or_else(|| listed.iter().find(|(key, _)| !read.contains_key(*key)))
        .map(|(key, _)| key.as_str())
}

/// A file that failed verification: an error naming it and why, its content unused.
fn refused(uri: &str, why: String) -> ClientError {
    ClientError::invalid_result(
        Method::ReadResource,
        format!("{uri} fails skill verification: {why}; it is not used"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatters_differ_by_any_field_either_way() {
        let listed = json!({"name": "a", "description": "d"}).as_object().cloned().unwrap();
        assert_eq!(differing_field(&listed, &listed), None);
        let other = json!({"name": "a", "description": "e"}).as_object().cloned().unwrap();
        assert_eq!(differing_field(&other, &listed), Some("description"));
        let fewer = json!({"name": "a"}).as_object().cloned().unwrap();
        assert_eq!(differing_field(&fewer, &listed), Some("description"));
        let more = json!({"name": "a", "description": "d", "x": 1}).as_object().cloned().unwrap();
        assert_eq!(differing_field(&more, &listed), Some("x"));
    }
}
