//! Reading directories: one level (`list_directory`, `list_directory_with_sizes`), a bounded
//! tree (`directory_tree`) and a bounded search (`search_files`). Walks never follow symbolic links: a subdirectory is
//! opened by its plain name relative to its parent's descriptor with `O_NOFOLLOW`, so a walk
//! stays where it started however the tree changes under it.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;
use schemars::JsonSchema;
use serde::Serialize;

use super::error::FsError;
use super::glob::Pattern;
use super::resolve::{Fs, How};
use super::roots::shorten;
use super::{MAX_DEPTH, MAX_LIST_ENTRIES, MAX_SEARCH_RESULTS, MAX_TREE_ENTRIES, MAX_WALK_ENTRIES};

/// What an entry is (symbolic links are not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// Anything else (FIFO, socket, device).
    Other,
}

impl Kind {
    /// The kind of a directory entry's or `stat`'s file type.
    fn of(file_type: FileType) -> Self {
        match file_type {
            FileType::RegularFile => Self::File,
            FileType::Directory => Self::Directory,
            FileType::Symlink => Self::Symlink,
            _ => Self::Other,
        }
    }
}

/// The entries of the directory `dir` (without `.` and `..`), sorted by name, at most
/// `limit`; whether more were left out.
fn entries(dir: &OwnedFd, limit: usize) -> Result<(Vec<(String, Kind)>, bool), Errno> {
    let mut found = Vec::new();
    let mut truncated = false;
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        if found.len() == limit {
            truncated = true;
            break;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => rustix::fs::statat(dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                .map_or(Kind::Other, |stat| Kind::of(FileType::from_raw_mode(stat.st_mode))),
            known => Kind::of(known),
        };
        found.push((OsStr::from_bytes(name).to_string_lossy().into_owned(), kind));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((found, truncated))
}

/// Opens the subdirectory `name` of `dir` without following a link.
fn subdirectory(dir: &OwnedFd, name: &str) -> Result<OwnedFd, Errno> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name, flags, Mode::empty())
}

/// One entry of `list_directory`.
#[derive(Serialize, JsonSchema)]
pub struct ListedEntry {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(rename = "type")]
    pub kind: Kind,
}

/// `list_directory` output.
#[derive(Serialize, JsonSchema)]
pub struct Listing {
    /// The directory.
    pub path: String,
    /// Its entries, sorted by name.
    pub entries: Vec<ListedEntry>,
    /// Whether entries were left out (more than the limit).
    pub truncated: bool,
}

/// Lists one directory; the text marks each entry `[DIR]` or `[FILE]`.
pub fn list(fs: &Fs, raw: &str) -> Result<(String, Listing), FsError> {
    let opened = fs.open(raw, How::Dir)?;
    let (found, truncated) =
        entries(&opened.fd, MAX_LIST_ENTRIES).map_err(|errno| FsError::io(&shorten(raw), "list", errno))?;
    let mut text: Vec<String> = found
        .iter()
        .map(|(name, kind)| match kind {
            Kind::Directory => format!("[DIR] {name}"),
            Kind::Symlink => format!("[FILE] {name} (symbolic link)"),
            _ => format!("[FILE] {name}"),
        })
        .collect();
    if truncated {
        text.push(format!("… more entries left out (the first {MAX_LIST_ENTRIES} are shown)"));
    }
    if found.is_empty() {
        text.push("(empty directory)".into());
    }
    let entries = found.into_iter().map(|(name, kind)| ListedEntry { name, kind }).collect();
    Ok((text.join("\n"), Listing { path: opened.path.display().to_string(), entries, truncated }))
}

/// How `list_directory_with_sizes` orders its entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    /// By name (the default).
    #[default]
    Name,
    /// Largest first.
    Size,
}

