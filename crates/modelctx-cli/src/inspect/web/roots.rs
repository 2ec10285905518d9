//! The roots the page offers its server (`roots/list`): the `--root` directories of the command
//! line, then those added and removed in the page, at most [`MAX_ROOTS`]. Each change is told to
//! a 2025-11-25 server (`notifications/roots/list_changed`); a 2026-07-28 server asks for the
//! roots with each request that needs them, so it sees the change at its next one.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use modelctx::protocol::types::Root;
use serde::Deserialize;
use serde_json::json;

use super::api::{Served, refused, with_client};
use crate::inspect::target::directory_root;

/// Roots offered at once, at most.
pub const MAX_ROOTS: usize = 64;

/// The roots offered, in the order they were added.
#[derive(Default)]
pub struct Roots {
    offered: Mutex<Vec<Root>>,
}

impl Roots {
    /// The roots offered now.
    pub fn list(&self) -> Vec<Root> {
        self.offered.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Offers `dirs` (the `--root` directories), each checked to be one.
    pub fn offer_directories(&self, dirs: &[std::path::PathBuf]) -> Result<(), String> {
        for dir in dirs {
            self.add(directory_root(dir).map_err(|why| format!("--root {why}"))?)?;
        }
        Ok(())
    }

    /// Adds `root`; why not when it is offered already or [`MAX_ROOTS`] are.
    fn add(&self, root: Root) -> Result<(), String> {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        if offered.iter().any(|known| known.uri == root.uri) {
            return Err(format!("{} is a root already", root.uri));
        }
        if offered.len() >= MAX_ROOTS {
            return Err(format!("{MAX_ROOTS} roots are offered, the most at once: remove one first"));
        }
        offered.push(root);
        Ok(())
    }

    /// Removes the root `uri`; `false` when it was not offered.
    fn remove(&self, uri: &str) -> bool {
        let mut offered = self.offered.lock().unwrap_or_else(PoisonError::into_inner);
        let before = offered.len();
        offered.retain(|root| root.uri != uri);
        offered.len() != before
    }
}

/// A root the page names: a directory of this machine (an absolute path), or any `file://` URI
/// (the server may run elsewhere), with the name a person gave it.
fn named_root(given: &str, name: Option<String>) -> Result<Root, String> {
    let given = given.trim();
    let mut root = if given.starts_with("file:") {
        let uri = url::Url::parse(given).map_err(|e| format!("{given}: not a URI ({e})"))?;
        Root { uri: uri.to_string(), name: None, meta: None }
    } else if Path::new(given).is_absolute() {
        directory_root(Path::new(given))?
    } else {
        return Err(format!("{given:?}: give an absolute directory path or a file:// URI"));
    };
    if let Some(name) = name.filter(|name| !name.trim().is_empty()) {
        root.name = Some(name);
    }
    Ok(root)
}

/// What `POST …/roots` and `POST …/roots/remove` take.
#[derive(Deserialize)]
pub struct RootForm {
    /// A directory's absolute path or a `file://` URI (to add), or a root's URI (to remove).
    uri: String,
    /// The root's name, when adding.
    #[serde(default)]
    name: Option<String>,
}

/// `GET …/roots`: the roots offered.
pub async fn list(Served(session): Served) -> Json<serde_json::Value> {
    Json(json!({"result": {"roots": session.roots.list()}}))
}

/// `POST …/roots`: offers one more root and tells the server; `400` for one that is not a
/// directory or a `file://` URI, `409` for one offered already or past [`MAX_ROOTS`].
pub async fn add(Served(session): Served, Json(form): Json<RootForm>) -> Response {
    let root = match named_root(&form.uri, form.name) {
        Ok(root) => root,
        Err(why) => return refused(StatusCode::BAD_REQUEST, why),
    };
    if let Err(why) = session.roots.add(root) {
        return refused(StatusCode::CONFLICT, why);
    }
    changed(&session).await
}

/// `POST …/roots/remove`: stops offering a root and tells the server; `404` when it was not
/// offered.
pub async fn remove(Served(session): Served, Json(form): Json<RootForm>) -> Response {
    if !session.roots.remove(&form.uri) {
        return refused(StatusCode::NOT_FOUND, format!("{} is not a root", form.uri));
    }
    changed(&session).await
}

/// Tells the server the roots changed (when its era has a notification for it): the roots now,
/// and whether it was told.
async fn changed(session: &Arc<super::session::Session>) -> Response {
    let roots = session.roots.list();
    with_client(session, |client| async move {
        match client.roots_changed().await {
            Ok(told) => Json(json!({"result": {"roots": roots, "told": told}})).into_response(),
            Err(error) => Json(json!({"error": error.to_string()})).into_response(),
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_is_a_directory_or_a_file_uri_and_offered_once() {
        let roots = Roots::default();
        let dir = std::env::temp_dir();
        let root = named_root(dir.to_str().unwrap(), Some("scratch".into())).unwrap();
        assert!(root.uri.starts_with("file:///") && root.uri.ends_with('/'), "{}", root.uri);
        assert_eq!(root.name.as_deref(), Some("scratch"));
        roots.add(root.clone()).unwrap();
        assert!(roots.add(root.clone()).unwrap_err().contains("a root already"));
        roots.add(named_root("file:///elsewhere/project", None).unwrap()).unwrap();
        assert_eq!(roots.list().len(), 2);
        for wrong in ["relative/dir", "https://example.com/", "/no/such/directory/here"] {
            assert!(named_root(wrong, None).is_err(), "{wrong}");
        }
        assert!(roots.remove(&root.uri) && !roots.remove(&root.uri));
        assert_eq!(roots.list().len(), 1);
    }
}
