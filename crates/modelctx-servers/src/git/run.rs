//! Running `git` on behalf of a model: in one of the configured repositories, with user input
//! only where it cannot be read as an option, with the repository's own configuration kept
//! from running programs (hooks, fsmonitor, external diff, pagers, credential prompts, and
//! the filter, diff and merge drivers and signing programs it names), and bounded in time and
//! output.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// The longest one `git` command may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The most output of one command that is kept; the rest is dropped with a note.
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// Configuration given to every command, over the repository's: no program of the
/// repository's choosing runs, and nothing waits for a person.
const SAFE_CONFIG: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.pager=cat",
    "diff.external=",
    "credential.helper=",
    "protocol.file.allow=user",
    // A submodule's work tree is not looked into: its own configuration would name programs
    // (status compares its files through its filters). Its commit is still compared.
    "diff.ignoreSubmodules=dirty",
];

/// Keys (as `git config --get-regexp` matches them, names lower-cased) that name a program
/// git runs and that a repository's own `.git/config` may set: filter drivers (run by status,
/// add, checkout, diff), diff drivers, merge drivers and the signing programs. A repository's
/// value is replaced by the user's (global or system) value, or by [`neutral`]'s.
const PROGRAM_KEYS: &str = r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|gpg\.(program|[a-z0-9]+\.program|ssh\.defaultkeycommand))$";

/// What a repository-set program key is given when the user set none: git's default program
/// for the signing programs, and otherwise nothing (an empty filter is none; an empty diff or
/// merge driver fails rather than run).
fn neutral(key: &str) -> &'static str {
    match key {
        "gpg.program" | "gpg.openpgp.program" => "gpg",
        "gpg.x509.program" => "gpgsm",
        "gpg.ssh.program" => "ssh-keygen",
        _ => "",
    }
}

/// The configured repositories, by their canonical top-level directories.
#[derive(Clone, Debug)]
pub struct Repositories {
    roots: Vec<PathBuf>,
}

impl Repositories {
    /// The repositories at `dirs`, each checked to be the top of a git work tree.
    pub async fn open(dirs: &[PathBuf]) -> Result<Self, String> {
        let mut roots = Vec::new();
        for dir in dirs {
            let dir = dir.canonicalize().map_err(|e| format!("--repo {}: {e}", dir.display()))?;
            let top = git(&dir, &["rev-parse", "--show-toplevel"])
                .await
                .map_err(|why| format!("--repo {}: not a git repository ({})", dir.display(), why.trim()))?;
            roots.push(PathBuf::from(top.trim_end()));
        }
        Ok(Self { roots })
    }

    /// The configured repository `repo_path` names (its top or a directory inside it).
    pub fn find(&self, repo_path: &str) -> Result<&Path, String> {
        let refused = || {
            let allowed: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
            format!(
                "{repo_path} is not one of the repositories this server was given: {}",
                allowed.join(", ")
            )
        };
        let path = Path::new(repo_path).canonicalize().map_err(|_| refused())?;
        self.roots.iter().find(|root| path.starts_with(root)).map(PathBuf::as_path).ok_or_else(refused)
    }
}

/// `value` as a ref, revision or path argument: refused when git could read it as an option.
pub fn operand<'a>(what: &str, value: &'a str) -> Result<&'a str, String> {
    if value.is_empty() {
        Err(format!("{what} is empty"))
    } else if value.starts_with('-') {
        Err(format!("{what} {value:?} starts with '-': options are not accepted here"))
    } else {
        Ok(value)
    }
}

/// Runs `git ARGS…` in `repo` under [`SAFE_CONFIG`] and with the programs the repository's
/// configuration names put back to the user's ([`repository_programs`]): its standard output,
/// or its error output when it fails.
pub async fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let overrides = repository_programs(repo).await?;
    let ran = run(repo, args, &overrides).await?;
    if ran.success { Ok(ran.out) } else { Err(format!("git {} failed: {}", args[0], ran.err.trim_end())) }
}