/// One entry of `list_directory_with_sizes`.
#[derive(Serialize, JsonSchema)]
pub struct SizedEntry {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// A file's size in bytes (a link's own size; none for a directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// `list_directory_with_sizes` output.
#[derive(Serialize, JsonSchema)]
pub struct SizedListing {
    /// The directory.
    pub path: String,
    /// Its entries, in the order asked for.
    pub entries: Vec<SizedEntry>,
    /// How many entries are not directories.
    pub files: usize,
    /// How many are directories.
    pub directories: usize,
    /// The sizes of the files, summed.
    pub total_bytes: u64,
    /// Whether entries were left out (more than the limit).
    pub truncated: bool,
}

/// Lists one directory with each file's size, as the official server's
/// `list_directory_with_sizes` does: a line per entry (`[DIR]`/`[FILE]`, the name, the size),
/// then the totals. Sizes are read without following links.
pub fn list_with_sizes(fs: &Fs, raw: &str, sort_by: SortBy) -> Result<(String, SizedListing), FsError> {
    let opened = fs.open(raw, How::Dir)?;
    let (found, truncated) =
        entries(&opened.fd, MAX_LIST_ENTRIES).map_err(|errno| FsError::io(&shorten(raw), "list", errno))?;
    let mut entries: Vec<SizedEntry> = found
        .into_iter()
        .map(|(name, kind)| {
            let size = (kind != Kind::Directory)
                .then(|| rustix::fs::statat(&opened.fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW).ok())
                .flatten()
                .map(|stat| u64::try_from(stat.st_size).unwrap_or_default());
            SizedEntry { name, kind, size }
        })
        .collect();
    if sort_by == SortBy::Size {
        entries
            .sort_by(|a, b| b.size.unwrap_or(0).cmp(&a.size.unwrap_or(0)).then_with(|| a.name.cmp(&b.name)));
    }
    let directories = entries.iter().filter(|e| e.kind == Kind::Directory).count();
    let files = entries.len() - directories;
    let total_bytes = entries.iter().filter_map(|e| e.size).sum();
    let mut text: Vec<String> = entries
        .iter()
        .map(|entry| match (entry.kind, entry.size) {
            (Kind::Directory, _) => format!("[DIR] {}", entry.name),
            (_, Some(size)) => format!("[FILE] {:<30} {:>10}", entry.name, human_size(size)),
            (_, None) => format!("[FILE] {}", entry.name),
        })
        .collect();
    if truncated {
        text.push(format!("… more entries left out (the first {MAX_LIST_ENTRIES} are shown)"));
    }
    text.push(String::new());
    text.push(format!("Total: {files} files, {directories} directories"));
    text.push(format!("Combined size: {}", human_size(total_bytes)));
    let path = opened.path.display().to_string();
    Ok((text.join("\n"), SizedListing { path, entries, files, directories, total_bytes, truncated }))
}

/// `bytes` as the official server writes a size: `0 B`, `512 B`, `1.50 KB`, `2.00 MB`, …
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut unit = 0;
    let mut scaled = bytes as f64;
    while scaled >= 1024.0 && unit < UNITS.len() - 1 {
        scaled /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{scaled:.2} {}", UNITS[unit]) }
}

/// A node of `directory_tree`.
#[derive(Serialize, JsonSchema)]
pub struct TreeNode {
    /// Its name.
    pub name: String,
    /// What it is.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// A directory's entries (absent beyond the depth limit or when it cannot be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<TreeNode>>,
    /// Why a directory's entries are missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `directory_tree` output.
#[derive(Serialize, JsonSchema)]
pub struct Tree {
    /// The directory at the top.
    pub path: String,
    /// Its entries, recursively.
    pub entries: Vec<TreeNode>,
    /// Whether entries were left out: past `maxDepth` or more than the entry limit.
    pub truncated: bool,
}

/// The state of one walk: where it may not go and how much it may still see.
struct Walk<'a> {
    exclude: &'a [Pattern],
    budget: usize,
    truncated: bool,
}

impl Walk<'_> {
    /// Whether an `excludePatterns` entry matches.
    fn excluded(&self, relative: &str, name: &str) -> bool {
        self.exclude.iter().any(|pattern| pattern.matches(relative, name))
    }
}

/// The most `excludePatterns` one call may give: each entry walked is matched against every
/// one (they were unbounded: a call could pin a blocking thread for as long as it liked).
pub const MAX_EXCLUDE_PATTERNS: usize = 64;

/// The longest pattern, search or exclude, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Refuses a pattern longer than [`MAX_PATTERN_BYTES`].
fn bounded(pattern: &str) -> Result<&str, FsError> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(FsError::Refused(format!(
            "a pattern of {} bytes is longer than the {MAX_PATTERN_BYTES} allowed",
            pattern.len()
        )));
    }
    Ok(pattern)
}

/// Compiles the `excludePatterns`, ignoring empty ones; at most [`MAX_EXCLUDE_PATTERNS`].
pub fn patterns(patterns: &[String]) -> Result<Vec<Pattern>, FsError> {
    if patterns.len() > MAX_EXCLUDE_PATTERNS {
        return Err(FsError::Refused(format!(
            "{} excludePatterns are more than the {MAX_EXCLUDE_PATTERNS} allowed",
            patterns.len()
        )));
    }
    let mut compiled = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        compiled.extend(Pattern::new(bounded(pattern)?));
    }
    Ok(compiled)
}

