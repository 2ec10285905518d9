//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), server side: a skill
//! is a directory of files whose root holds a `SKILL.md` that starts with YAML frontmatter
//! (`name`, `description`, anything else). A server registers skills with
//! [`ServerBuilder::skill`](super::ServerBuilder::skill); each file becomes a resource at
//! `skill://<skill-path>/<file>`, and the server declares the extension (with
//! `directoryRead`) and answers `skills/list`, `skills/get` and `resources/directory/read`.
//!
//! A skill's entry carries its frontmatter as the file has it, and the `sha256` digest and
//! size of every file, so that a host can check what it reads. Bounds: at most
//! [`MAX_FILES`] files and [`MAX_BYTES`] bytes per skill, as the extension sets them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::{Resource, TextOrBlob};
use modelctx_protocol::{JsonObject, Method};
use serde_json::{Value, json};

use super::{ResourceDef, ResourceRequest, blob_contents, text_contents};

/// The extension's identifier.
pub use modelctx_protocol::skills::EXTENSION_ID;

/// The URI scheme of skills.
pub use modelctx_protocol::skills::SCHEME;

/// Files a skill may hold, its `SKILL.md` included.
pub const MAX_FILES: usize = 512;

/// Bytes a skill's files may hold in all (16 MiB).
pub const MAX_BYTES: usize = 16 * 1024 * 1024;

/// The MIME type of a directory in `resources/directory/read`.
const DIRECTORY: &str = "inode/directory";

/// Why a skill was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillError(pub String);

impl std::fmt::Display for SkillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SkillError {}

/// One file of a skill.
#[derive(Clone, Debug)]
struct SkillFile {
    bytes: Arc<[u8]>,
    mime_type: &'static str,
}

/// A skill: its `SKILL.md`, its frontmatter, and its supporting files.
#[derive(Clone, Debug)]
pub struct Skill {
    /// The skill path: prefix segments, then the skill's name.
    path: String,
    frontmatter: JsonObject,
    /// By path relative to the skill root; `SKILL.md` among them.
    files: BTreeMap<String, SkillFile>,
}

const MANIFEST: &str = "SKILL.md";

/// The frontmatter of a `SKILL.md` (see `skill_file`).
fn frontmatter_of(text: &str) -> Result<JsonObject, SkillError> {
    crate::skill_file::frontmatter(text).map_err(SkillError)
}

/// The Agent Skills naming rule: 1 to 64 lowercase letters, digits and hyphens, with no
/// hyphen first, last or twice in a row.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Whether `segment` may be a path segment of a skill URI as it is (no encoding needed).
fn plain_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment != "."
        && segment != ".."
        && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// The MIME type of a file, from its extension.
fn mime_type_of(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase()).as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js" | "mjs") => "text/javascript",
        Some("html" | "htm") => "text/html",
        Some("csv") => "text/csv",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

impl Skill {
    /// A skill whose `SKILL.md` is `manifest`; its path is its name (`skill://NAME/SKILL.md`).
    /// Refused when the frontmatter is missing, has no `name` or `description`, or the name
    /// breaks the naming rule.
    pub fn new(manifest: impl Into<String>) -> Result<Self, SkillError> {
        let manifest = manifest.into();
        let frontmatter = frontmatter_of(&manifest)?;
        let name = frontmatter["name"].as_str().unwrap_or_default().to_owned();
        if !valid_name(&name) {
            return Err(SkillError(format!(
                "the skill name {name:?} must be 1 to 64 lowercase letters, digits and hyphens, with no \
                 hyphen first, last or twice in a row"
            )));
        }
        let files = BTreeMap::from([(
            MANIFEST.to_owned(),
            SkillFile { bytes: manifest.into_bytes().into(), mime_type: "text/markdown" },
        )]);
        Ok(Self { path: name, frontmatter, files })
    }

