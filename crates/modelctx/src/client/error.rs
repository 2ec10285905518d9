//! What can go wrong in a client call.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;

/// Why a client call failed. Ask with the `is_*` predicates rather than matching, so a
/// new case does not break your code.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The connection ended before the answer (the server exited or closed its output).
    Closed(String),
    /// No answer in time; the request was cancelled on the server.
    Timeout {
        /// The request's method.
        method: Method,
        /// The time limit.
        after: Duration,
    },
    /// The HTTP exchange failed (connection refused, broken stream).
    Transport {
        /// What was being done, and how it failed.
        detail: String,
        /// The error underneath (`reqwest`'s, or an I/O error), for [`std::error::Error::source`].
        source: Option<Cause>,
    },
    /// The server answered with an HTTP status and no JSON-RPC answer.
    Http {
        /// The status.
        status: u16,
        /// The body, as text.
        detail: String,
    },
    /// The server could not be started.
    Spawn {
        /// The command, and why it did not start.
        detail: String,
        /// The error underneath (an I/O error), for [`std::error::Error::source`].
        source: Option<Cause>,
    },
    /// The server and this client share no protocol version.
    Incompatible {
        /// The versions the server named (empty when it named none).
        supported: Vec<String>,
    },
    /// The call's parameters were not what the protocol needs.
    InvalidParams(String),
    /// The server wants credentials this client could not get (the OAuth flow failed, or a
    /// refusal went on after fresh credentials).
    Auth(String),
    /// The server's result did not have the shape its method defines.
    InvalidResult {
        /// The request's method.
        method: Method,
        /// What was wrong.
        detail: String,
    },
}

/// The error underneath a [`ClientError`], kept for [`std::error::Error::source`]. Two causes
/// are equal when they are the same error.
#[derive(Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync + 'static>);

impl Cause {
    /// Keeps `error` as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ClientError {
    /// A failed HTTP exchange: `detail` says what was done, `source` what failed underneath.
    #[cfg(feature = "http-client")]
    pub(crate) fn transport(
        detail: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::Transport { detail: detail.into(), source: Some(Cause::new(source)) }
    }

    /// A server that could not be started, with the error underneath when there is one.
    pub(crate) fn spawn(detail: impl Into<String>, source: Option<std::io::Error>) -> Self {
        Self::Spawn { detail: detail.into(), source: source.map(Cause::new) }
    }

    /// The server's JSON-RPC error, when it answered with one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self {
            Self::Rpc(error) => Some(error),
            _ => None,
        }
    }

    /// Whether the server answered with a JSON-RPC error.
    pub fn is_rpc(&self) -> bool {
        matches!(self, Self::Rpc(_))
    }

    /// Whether authorization failed.
    pub fn is_auth(&self) -> bool {
        matches!(self, Self::Auth(_))
    }

    /// Whether the request got no answer in time (and was cancelled on the server).
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    /// Whether the connection ended before the answer.
    pub fn is_closed(&self) -> bool {
        matches!(self, Self::Closed(_))
    }

    /// Whether the HTTP exchange itself failed, or the server answered a bare HTTP status.
    pub fn is_transport(&self) -> bool {
        matches!(self, Self::Transport { .. } | Self::Http { .. })
    }

    /// The HTTP status, when the server answered one without a JSON-RPC answer.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Self::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the server speaks no protocol version this client does.
    pub fn is_incompatible(&self) -> bool {
        matches!(self, Self::Incompatible { .. })
    }

    /// Whether the server's result did not have the shape its method defines.
    pub fn is_invalid_result(&self) -> bool {
        matches!(self, Self::InvalidResult { .. })
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rpc(error) => write!(f, "the server answered {}: {}", error.code.0, error.message),
            Self::Closed(why) => write!(f, "the connection ended: {why}"),
            Self::Timeout { method, after } => {
                write!(f, "{method} got no answer within {}s and was cancelled", after.as_secs_f64())
            }
            Self::Transport { detail, .. } => write!(f, "the HTTP exchange failed: {detail}"),
            Self::Http { status, detail } => write!(f, "the server answered HTTP {status}: {detail}"),
            Self::Spawn { detail, .. } => write!(f, "the server could not be started: {detail}"),
            Self::Incompatible { supported } if supported.is_empty() => {
                f.write_str("the server speaks no protocol version this client does")
            }
            Self::Incompatible { supported } => {
                write!(f, "the server speaks only {}, none of which this client does", supported.join(", "))
            }
            Self::InvalidParams(why) => write!(f, "invalid parameters: {why}"),
            Self::Auth(why) => write!(f, "authorization failed: {why}"),
            Self::InvalidResult { method, detail } => {
                write!(f, "the server's {method} result is malformed: {detail}")
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Rpc(error) => Some(error),
            Self::Transport { source, .. } | Self::Spawn { source, .. } => {
                source.as_ref().map(|cause| &*cause.0 as &(dyn std::error::Error + 'static))
            }
            _ => None,
        }
    }
}
