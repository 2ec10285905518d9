//! An entry's `envFile`: the variables of a dotenv file (`KEY=value` lines, `#` comments,
//! quoted values), read with `dotenvy` as the configuration is read.

use std::collections::BTreeMap;
use std::path::Path;

use super::ConfigError;

/// The variables of `path` (relative to `base` when it is relative and there is one).
pub(super) fn read(
    server: &str,
    path: &Path,
    base: Option<&Path>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let path = match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_owned(),
    };
    let invalid =
        |detail: String| ConfigError::InvalidField { server: server.into(), field: "envFile".into(), detail };
    let lines = dotenvy::from_path_iter(&path).map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    lines.map(|line| line.map_err(|e| invalid(format!("{}: {e}", path.display())))).collect()
}