/// The tree under `raw`, `max_depth` levels deep (at most [`MAX_DEPTH`]), at most
/// [`MAX_TREE_ENTRIES`] entries.
pub fn tree(fs: &Fs, raw: &str, exclude: &[String], max_depth: usize) -> Result<Tree, FsError> {
    let max_depth = max_depth.clamp(1, MAX_DEPTH);
    let exclude = patterns(exclude)?;
    let opened = fs.open(raw, How::Dir)?;
    let mut walk = Walk { exclude: &exclude, budget: MAX_TREE_ENTRIES, truncated: false };
    let entries = tree_level(&mut walk, &opened.fd, "", max_depth)
        .map_err(|errno| FsError::io(&shorten(raw), "list", errno))?;
    Ok(Tree { path: opened.path.display().to_string(), entries, truncated: walk.truncated })
}

/// One directory of the tree, and its subdirectories while `depth` allows.
fn tree_level(
    walk: &mut Walk<'_>,
    dir: &OwnedFd,
    prefix: &str,
    depth: usize,
) -> Result<Vec<TreeNode>, Errno> {
    let (found, truncated) = entries(dir, walk.budget)?;
    walk.truncated |= truncated;
    let mut nodes = Vec::new();
    for (name, kind) in found {
        let relative = format!("{prefix}{name}");
        if walk.excluded(&relative, &name) {
            continue;
        }
        if walk.budget == 0 {
            walk.truncated = true;
            break;
        }
        walk.budget -= 1;
        let (mut children, mut error) = (None, None);
        if kind == Kind::Directory {
            if depth <= 1 {
                walk.truncated = true;
            } else {
                match subdirectory(dir, &name)
                    .and_then(|sub| tree_level(walk, &sub, &format!("{relative}/"), depth - 1))
                {
                    Ok(nodes) => children = Some(nodes),
                    Err(errno) => error = Some(FsError::io(&relative, "list", errno).to_string()),
                }
            }
        }
        nodes.push(TreeNode { name, kind, children, error });
    }
    Ok(nodes)
}

/// `search_files` output.
#[derive(Serialize, JsonSchema)]
pub struct Matches {
    /// The paths that match.
    pub matches: Vec<String>,
    /// Whether the search stopped early (too many results or entries).
    pub truncated: bool,
}

/// Finds entries under `raw` whose name or relative path matches `pattern`, at most
/// `max_results` of them, looking at no more than [`MAX_WALK_ENTRIES`] entries.
pub fn search(
    fs: &Fs,
    raw: &str,
    pattern: &str,
    exclude: &[String],
    max_results: usize,
) -> Result<Matches, FsError> {
    let pattern = Pattern::new(bounded(pattern)?)
        .ok_or_else(|| FsError::Refused("pattern must not be empty".into()))?;
    let exclude = patterns(exclude)?;
    let opened = fs.open(raw, How::Dir)?;
    let mut walk = Walk { exclude: &exclude, budget: MAX_WALK_ENTRIES, truncated: false };
    let limit = max_results.min(MAX_SEARCH_RESULTS);
    let mut search = Search { pattern, base: opened.path.clone(), limit, matches: Vec::new(), full: false };
    search
        .level(&mut walk, &opened.fd, "", MAX_DEPTH)
        .map_err(|errno| FsError::io(&shorten(raw), "search", errno))?;
    Ok(Matches { matches: search.matches, truncated: walk.truncated })
}

/// The state of one search.
struct Search {
    pattern: Pattern,
    base: PathBuf,
    limit: usize,
    matches: Vec<String>,
    /// Whether `limit` matches were found and one more was seen.
    full: bool,
}

impl Search {
    /// Searches the directory `dir`, `depth` levels deep at most.
    fn level(&mut self, walk: &mut Walk<'_>, dir: &OwnedFd, prefix: &str, depth: usize) -> Result<(), Errno> {
        let (found, truncated) = entries(dir, walk.budget)?;
        walk.truncated |= truncated;
        walk.budget = walk.budget.saturating_sub(found.len());
        for (name, kind) in found {
            if self.full {
                return Ok(());
            }
            let relative = format!("{prefix}{name}");
            if walk.excluded(&relative, &name) {
                continue;
            }
            if self.pattern.matches(&relative, &name) {
                if self.matches.len() == self.limit {
                    (self.full, walk.truncated) = (true, true);
                    return Ok(());
                }
                self.matches.push(self.base.join(&relative).display().to_string());
            }
            if kind != Kind::Directory {
                continue;
            }
            if depth <= 1 {
                walk.truncated = true;
            } else if let Ok(sub) = subdirectory(dir, &name) {
                // An unreadable subdirectory is skipped, not fatal.
                let _skipped_when_unreadable = self.level(walk, &sub, &format!("{relative}/"), depth - 1);
            }
        }
        Ok(())
    }
}
