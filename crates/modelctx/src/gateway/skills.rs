//! Skills relayed (feature `skills`). As the gateway starts, each backend that declares the
//! Skills extension has its skills listed and each read whole, every file verified against its
//! entry (size and digest) as the extension asks of a host, then served as the gateway's own:
//! under the backend's prefix (`skill://PREFIX/…`; a backend whose prefix is empty keeps its
//! paths). Their files are the gateway's skills' resources (`resources/read`,
//! `resources/directory/read`), not the backend's resources mirrored a second time. A
//! backend's later changes to its skills, and the skills of a backend that was not up when the
//! gateway started, are seen only when it starts again.

use std::collections::BTreeSet;

use crate::client::Client;
use crate::client::skills::SkillEntry;
use crate::host::{Host, HostConfig};
use crate::server::skills::{EXTENSION_ID, SCHEME, Skill};

/// Skills relayed from one backend, at most (each holds at most
/// [`crate::server::skills::MAX_BYTES`]).
pub const MAX_SKILLS_PER_BACKEND: usize = 64;

/// The skills relayed, and the backends they came from.
#[derive(Default)]
pub(super) struct Relayed {
    pub(super) skills: Vec<Skill>,
    pub(super) servers: BTreeSet<String>,
}

/// Reads the skills of every backend of `config` that `host` reached and that declares the
/// extension; a backend whose skills cannot be read whole and verified relays none (said in
/// the log).
pub(super) async fn relay(host: &Host, config: &HostConfig) -> Relayed {
    let mut relayed = Relayed::default();
    for (name, entry) in &config.servers {
        let Some(client) = host.client(name) else { continue };
        let extensions = client.server().capabilities.extensions.as_ref();
        if !extensions.is_some_and(|extensions| extensions.contains_key(EXTENSION_ID)) {
            continue;
        }
        let prefix = entry.prefix.as_deref().unwrap_or(name);
        match backend_skills(&client, prefix).await {
            Ok(skills) => {
                relayed.skills.extend(skills);
                relayed.servers.insert(name.clone());
            }
            Err(why) => tracing::warn!(server = %name, %why, "the backend's skills are not relayed"),
        }
    }
    relayed
}

/// Every skill of `client`, read and verified, under `prefix`.
async fn backend_skills(client: &Client, prefix: &str) -> Result<Vec<Skill>, String> {
    let entries = client.list_skills().await.map_err(|e| e.to_string())?;
    if entries.len() > MAX_SKILLS_PER_BACKEND {
        return Err(format!(
            "it lists {} skills; at most {MAX_SKILLS_PER_BACKEND} are relayed",
            entries.len()
        ));
    }
    let mut skills = Vec::with_capacity(entries.len());
    for entry in &entries {
        skills.push(read_skill(client, entry, prefix).await.map_err(|why| format!("{}: {why}", entry.uri))?);
    }
    Ok(skills)
}

/// The skill `entry` lists, every file read and verified, its path put under `prefix`.
async fn read_skill(client: &Client, entry: &SkillEntry, prefix: &str) -> Result<Skill, String> {
    let loaded = client.load_skill(entry).await.map_err(|e| e.to_string())?;
    let root = entry
        .uri
        .strip_suffix("SKILL.md")
        .filter(|root| root.starts_with(SCHEME))
        .ok_or("its manifest is not a skill:// SKILL.md")?;
    let mut skill = Skill::new(loaded.manifest.clone()).map_err(|e| e.0)?;
    for file in entry.resources.iter().filter(|file| file.uri != entry.uri) {
        let path = file.uri.strip_prefix(root).ok_or_else(|| format!("{} is outside the skill", file.uri))?;
        let bytes = client.read_skill_file(&loaded, &file.uri).await.map_err(|e| e.to_string())?;
        skill = skill.file(path, bytes).map_err(|e| e.0)?;
    }
    // The backend's path, the skill's name last: what came before the name goes under prefix.
    let path = root[SCHEME.len()..].trim_end_matches('/');
    let parent = path.rsplit_once('/').map(|(parent, _)| parent);
    let under: Vec<&str> = [Some(prefix), parent].into_iter().flatten().filter(|p| !p.is_empty()).collect();
    if under.is_empty() { Ok(skill) } else { skill.under(&under.join("/")).map_err(|e| e.0) }
}
