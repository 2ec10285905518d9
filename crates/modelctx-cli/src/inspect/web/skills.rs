//! Skills (the `io.modelcontextprotocol/skills` extension) from the page: listed (no file
//! read), one loaded (its `SKILL.md` read and verified against its entry), and a file of a
//! loaded skill read, verified too — the client's guarantees, so the page never shows a file
//! that does not match its entry.

use axum::Json;
use axum::response::Response;
use modelctx::client::skills::SkillEntry;
use serde::Deserialize;
use serde_json::json;

use super::api::{Served, answer, with_client};

/// The largest file shown as text; a longer one (or one that is not UTF-8) is shown by size.
const MAX_SHOWN_BYTES: usize = 256 * 1024;

/// `GET …/skills`: the server's skills (`skills/list`, every page).
pub async fn list(Served(session): Served) -> Response {
    with_client(&session, |client| async move { answer(client.list_skills().await) }).await
}

/// What `POST …/skills/load` and `POST …/skills/file` take: the skill's entry as listed, and
/// the file to read.
#[derive(Deserialize)]
pub struct SkillForm {
    entry: SkillEntry,
    #[serde(default)]
    uri: Option<String>,
}

/// `POST …/skills/load`: the skill's `SKILL.md`, verified, and its files as its entry lists
/// them.
pub async fn load(Served(session): Served, Json(form): Json<SkillForm>) -> Response {
    with_client(&session, |client| async move {
        let loaded = client.load_skill(&form.entry).await;
        answer(loaded.map(|skill| json!({"manifest": skill.manifest, "files": skill.entry.resources})))
    })
    .await
}

/// `POST …/skills/file`: file `uri` of the skill (loaded first), verified: its text, or its
/// size when it is not UTF-8 text or longer than [`MAX_SHOWN_BYTES`].
pub async fn file(Served(session): Served, Json(form): Json<SkillForm>) -> Response {
    with_client(&session, |client| async move {
        let read = async {
            let skill = client.load_skill(&form.entry).await?;
            let uri = form.uri.unwrap_or_else(|| skill.entry.uri.clone());
            let bytes = client.read_skill_file(&skill, &uri).await?;
            let size = bytes.len();
            let text = (size <= MAX_SHOWN_BYTES).then(|| String::from_utf8(bytes).ok()).flatten();
            Ok(json!({"uri": uri, "size": size, "text": text}))
        };
        answer(read.await)
    })
    .await
}