/// The `-c KEY=VALUE` settings that take back every [`PROGRAM_KEYS`] key whose value in
/// effect comes from the repository (its `.git/config`, a worktree's, or a file either
/// includes): the user's own value when there is one, else the [`neutral`] one.
async fn repository_programs(repo: &Path) -> Result<Vec<String>, String> {
    let listing = run(repo, &["config", "--show-scope", "--null", "--get-regexp", PROGRAM_KEYS], &[]).await?;
    // Exit status 1 with nothing written: no key matched.
    if !listing.success && !listing.err.trim().is_empty() {
        return Err(format!("git config failed: {}", listing.err.trim_end()));
    }
    // In the order git reads them (system, global, local, worktree): the last value wins.
    let mut in_effect: Vec<(&str, bool, &str)> = Vec::new();
    let mut users: Vec<(&str, &str)> = Vec::new();
    // `SCOPE NUL KEY LF VALUE NUL` per value.
    let mut fields = listing.out.split('\0');
    while let (Some(scope), Some(setting)) = (fields.next(), fields.next()) {
        let (key, value) = setting.split_once('\n').unwrap_or((setting, ""));
        let from_repository = matches!(scope, "local" | "worktree");
        if !from_repository {
            users.retain(|(k, _)| *k != key);
            users.push((key, value));
        }
        in_effect.retain(|(k, _, _)| *k != key);
        in_effect.push((key, from_repository, value));
    }
    Ok(in_effect
        .into_iter()
        .filter(|(_, from_repository, _)| *from_repository)
        .map(|(key, _, _)| {
            let value = users.iter().find(|(k, _)| *k == key).map_or_else(|| neutral(key), |(_, v)| v);
            format!("{key}={value}")
        })
        .collect())
}

/// What one `git` run gave.
struct Ran {
    success: bool,
    out: String,
    err: String,
}

/// Runs `git ARGS…` in `repo` under [`SAFE_CONFIG`] and `overrides` (`KEY=VALUE`), bounded in
/// time and output.
async fn run(repo: &Path, args: &[&str], overrides: &[String]) -> Result<Ran, String> {
    let mut command = Command::new("git");
    command.arg("-C").arg(repo).arg("--no-pager");
    for setting in SAFE_CONFIG.iter().copied().chain(overrides.iter().map(String::as_str)) {
        command.args(["-c", setting]);
    }
    command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ASKPASS", "")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| format!("git could not be started: {e}"))?;
    let (mut stdout, mut stderr) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let finished = async {
        let (out, err) = tokio::join!(bounded(&mut stdout), bounded(&mut stderr));
        (child.wait().await, out, err)
    };
    let (status, out, err) = tokio::time::timeout(TIMEOUT, finished)
        .await
        .map_err(|_| format!("git {} took longer than {} s and was stopped", args[0], TIMEOUT.as_secs()))?;
    let status = status.map_err(|e| format!("git {}: {e}", args[0]))?;
    Ok(Ran { success: status.success(), out, err })
}

/// What `stream` writes, up to [`MAX_OUTPUT_BYTES`] (then a note; the rest is read and
/// dropped so the process is never blocked on a full pipe).
async fn bounded(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    let mut cut = false;
    while let Ok(read) = stream.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        let room = MAX_OUTPUT_BYTES - kept.len();
        kept.extend_from_slice(&buffer[..read.min(room)]);
        cut |= read > room;
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if cut {
        text.push_str(&format!("\n[output cut at {MAX_OUTPUT_BYTES} bytes]"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_that_read_as_options_are_refused() {
        assert_eq!(operand("revision", "HEAD~1"), Ok("HEAD~1"));
        assert!(operand("revision", "--output=/tmp/x").unwrap_err().contains("options are not accepted"));
        assert!(operand("branch_name", "").unwrap_err().contains("is empty"));
    }
}
