//! Why a configuration was rejected. Every message about an entry names its server, and the
//! field when there is one.

use std::fmt;
use std::path::PathBuf;

/// Why a host configuration could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        detail: String,
    },
    /// The text is not JSON (with line and column).
    Json(String),
    /// The document is JSON but not a server list: no `mcpServers` or `servers` object, or
    /// both.
    Shape(String),
    /// An entry has a field no host form defines (often a typo).
    UnknownField {
        /// The server's name in the configuration.
        server: String,
        /// The field as written.
        field: String,
        /// The fields an entry may have.
        expected: &'static [&'static str],
    },
    /// A field has the wrong type or an unusable value.
    InvalidField {
        /// The server's name in the configuration.
        server: String,
        /// The field's path (`args[1]`, `env.TOKEN`), or empty for the entry itself.
        field: String,
        /// What is wrong.
        detail: String,
    },
    /// The entry is neither clearly a command to run nor a URL: both `command` and `url`,
    /// neither, or a `type` that contradicts them.
    Transport {
        /// The server's name in the configuration.
        server: String,
        /// What is wrong.
        detail: String,
    },
    /// `${VAR}` names a variable that is not set, and gives no default.
    UnsetVariable {
        /// The server's name in the configuration.
        server: String,
        /// The field's path.
        field: String,
        /// The variable.
        variable: String,
    },
    /// A `${…}` that cannot be expanded: unterminated, or not a variable (`${input:id}`).
    BadVariable {
        /// The server's name in the configuration.
        server: String,
        /// The field's path.
        field: String,
        /// What is wrong.
        detail: String,
    },
}

impl ConfigError {
    /// The server whose entry is at fault, when the fault is in one entry.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::UnknownField { server, .. }
            | Self::InvalidField { server, .. }
            | Self::Transport { server, .. }
            | Self::UnsetVariable { server, .. }
            | Self::BadVariable { server, .. } => Some(server),
            Self::Read { .. } | Self::Json(_) | Self::Shape(_) => None,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, detail } => write!(f, "{} could not be read: {detail}", path.display()),
            Self::Json(detail) => write!(f, "the configuration is not valid JSON: {detail}"),
            Self::Shape(detail) => f.write_str(detail),
            Self::UnknownField { server, field, expected } => write!(
                f,
                "server {server:?}: unknown field {field:?} (expected one of {})",
                expected.join(", ")
            ),
            Self::InvalidField { server, field, detail } if field.is_empty() => {
                write!(f, "server {server:?}: {detail}")
            }
            Self::InvalidField { server, field, detail } => {
                write!(f, "server {server:?}: field {field:?}: {detail}")
            }
            Self::Transport { server, detail } => write!(f, "server {server:?}: {detail}"),
            Self::UnsetVariable { server, field, variable } => write!(
                f,
                "server {server:?}: field {field:?} uses ${{{variable}}}, which is not set \
                 (give a default with ${{{variable}:-value}})"
            ),
            Self::BadVariable { server, field, detail } => {
                write!(f, "server {server:?}: field {field:?}: {detail}")
            }
        }
    }
}

impl std::error::Error for ConfigError {}