    /// Adds a supporting file at `path` (relative to the skill root, `/`-separated, each
    /// segment letters, digits, `-`, `.`, `_` or `~`).
    pub fn file(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> Result<Self, SkillError> {
        if path == MANIFEST || !path.split('/').all(plain_segment) {
            return Err(SkillError(format!(
                "{path:?} is not a supporting file path: relative, `/`-separated, plain segments, not SKILL.md"
            )));
        }
        let file = SkillFile { bytes: bytes.into().into(), mime_type: mime_type_of(path) };
        self.files.insert(path.to_owned(), file);
        self.check_bounds()?;
        Ok(self)
    }

    /// Puts the skill under `prefix` segments (`acme/docs` gives `skill://acme/docs/NAME/…`);
    /// the first segment is the URI's authority.
    pub fn under(mut self, prefix: &str) -> Result<Self, SkillError> {
        if !prefix.split('/').all(plain_segment) {
            return Err(SkillError(format!("{prefix:?} is not a skill path prefix of plain segments")));
        }
        self.path = format!("{prefix}/{}", self.name());
        Ok(self)
    }

    /// The skill in directory `dir`: its `SKILL.md` and every file beneath it (hidden files
    /// and symbolic links left out), within the bounds.
    pub fn from_dir(dir: &Path) -> Result<Self, SkillError> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|e| SkillError(format!("cannot read {}: {e}", path.display())))
        };
        let manifest = String::from_utf8(read(&dir.join(MANIFEST))?)
            .map_err(|_| SkillError(format!("{} is not UTF-8", dir.join(MANIFEST).display())))?;
        let mut skill = Self::new(manifest)?;
        let mut pending = vec![(dir.to_path_buf(), String::new())];
        while let Some((directory, relative)) = pending.pop() {
            let entries = std::fs::read_dir(&directory)
                .map_err(|e| SkillError(format!("cannot list {}: {e}", directory.display())))?;
            for entry in entries {
                let entry =
                    entry.map_err(|e| SkillError(format!("cannot list {}: {e}", directory.display())))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let kind = entry.file_type().map_err(|e| SkillError(e.to_string()))?;
                if name.starts_with('.') || kind.is_symlink() {
                    continue;
                }
                let path = if relative.is_empty() { name } else { format!("{relative}/{name}") };
                if kind.is_dir() {
                    pending.push((entry.path(), path));
                } else if path != MANIFEST {
                    skill = skill.file(&path, read(&entry.path())?)?;
                }
            }
        }
        Ok(skill)
    }

    fn check_bounds(&self) -> Result<(), SkillError> {
        let bytes: usize = self.files.values().map(|file| file.bytes.len()).sum();
        if self.files.len() > MAX_FILES || bytes > MAX_BYTES {
            return Err(SkillError(format!(
                "skill {} holds {} files and {bytes} bytes; a skill may hold {MAX_FILES} files and {MAX_BYTES} bytes",
                self.name(),
                self.files.len()
            )));
        }
        Ok(())
    }

    /// The skill's name (its frontmatter's, the last segment of its path).
    pub fn name(&self) -> &str {
        self.frontmatter["name"].as_str().unwrap_or_default()
    }

    /// The URI of its `SKILL.md`.
    pub fn uri(&self) -> String {
        self.file_uri(MANIFEST)
    }

    fn root(&self) -> String {
        format!("{SCHEME}{}", self.path)
    }

    fn file_uri(&self, path: &str) -> String {
        format!("{}/{path}", self.root())
    }

    /// The skill's entry in `skills/list` and `skills/get`: its URI, its frontmatter as the
    /// file has it, and every file's digest and size.
    fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|(path, file)| {
                let digest = crate::skill_file::digest(&file.bytes);
                json!({"uri": self.file_uri(path), "digest": digest, "size": file.bytes.len()})
            })
            .collect();
        json!({"uri": self.uri(), "frontmatter": self.frontmatter, "resources": resources})
    }

    /// The skill's files as resources: `SKILL.md` named and described as its frontmatter says.
    pub(crate) fn resources(&self) -> Vec<ResourceDef> {
        self.files
            .iter()
            .map(|(path, file)| {
                let uri = self.file_uri(path);
                let (bytes, mime_type) = (file.bytes.clone(), file.mime_type);
                let name = if path == MANIFEST { self.name().to_owned() } else { path.clone() };
                let mut def =
                    ResourceDef::new(uri, name, move |request: ResourceRequest| {
                        let bytes = bytes.clone();
                        async move {
                            Ok::<_, super::ResourceError>(vec![contents(request.uri, mime_type, &bytes)])
                        }
                    })
                    .mime_type(mime_type)
                    .size(file.bytes.len() as u64);
                if path == MANIFEST
                    && let Some(description) = self.frontmatter["description"].as_str()
                {
                    def = def.description(description);
                }
                def
            })
            .collect()
    }
}

