//! Opening paths inside the roots. Every object is opened by the kernel relative to a root's
//! directory descriptor with `openat2(2)` and `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, so a
//! `..`, an absolute symbolic link or a link that climbs out fails (`EXDEV`) at the moment of
//! the open, not in an earlier check. Objects to create, replace or move are reached as a
//! directory opened that way plus one plain name, used with the `*at` calls on that
//! descriptor: a name with no `/` cannot leave its directory.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::error::FsError;
use super::roots::{Roots, final_name, shorten};

/// What to open a path as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// A file to read (non-blocking, so that a FIFO cannot hang the server).
    File,
    /// A directory to list.
    Dir,
    /// Anything, to inspect (`O_PATH`).
    Any,
    /// The directory that holds an entry (`O_PATH | O_DIRECTORY`).
    Parent,
}

impl How {
    /// The `open` flags for this kind of object.
    fn flags(self) -> OFlags {
        match self {
            Self::File => OFlags::RDONLY | OFlags::NONBLOCK,
            Self::Dir => OFlags::RDONLY | OFlags::DIRECTORY,
            Self::Any => OFlags::PATH,
            Self::Parent => OFlags::PATH | OFlags::DIRECTORY,
        }
    }

    /// What a failure message says was being done.
    fn action(self) -> &'static str {
        match self {
            Self::File => "read",
            Self::Dir => "list",
            Self::Any => "inspect",
            Self::Parent => "reach the directory of",
        }
    }
}

/// An object opened inside a root.
#[derive(Debug)]
pub struct Opened {
    /// Its descriptor.
    pub fd: OwnedFd,
    /// Where it is: the absolute path as given, or its canonical path when a link led to it.
    pub path: PathBuf,
}

/// An entry to create, replace or move: its directory, opened inside a root, and its name.
#[derive(Debug)]
pub struct Entry {
    /// The directory (`O_PATH`).
    pub dir: OwnedFd,
    /// A plain name in it: no `/`, not `.` or `..`.
    pub name: OsString,
    /// Where it is, for messages and results.
    pub path: PathBuf,
}

/// `openat2(dir, rel)` confined beneath `dir`; `EAGAIN` (a concurrent rename the kernel
/// could not rule out) is retried a few times.
fn beneath(dir: &OwnedFd, rel: &Path, flags: OFlags, extra: ResolveFlags) -> Result<OwnedFd, Errno> {
    let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS | extra;
    // openat2 refuses flags that O_PATH ignores, such as O_NOCTTY.
    let flags =
        flags | OFlags::CLOEXEC | if flags.contains(OFlags::PATH) { OFlags::empty() } else { OFlags::NOCTTY };
    let mut attempts = 0;
    loop {
        match rustix::fs::openat2(dir, rel, flags, Mode::empty(), resolve) {
            Err(Errno::AGAIN) if attempts < 16 => attempts += 1,
            other => return other,
        }
    }
}

/// `path` without `.` components, and without `..` ones when it can be canonicalized: the
/// form results show (the descriptor, not this path, is what is used).
fn tidy(path: &Path) -> PathBuf {
    let tidied: PathBuf = path.components().collect();
    if tidied.components().any(|c| c == Component::ParentDir) {
        std::fs::canonicalize(&tidied).unwrap_or(tidied)
    } else {
        tidied
    }
}

/// The roots and the confined operations on them.
#[derive(Debug)]
pub struct Fs {
    /// The allowed roots.
    pub roots: Roots,
}

impl Fs {
    /// The files under `dir` alone, for tests.
    #[cfg(test)]
    pub fn beneath(dir: &Path) -> Self {
        Self { roots: super::roots::Roots::open(&[dir.to_owned()]).expect("a test directory") }
    }

    /// Opens `raw` (followed through symbolic links that stay inside the roots) as `how`.
    pub fn open(&self, raw: &str, how: How) -> Result<Opened, FsError> {
        let full = self.roots.absolute(raw)?;
        self.open_full(raw, &full, how)
    }

