//! The allowed roots: canonicalized and opened once at startup, and the lexical rules that
//! place a path the model gives under one of them.

use std::path::{Component, Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::error::FsError;

/// The longest path accepted, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// One allowed root: its canonical path and a directory descriptor every path under it is
/// opened relative to.
#[derive(Debug)]
pub struct Root {
    /// The canonical path (no symbolic links, no `..`).
    pub path: PathBuf,
    /// An `O_PATH` descriptor of the directory.
    pub dir: OwnedFd,
}

/// The allowed roots, in the order given (the first resolves relative paths).
#[derive(Debug)]
pub struct Roots {
    list: Vec<Root>,
}

impl Roots {
    /// Canonicalizes and opens each root. A missing root, one that is not a directory, and
    /// a kernel without `openat2(2)` are startup errors. Duplicates are dropped.
    pub fn open(paths: &[PathBuf]) -> Result<Self, String> {
        if paths.is_empty() {
            return Err("at least one --root is required".into());
        }
        let mut list: Vec<Root> = Vec::new();
        for given in paths {
            let path = std::fs::canonicalize(given)
                .map_err(|e| format!("root {} cannot be used: {e}", given.display()))?;
            let dir =
                rustix::fs::open(&path, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
                    .map_err(|e| match e {
                        Errno::NOTDIR => format!("root {} is not a directory", given.display()),
                        e => format!("root {} cannot be opened: {e}", given.display()),
                    })?;
            // Probe openat2 once, so that a kernel without it fails now and clearly.
            rustix::fs::openat2(
                &dir,
                ".",
                OFlags::PATH | OFlags::CLOEXEC,
                Mode::empty(),
                ResolveFlags::BENEATH,
            )
            .map_err(|e| match e {
                Errno::NOSYS => "this kernel has no openat2(2) (Linux 5.6 or newer is needed), which \
                                 the filesystem server relies on to keep paths inside the roots"
                    .to_owned(),
                e => format!("root {} cannot be opened with openat2(2): {e}", given.display()),
            })?;
            if !list.iter().any(|root| root.path == path) {
                list.push(Root { path, dir });
            }
        }
        Ok(Self { list })
    }

    /// The roots' canonical paths, in order.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.list.iter().map(|root| root.path.as_path())
    }

    /// The roots as a comma-separated list, for messages.
    pub fn describe(&self) -> String {
        self.paths().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// Checks `raw` (not empty, no NUL byte, at most [`MAX_PATH_BYTES`]) and makes it
    /// absolute: a relative path is taken relative to the first root. Nothing is resolved.
    pub fn absolute(&self, raw: &str) -> Result<PathBuf, FsError> {
        let bad = |problem: String| FsError::BadPath { path: shorten(raw), problem };
        if raw.is_empty() {
            return Err(bad("is empty".into()));
        }
        if raw.contains('\0') {
            return Err(bad("contains a NUL byte".into()));
        }
        if raw.len() > MAX_PATH_BYTES {
            return Err(bad(format!("is {} bytes long; paths are limited to {MAX_PATH_BYTES}", raw.len())));
        }
        let path = Path::new(raw);
        Ok(if path.is_absolute() { path.to_owned() } else { self.list[0].path.join(path) })
    }

    /// The root `path` lies in, compared component by component (so `/data` does not hold
    /// `/data-evil`), with the rest of the path relative to it. The deepest root wins when
    /// roots nest. `..` components are left in the rest: the kernel resolves them.
    pub fn containing<'a>(&'a self, path: &'a Path) -> Option<(&'a Root, &'a Path)> {
        self.list
            .iter()
            .filter_map(|root| path.strip_prefix(&root.path).ok().map(|rest| (root, rest)))
            .max_by_key(|(root, _)| root.path.components().count())
    }

    /// Whether `path` is exactly one of the roots.
    pub fn is_root(&self, path: &Path) -> bool {
        self.list.iter().any(|root| root.path == path)
    }

    /// The error for a path outside every root.
    pub fn outside(&self, raw: &str) -> FsError {
        FsError::Outside { path: shorten(raw), roots: self.describe() }
    }

    /// The error for a path that a link or `..` leads out of the roots.
    pub fn escapes(&self, raw: &str) -> FsError {
        FsError::Escapes { path: shorten(raw), roots: self.describe() }
    }
}

/// `raw` for a message: at most 200 bytes, cut at a character boundary.
pub fn shorten(raw: &str) -> String {
    /// The most bytes of a path a message repeats.
    const KEEP: usize = 200;
    if raw.len() <= KEEP {
        return raw.replace('\0', "\\0");
    }
    let mut end = KEEP;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", raw[..end].replace('\0', "\\0"), raw.len())
}

/// The last component of `path` when it is a plain name (not `..`, not the root).
pub fn final_name(path: &Path) -> Option<&std::ffi::OsStr> {
    match path.components().next_back() {
        Some(Component::Normal(name)) => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(paths: &[&Path]) -> Roots {
        Roots::open(&paths.iter().map(|p| p.to_path_buf()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_prefix_sibling_is_not_inside() {
        let base = tempfile::tempdir().unwrap();
        let data = base.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::create_dir(base.path().join("data-evil")).unwrap();
        let roots = roots(&[&data]);
        let data = std::fs::canonicalize(&data).unwrap();
        let evil = data.with_file_name("data-evil").join("x");
        assert!(roots.containing(&evil).is_none());
        let inside = data.join("a/b");
        let (root, rest) = roots.containing(&inside).unwrap();
        assert_eq!((root.path.as_path(), rest), (data.as_path(), Path::new("a/b")));
    }

    #[test]
    fn the_deepest_root_wins_and_relative_paths_use_the_first() {
        let base = tempfile::tempdir().unwrap();
        let outer = std::fs::canonicalize(base.path()).unwrap();
        let inner = outer.join("inner");
        std::fs::create_dir(&inner).unwrap();
        let roots = roots(&[&outer, &inner]);
        let inside = inner.join("f");
        let (root, rest) = roots.containing(&inside).unwrap();
        assert_eq!((root.path.as_path(), rest), (inner.as_path(), Path::new("f")));
        assert_eq!(roots.absolute("x/y").unwrap(), outer.join("x/y"));
    }

    #[test]
    fn bad_paths_and_missing_roots_are_refused() {
        let base = tempfile::tempdir().unwrap();
        let roots = roots(&[base.path()]);
        for (raw, problem) in [("", "is empty"), ("a\0b", "NUL"), (&"a".repeat(5000), "limited to 4096")] {
            let error = roots.absolute(raw).unwrap_err().to_string();
            assert!(error.contains(problem), "{error}");
        }
        let missing = Roots::open(&[base.path().join("missing")]).unwrap_err();
        assert!(missing.contains("missing") && missing.contains("cannot be used"), "{missing}");
        let file = base.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert!(Roots::open(&[file]).unwrap_err().contains("not a directory"));
    }
}
