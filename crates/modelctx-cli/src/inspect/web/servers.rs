//! The servers the page has open, at most [`MAX_SERVERS`] at once, each a [`Session`] under the
//! number the page names it by (`/api/servers/{server}/…`): opened from the command line's
//! target or from the page's connect form (a command with its arguments and environment, a URL
//! with its headers, or a server of a host's config file; in an era or either), closed from the
//! page — a spawned server ends with its session.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::{Value, json};

use super::session::Session;
use crate::inspect::Target;
use crate::inspect::target::EraArg;

/// Servers open at once, at most: each may be a child process.
pub const MAX_SERVERS: usize = 8;

/// The open servers.
#[derive(Default)]
pub struct Servers {
    open: Mutex<Open>,
}

/// The sessions by number, and the last number given.
#[derive(Default)]
struct Open {
    sessions: BTreeMap<u64, Arc<Session>>,
    last: u64,
}

impl Servers {
    /// Opens `target` (connecting in the background) and answers its number; `None` when
    /// [`MAX_SERVERS`] are open already.
    pub fn open(&self, target: Target) -> Option<u64> {
        let session = Session::new(target.clone());
        let id = {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            if open.sessions.len() >= MAX_SERVERS {
                return None;
            }
            open.last += 1;
            let id = open.last;
            open.sessions.insert(id, Arc::clone(&session));
            id
        };
        tokio::spawn(async move {
            let handlers = session.handlers();
            let tap = session.tap();
            // The page's session offers the --root directories itself (and those the page
            // adds), and declares tasks, so that the page can start and follow them.
            let offered = session.roots.offer_directories(&target.roots);
            let target = Target { roots: Vec::new(), ..target.declaring_tasks() };
            let connected = session.connect(async {
                offered?;
                target.connect_tapped(handlers, Some(tap)).await.map_err(|e| e.to_string())
            });
            if let Ok(client) = connected.await {
                session.forward_notifications(client);
            }
        });
        Some(id)
    }

    /// The server numbered `id`, while open.
    pub fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).sessions.get(&id).cloned()
    }

    /// Closes the server numbered `id` (its connection ends with the last request using it);
    /// `false` when none is open under it.
    pub fn close(&self, id: u64) -> bool {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).sessions.remove(&id).is_some()
    }

    /// Each open server: its number, what it is and how its connection stands.
    pub fn list(&self) -> Vec<Value> {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.sessions
            .iter()
            .map(|(id, session)| {
                let state = match session.client() {
                    None => "connecting",
                    Some(Ok(_)) => "connected",
                    Some(Err(_)) => "failed",
                };
                json!({"id": id, "target": session.target(), "state": state})
            })
            .collect()
    }
}

/// The era the page asks for.
#[derive(Clone, Copy, Default, Deserialize)]
pub enum Era {
    /// 2026-07-28 when the server speaks it, else the initialize handshake.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// The initialize handshake only.
    #[serde(rename = "2025-11-25")]
    Legacy,
    /// 2026-07-28 only.
    #[serde(rename = "2026-07-28")]
    Modern,
}

/// What the page's connect form sends: one of a command, a URL or a config file's server.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConnectForm {
    /// The program to spawn and its arguments, one word each.
    #[serde(default)]
    command: Vec<String>,
    /// `KEY=VALUE` for the spawned program.
    #[serde(default)]
    env: Vec<String>,
    /// The spawned program's working directory.
    #[serde(default)]
    cwd: Option<PathBuf>,
    /// The program speaks HTTP over stdio (experimental).
    #[serde(default)]
    stdio_v2: bool,
    /// A Streamable HTTP endpoint.
    #[serde(default)]
    url: Option<String>,
    /// `Name: value` for every HTTP request.
    #[serde(default)]
    headers: Vec<String>,
    /// A host's config file, with `server`, the name of one of its servers.
    #[serde(default)]
    config: Option<PathBuf>,
    #[serde(default)]
    server: Option<String>,
    #[serde(default)]
    era: Era,
}

impl ConnectForm {
    /// The target the form names, or why it names none (or more than one).
    pub fn target(self) -> Result<Target, String> {
        let named = [!self.command.is_empty(), self.url.is_some(), self.config.is_some()];
        if named.iter().filter(|named| **named).count() != 1 {
            return Err("name one server: a command, a URL, or a config file and one of its servers".into());
        }
        if self.config.is_some() != self.server.is_some() {
            return Err("a config file and the name of one of its servers go together".into());
        }
        if self.command.first().is_some_and(|program| program.trim().is_empty()) {
            return Err("the command has no program".into());
        }
        let era = match self.era {
            Era::Auto => EraArg::Auto,
            Era::Legacy => EraArg::Legacy,
            Era::Modern => EraArg::Modern,
        };
        Ok(Target {
            url: self.url,
            headers: self.headers,
            bearer: None,
            config: self.config,
            server: self.server,
            env: self.env,
            cwd: self.cwd,
            roots: Vec::new(),
            era,
            tasks: false,
            h2c: false,
            stdio_v2: self.stdio_v2,
            timeout: 60.0,
            command: self.command,
            unattended: true,
        })
    }
}

/// The servers of the host config file at `path`: each one's name and how it is reached.
pub fn configured(path: &std::path::Path) -> Result<Vec<Value>, String> {
    use modelctx::host::config::{HostConfig, Transport};
    let config = HostConfig::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(config
        .servers
        .iter()
        .map(|(name, server)| match &server.transport {
            Transport::Stdio(stdio) => {
                let line =
                    std::iter::once(&stdio.command).chain(&stdio.args).cloned().collect::<Vec<_>>().join(" ");
                json!({"name": name, "reached": line})
            }
            Transport::Http(http) => json!({"name": name, "reached": http.url.as_str()}),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(value: Value) -> Result<Target, String> {
        serde_json::from_value::<ConnectForm>(value).map_err(|e| e.to_string())?.target()
    }

    #[test]
    fn a_form_names_one_server() {
        let target = form(
            json!({"command": ["modelctx", "serve", "everything"], "env": ["A=1"], "era": "2025-11-25"}),
        )
        .unwrap();
        assert_eq!(target.words(), ["--", "modelctx", "serve", "everything"]);
        assert!(matches!(target.era, EraArg::Legacy) && target.unattended);
        let target = form(json!({"url": "http://127.0.0.1:1/mcp", "headers": ["X-Key: 1"]})).unwrap();
        assert_eq!(target.words(), ["--url", "http://127.0.0.1:1/mcp"]);
        assert_eq!(
            form(json!({"config": "/c.json", "server": "s"})).unwrap().words()[..2],
            ["--config", "/c.json"]
        );
        for wrong in [
            json!({}),
            json!({"command": ["x"], "url": "http://127.0.0.1:1/mcp"}),
            json!({"config": "/c.json"}),
            json!({"command": [" "]}),
        ] {
            assert!(form(wrong.clone()).is_err(), "{wrong}");
        }
        assert!(form(json!({"command": ["x"], "shell": true})).is_err(), "unknown fields are refused");
    }
}