    /// Opens the absolute path `full` (given as `raw`) as `how`.
    ///
    /// First beneath the root that holds it as written. When it is written outside every
    /// root, or a link or `..` leads out of that root, its canonical path decides: inside
    /// some root (a link from one root into another, or a path spelled through a link to a
    /// root) it is opened beneath that root with `RESOLVE_NO_SYMLINKS`, so that nothing can
    /// be swapped in between; otherwise it is refused, with the same message whether or
    /// not it exists.
    fn open_full(&self, raw: &str, full: &Path, how: How) -> Result<Opened, FsError> {
        let written_inside = match self.roots.containing(full) {
            Some((root, rel)) => match beneath(&root.dir, rel, how.flags(), ResolveFlags::empty()) {
                Ok(fd) => return Ok(Opened { fd, path: tidy(full) }),
                Err(Errno::XDEV) => true,
                Err(errno) => return Err(FsError::io(&shorten(raw), how.action(), errno)),
            },
            None => false,
        };
        let refuse = || if written_inside { self.roots.escapes(raw) } else { self.roots.outside(raw) };
        let real = std::fs::canonicalize(full).map_err(|_| refuse())?;
        let Some((root, rel)) = self.roots.containing(&real) else {
            return Err(refuse());
        };
        match beneath(&root.dir, rel, how.flags(), ResolveFlags::NO_SYMLINKS) {
            Ok(fd) => Ok(Opened { fd, path: real }),
            Err(Errno::LOOP | Errno::XDEV) => Err(FsError::Refused(format!(
                "path {} changed while it was being resolved; try again",
                shorten(raw)
            ))),
            Err(errno) => Err(FsError::io(&shorten(raw), how.action(), errno)),
        }
    }

    /// The entry `raw` names, for creating, replacing or moving it: its parent directory
    /// opened inside a root, and its last component. A root itself is not an entry.
    pub fn entry(&self, raw: &str) -> Result<Entry, FsError> {
        let full = self.roots.absolute(raw)?;
        self.entry_full(raw, &full)
    }

    /// [`Fs::entry`] for the absolute path `full`.
    fn entry_full(&self, raw: &str, full: &Path) -> Result<Entry, FsError> {
        let bad = |problem: &str| FsError::BadPath { path: shorten(raw), problem: problem.into() };
        if self.roots.is_root(full) {
            return Err(bad("is an allowed root itself; it cannot be created, replaced or moved"));
        }
        let (Some(name), Some(parent)) = (final_name(full), full.parent()) else {
            return Err(bad("does not end in a file or directory name"));
        };
        let opened = self.open_full(raw, parent, How::Parent)?;
        Ok(Entry { dir: opened.fd, name: name.to_owned(), path: opened.path.join(name) })
    }

    /// Creates the directory `raw` and any missing parents inside the roots; `false` when it
    /// already existed.
    pub fn create_dir_all(&self, raw: &str) -> Result<bool, FsError> {
        let full = self.roots.absolute(raw)?;
        self.create_dir_full(raw, &full)
    }

    /// [`Fs::create_dir_all`] for the absolute path `full`: parents first, recursively.
    fn create_dir_full(&self, raw: &str, full: &Path) -> Result<bool, FsError> {
        let entry = match self.entry_full(raw, full) {
            Err(e) if e.is_not_found() => {
                let parent = full.parent().unwrap_or(full);
                self.create_dir_full(raw, parent)?;
                self.entry_full(raw, full)?
            }
            Err(FsError::BadPath { .. }) if self.roots.is_root(full) => return Ok(false),
            other => other?,
        };
        match rustix::fs::mkdirat(&entry.dir, &entry.name, Mode::from_raw_mode(0o755)) {
            Ok(()) => Ok(true),
            // It exists: fine if it is a directory (reached inside the roots).
            Err(Errno::EXIST) => match self.open_full(raw, full, How::Parent) {
                Ok(_) => Ok(false),
                Err(FsError::Io { errno: Errno::NOTDIR, .. }) => Err(FsError::Refused(format!(
                    "cannot create directory {}: a file of that name exists",
                    shorten(raw)
                ))),
                Err(e) => Err(e),
            },
            Err(errno) => Err(FsError::io(&shorten(raw), "create directory", errno)),
        }
    }
}
