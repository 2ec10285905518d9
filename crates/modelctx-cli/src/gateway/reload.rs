//! Reloading the gateway's config file while it runs: on SIGHUP, or when the file's contents
//! change (looked at every [`POLL`]: editors replace files by renaming, and mounted config maps
//! swap symlinks, which a poll of the contents sees whatever the file system tells). A file
//! that does not read is refused, said why, and the running configuration kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use modelctx::gateway::Gateway;
use modelctx::gateway::interceptors::InterceptorRule;
use modelctx::gateway::limits::RateLimits;
use modelctx::gateway::policy::Policy;
use modelctx::gateway::virtual_servers::{self, Selection};
use modelctx::host::HostConfig;

/// How often the file is looked at.
const POLL: Duration = Duration::from_secs(1);

/// Everything the gateway takes from its config file.
pub struct Loaded {
    /// The backends.
    pub config: HostConfig,
    /// `policies`.
    pub policy: Policy,
    /// `rateLimits`.
    pub rate_limits: RateLimits,
    /// `virtualServers` (applied at start only).
    pub virtual_servers: BTreeMap<String, Selection>,
    /// `interceptors` (experimental; applied at start only).
    pub interceptors: Vec<InterceptorRule>,
}

/// Reads the config file at `path`: its servers, `policies`, `rateLimits`, `virtualServers`
/// and `interceptors`; an error says what is wrong and where.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let config = crate::config_file::load(path).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let document: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let policy = match document.get("policies") {
        None => Policy::default(),
        Some(policies) => Policy::from_json(policies)?,
    };
    let rate_limits = match document.get("rateLimits") {
        None => RateLimits::default(),
        Some(rules) => RateLimits::from_json(rules)?,
    };
    let virtual_servers = match document.get("virtualServers") {
        None => BTreeMap::new(),
        Some(servers) => virtual_servers::from_json(servers)?,
    };
    let interceptors = match document.get("interceptors") {
        None => Vec::new(),
        Some(rules) => InterceptorRule::from_json(rules)?,
    };
    Ok(Loaded { config, policy, rate_limits, virtual_servers, interceptors })
}

/// The file's contents; `None` while it cannot be read.
fn contents(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// Applies the file at `path` to `gateway` each time it changes or SIGHUP comes, until the
/// task is aborted.
pub async fn follow(path: PathBuf, gateway: Arc<Gateway>) {
    let mut hangups = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(hangups) => Some(hangups),
        Err(error) => {
            tracing::warn!(%error, "SIGHUP cannot be caught: the config is reloaded when it changes only");
            None
        }
    };
    let mut applied = contents(&path);
    let mut ticks = tokio::time::interval(POLL);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let asked = tokio::select! {
            _ = ticks.tick() => false,
            Some(()) = async { hangups.as_mut()?.recv().await } => true,
        };
        let now = contents(&path);
        if !asked && (now.is_none() || now == applied) {
            continue;
        }
        applied = now;
        match load(&path) {
            Err(why) => tracing::error!(
                "{} was not applied: {why}; the running configuration is kept",
                path.display()
            ),
            Ok(loaded) => {
                let done = gateway.reload(loaded.config, loaded.policy, loaded.rate_limits).await;
                tracing::info!(
                    added = ?done.added,
                    changed = ?done.changed,
                    removed = ?done.removed,
                    "{} reloaded",
                    path.display()
                );
            }
        }
    }
}
