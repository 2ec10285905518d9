//! Errors of building and changing a server.

use std::fmt;

/// A definition was refused at registration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationError {
    /// A tool breaks a rule; `reason` says which.
    Tool {
        /// The tool's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A resource or resource template breaks a rule.
    Resource {
        /// Its URI or URI template.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// A prompt breaks a rule.
    Prompt {
        /// Its name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// An extension's identifier breaks the `_meta` key rules, or has no prefix (EXT-01).
    Extension {
        /// The identifier.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// Two definitions of one kind share a name (or URI).
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tool { name, reason } => write!(f, "tool {name:?}: {reason}"),
            Self::Resource { uri, reason } => write!(f, "resource {uri:?}: {reason}"),
            Self::Prompt { name, reason } => write!(f, "prompt {name:?}: {reason}"),
            Self::Extension { id, reason } => write!(f, "extension {id:?}: {reason}"),
            Self::Duplicate { kind, name } => write!(f, "a {kind} named {name:?} is already registered"),
        }
    }
}

impl std::error::Error for RegistrationError {}
