//! The errors a filesystem tool reports to the model: each names the path as the model gave
//! it and says what to do differently.

use std::fmt;

use rustix::io::Errno;

/// Why a filesystem tool call failed. Its `Display` is the message the model reads in a
/// tool result with `isError: true`.
#[derive(Debug)]
pub enum FsError {
    /// The path lies outside every allowed root.
    Outside {
        /// The path as given.
        path: String,
        /// The allowed roots, comma-separated.
        roots: String,
    },
    /// The path is inside a root as written, but a symbolic link or `..` leads out of it
    /// (or to nothing: where it would lead is not told).
    Escapes {
        /// The path as given.
        path: String,
        /// The allowed roots, comma-separated.
        roots: String,
    },
    /// The path itself is unusable (empty, a NUL byte, too long, names no file, …).
    BadPath {
        /// The path as given (possibly shortened).
        path: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A system call failed on the path.
    Io {
        /// The path as given.
        path: String,
        /// What was being done ("read", "open", …).
        action: &'static str,
        /// The error number.
        errno: Errno,
    },
    /// The request cannot be done as asked (bad ranges, too large, no match for an edit, …).
    Refused(String),
}

impl FsError {
    /// A failed system call on `path`.
    pub fn io(path: &str, action: &'static str, errno: Errno) -> Self {
        Self::Io { path: path.to_owned(), action, errno }
    }

    /// A failed `std::io` call on `path`.
    pub fn std_io(path: &str, action: &'static str, error: &std::io::Error) -> Self {
        match error.raw_os_error() {
            Some(code) => Self::io(path, action, Errno::from_raw_os_error(code)),
            None => Self::Refused(format!("cannot {action} {path}: {error}")),
        }
    }

    /// Whether this is "no such file or directory".
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io { errno: Errno::NOENT, .. })
    }
}

/// A short explanation of the common error numbers, without the `(os error N)` suffix.
fn explain(errno: Errno) -> String {
    match errno {
        Errno::NOENT => "no such file or directory".into(),
        Errno::ACCESS | Errno::PERM => "permission denied".into(),
        Errno::NOTDIR => "a component of the path is not a directory".into(),
        Errno::ISDIR => "it is a directory".into(),
        Errno::LOOP => "it is a symbolic link (or a chain of too many)".into(),
        Errno::EXIST => "it already exists".into(),
        Errno::NAMETOOLONG => "a name in the path is too long".into(),
        Errno::NOSPC => "no space left on the device".into(),
        Errno::ROFS => "the file system is read-only".into(),
        Errno::XDEV => "it would cross file systems".into(),
        Errno::NOTEMPTY => "the directory is not empty".into(),
        Errno::INVAL => "invalid argument (a directory cannot move into itself)".into(),
        other => {
            let text = std::io::Error::from(other).to_string();
            text.split(" (os error").next().unwrap_or(&text).to_lowercase()
        }
    }
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outside { path, roots } => write!(f, "path {path} is outside the allowed roots: {roots}"),
            Self::Escapes { path, roots } => write!(
                f,
                "path {path} leads outside the allowed roots ({roots}) through a symbolic link or '..'"
            ),
            Self::BadPath { path, problem } => write!(f, "path {path} {problem}"),
            Self::Io { path, action, errno } => write!(f, "cannot {action} {path}: {}", explain(*errno)),
            Self::Refused(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for FsError {}