/// A file's contents: text when it is UTF-8, else a blob.
fn contents(uri: String, mime_type: &str, bytes: &[u8]) -> TextOrBlob {
    match std::str::from_utf8(bytes) {
        Ok(text) => text_contents(uri, Some(mime_type), text),
        Err(_) => blob_contents(uri, Some(mime_type), bytes),
    }
}

/// The skills of a server, by `SKILL.md` URI.
#[derive(Default)]
pub(crate) struct Skills {
    skills: BTreeMap<String, Skill>,
    /// Every file URI any skill serves, for `resources/directory/read`.
    files: BTreeMap<String, (&'static str, u64)>,
}

/// Whether `method` is one of the extension's.
pub(crate) fn is_skill_method(method: &Method) -> bool {
    matches!(method, Method::ListSkills | Method::GetSkill | Method::ReadDirectory)
}

fn uri_param(params: &JsonObject, method: &Method) -> Result<String, ErrorObject> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorObject::invalid_params(format!("{method} needs params.uri, a string")))
}

impl Skills {
    /// The skills, refusing two at one URI.
    pub(crate) fn new(skills: Vec<Skill>) -> Result<Self, SkillError> {
        let mut all = Self::default();
        for skill in skills {
            for (path, file) in &skill.files {
                all.files.insert(skill.file_uri(path), (file.mime_type, file.bytes.len() as u64));
            }
            if let Some(twin) = all.skills.insert(skill.uri(), skill) {
                return Err(SkillError(format!("two skills at {}", twin.uri())));
            }
        }
        Ok(all)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The extension's settings: `directoryRead`, which this server serves.
    pub(crate) fn settings() -> JsonObject {
        json!({"directoryRead": true}).as_object().cloned().unwrap_or_default()
    }

    /// `skills/list`, `skills/get` and `resources/directory/read`: the result's own members
    /// (the caller adds the era's), `-32601` when the server has no skills.
    pub(crate) fn serve(
        &self,
        method: &Method,
        params: Option<JsonObject>,
        page_size: usize,
    ) -> Result<JsonObject, ErrorObject> {
        if self.is_empty() {
            return Err(ErrorObject::method_not_found(method.as_str()));
        }
        let params = params.unwrap_or_default();
        let result = match method {
            Method::ListSkills => {
                let entries: Vec<(String, Value)> =
                    self.skills.iter().map(|(uri, skill)| (uri.clone(), skill.entry())).collect();
                let cursor = params.get("cursor").and_then(Value::as_str);
                let (page, next) =
                    super::pagination::page(&entries, |(uri, _)| uri.as_str(), cursor, page_size)?;
                let skills: Vec<Value> = page.into_iter().map(|(_, entry)| entry).collect();
                let mut result = json!({"skills": skills});
                if let Some(next) = next {
                    result["nextCursor"] = json!(next);
                }
                result
            }
            Method::GetSkill => {
                let uri = uri_param(&params, method)?;
                let skill = self.skills.get(&uri).ok_or_else(|| {
                    ErrorObject::invalid_params(format!("no skill at {uri} (skills/list lists them)"))
                })?;
                json!({"skill": skill.entry()})
            }
            _ => json!({"resources": self.directory(&uri_param(&params, method)?)?}),
        };
        Ok(result.as_object().cloned().unwrap_or_default())
    }

    /// The direct children of the directory `uri`: the files in it and its subdirectories.
    fn directory(&self, uri: &str) -> Result<Vec<Resource>, ErrorObject> {
        let prefix = format!("{}/", uri.trim_end_matches('/'));
        let mut children = Vec::new();
        let mut directories = BTreeSet::new();
        for (file, (mime_type, size)) in self.files.range(prefix.clone()..) {
            let Some(rest) = file.strip_prefix(&prefix) else { break };
            match rest.split_once('/') {
                Some((directory, _)) => {
                    directories.insert(directory.to_owned());
                }
                None => children.push(Resource {
                    uri: file.clone(),
                    name: rest.to_owned(),
                    mime_type: Some((*mime_type).to_owned()),
                    size: Some(*size),
                    ..Resource::default()
                }),
            }
        }
        if children.is_empty() && directories.is_empty() {
            return Err(ErrorObject::invalid_params(format!(
                "{uri} is not a directory of this server's skills"
            )));
        }
        children.extend(directories.into_iter().map(|directory| Resource {
            uri: format!("{prefix}{directory}"),
            name: directory,
            mime_type: Some(DIRECTORY.to_owned()),
            ..Resource::default()
        }));
        Ok(children)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST_TEXT: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n---\n\nBody.\n";

    fn skills() -> Skills {
        let skill = Skill::new(MANIFEST_TEXT).unwrap().file("references/FORMS.md", "Forms.\n").unwrap();
        Skills::new(vec![skill]).unwrap()
    }

    /// A skill read from its directory holds its `SKILL.md` and every file beneath it, hidden
    /// files and symbolic links left out; a directory without a `SKILL.md` is refused naming it.
    #[test]
    fn a_skill_is_read_from_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST), MANIFEST_TEXT).unwrap();
        std::fs::create_dir(dir.path().join("references")).unwrap();
        std::fs::write(dir.path().join("references/FORMS.md"), "Forms.\n").unwrap();
        std::fs::write(dir.path().join(".hidden"), "no").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join(MANIFEST), dir.path().join("link.md")).unwrap();
        let skill = Skill::from_dir(dir.path()).unwrap();
        assert_eq!(skill.name(), "pdf-processing");
        let files: Vec<&str> = skill.files.keys().map(String::as_str).collect();
        assert_eq!(files, ["SKILL.md", "references/FORMS.md"]);

        let empty = tempfile::tempdir().unwrap();
        let refused = Skill::from_dir(empty.path()).unwrap_err();
        assert!(refused.0.contains("SKILL.md"), "{refused}");
    }

    #[test]
    fn an_entry_carries_the_frontmatter_as_the_file_has_it_and_each_files_digest() {
        let entry = Skill::new(MANIFEST_TEXT).unwrap().entry();
        assert_eq!(entry["uri"], "skill://pdf-processing/SKILL.md");
        assert_eq!(entry["frontmatter"]["metadata"]["version"], 2, "types as YAML has them");
        let manifest = &entry["resources"][0];
        assert_eq!(manifest["uri"], entry["uri"]);
        assert_eq!(manifest["size"], MANIFEST_TEXT.len());
        let digest = manifest["digest"].as_str().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 71);
    }

    #[test]
    fn bad_skills_are_refused_with_the_reason() {
        for (manifest, why) in [
            ("no frontmatter", "must start"),
            ("---\nname: x\n", "closing"),
            ("---\nname: x\n---\n", "description"),
            ("---\nname: Bad--Name\ndescription: d\n---\n", "lowercase"),
        ] {
            let error = Skill::new(manifest).unwrap_err();
            assert!(error.0.contains(why), "{manifest:?}: {error}");
        }
        let skill = Skill::new(MANIFEST_TEXT).unwrap();
        assert!(skill.clone().file("../escape", "x").is_err());
        assert!(skill.clone().file("SKILL.md", "x").is_err());
        assert!(skill.file("big.bin", vec![0u8; MAX_BYTES]).is_err(), "past the byte bound");
    }

    #[test]
    fn directories_list_their_direct_children_and_a_file_is_no_directory() {
        let skills = skills();
        let root = skills.directory("skill://pdf-processing").unwrap();
        let names: Vec<(&str, Option<&str>)> =
            root.iter().map(|r| (r.name.as_str(), r.mime_type.as_deref())).collect();
        assert_eq!(names, [("SKILL.md", Some("text/markdown")), ("references", Some(DIRECTORY))]);
        assert_eq!(skills.directory("skill://pdf-processing/references").unwrap()[0].name, "FORMS.md");
        assert_eq!(skills.directory("skill://pdf-processing/SKILL.md").unwrap_err().code.0, -32602);
        assert_eq!(
            skills
                .serve(&Method::GetSkill, json!({"uri": "skill://nope/SKILL.md"}).as_object().cloned(), 10)
                .unwrap_err()
                .code
                .0,
            -32602
        );
    }
}
