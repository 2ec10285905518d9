//! What can go wrong in a host call.

use std::fmt;

use super::ServerState;
use crate::client::ClientError;

/// Why a host call failed. A tool that ran and failed (`isError: true`) is not an error here:
/// it is a result, for the model to see.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum HostError {
    /// No tool has this name in the registry.
    UnknownTool(String),
    /// The tool's server is not connected (restarting, failed or stopped); the call was not
    /// sent.
    Unavailable {
        /// The server's name in the configuration.
        server: String,
        /// Where it stands.
        state: ServerState,
        /// Why, when known.
        last_error: Option<String>,
    },
    /// The approval hook denied the call (or there is no hook); the call was not sent.
    Denied {
        /// The server's name in the configuration.
        server: String,
        /// The tool's name on its server.
        tool: String,
        /// The hook's reason.
        reason: String,
    },
    /// The call was sent and failed: the server's time limit passed (see
    /// [`HostError::is_timeout`]), the connection ended, the server answered with an error.
    Call {
        /// The server's name in the configuration.
        server: String,
        /// The tool's name on its server.
        tool: String,
        /// What the client saw.
        error: ClientError,
    },
    /// The server had its `maxConcurrentCalls` in flight, and none ended within its time
    /// limit; the call was not sent.
    Busy {
        /// The server's name in the configuration.
        server: String,
        /// Its `maxConcurrentCalls`.
        limit: usize,
        /// How long the call waited for a turn.
        waited: std::time::Duration,
    },
    /// The server's circuit is open: its last calls failed in a row for want of the server
    /// (not connected, unreachable, out of time), so calls are refused at once for a while
    /// ([`super::CircuitPolicy`]); the call was not sent.
    CircuitOpen {
        /// The server's name in the configuration.
        server: String,
        /// How many failed, what the last said, and when a call is tried again.
        refusal: super::Refusal,
    },
    /// An app could not be fetched or would be unsafe to render (APPS-03).
    App {
        /// The server's name in the configuration.
        server: String,
        /// The app's URI, when the tool names one.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// No prompt has this name in the registry.
    UnknownPrompt(String),
    /// A `prompts/get` was sent and failed (as [`HostError::Call`] for a tool).
    Prompt {
        /// The server's name in the configuration.
        server: String,
        /// The prompt's name on its server.
        prompt: String,
        /// What the client saw.
        error: ClientError,
    },
    /// No server of the host goes by the URI (not a host URI, or an unknown server).
    UnknownResource(String),
    /// A `resources/read` was sent and failed.
    Resource {
        /// The server's name in the configuration.
        server: String,
        /// The resource's URI on its server.
        uri: String,
        /// What the client saw.
        error: ClientError,
    },
    /// A `completion/complete` was sent and failed.
    Completion {
        /// The server's name in the configuration.
        server: String,
        /// What the client saw.
        error: ClientError,
    },
    /// The host was shut down.
    ShutDown,
}

impl HostError {
    /// Whether the server's time limit passed (the call was cancelled on the server).
    pub fn is_timeout(&self) -> bool {
        self.client_error().is_some_and(ClientError::is_timeout)
    }

    /// Whether approval was denied.
    pub fn is_denied(&self) -> bool {
        matches!(self, Self::Denied { .. })
    }

    /// Whether the server was not there to call.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Unavailable { .. })
    }

    /// Whether the call failed for want of the server: it was not connected, could not be
    /// reached, or ran out of time — what a circuit breaker counts (an error the server
    /// answered with is not: the server is there).
    pub fn is_server_failure(&self) -> bool {
        match self {
            Self::Unavailable { .. } => true,
            _ => self
                .client_error()
                .is_some_and(|error| error.is_timeout() || error.is_closed() || error.is_transport()),
        }
    }

    /// The client's error, for a call or `prompts/get` that was sent.
    pub fn client_error(&self) -> Option<&ClientError> {
        match self {
            Self::Call { error, .. } | Self::Prompt { error, .. } | Self::Resource { error, .. } => {
                Some(error)
            }
            _ => None,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownTool(name) => write!(f, "no tool is called {name:?}"),
            Self::Unavailable { server, state, last_error: Some(why) } => {
                write!(f, "server {server:?} is {state} ({why}); the call was not sent")
            }
            Self::Unavailable { server, state, last_error: None } => {
                write!(f, "server {server:?} is {state}; the call was not sent")
            }
            Self::Denied { server, tool, reason } => {
                write!(f, "the call to {tool:?} on server {server:?} was not approved: {reason}")
            }
            Self::Call { server, tool, error } => write!(f, "server {server:?}, tool {tool:?}: {error}"),
            Self::Busy { server, limit, waited } => write!(
                f,
                "server {server:?} has its {limit} concurrent calls (maxConcurrentCalls) in flight, and none ended \
                 within {:.1} s; the call was not sent",
                waited.as_secs_f64()
            ),
            Self::CircuitOpen { server, refusal } => write!(
                f,
                "server {server:?} failed {} calls in a row (the last: {}), so its circuit is open: calls are \
                 refused for {:.1} s more, then one is tried; the call was not sent",
                refusal.failures,
                refusal.last_error,
                refusal.retry_in.as_secs_f64()
            ),
            Self::App { server, uri, reason } => write!(f, "server {server:?}, app {uri:?}: {reason}"),
            Self::UnknownPrompt(name) => write!(f, "no prompt is called {name:?}"),
            Self::Prompt { server, prompt, error } => {
                write!(f, "server {server:?}, prompt {prompt:?}: {error}")
            }
            Self::UnknownResource(uri) => {
                write!(f, "no server of this host has {uri:?} (host URIs are mcp-host://SERVER/URI)")
            }
            Self::Resource { server, uri, error } => {
                write!(f, "server {server:?}, resource {uri:?}: {error}")
            }
            Self::Completion { server, error } => write!(f, "server {server:?}, completion: {error}"),
            Self::ShutDown => f.write_str("the host was shut down"),
        }
    }
}

impl std::error::Error for HostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.client_error().map(|e| e as _)
    }
}
