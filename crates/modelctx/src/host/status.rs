//! What a host reports about each server.

use std::fmt;

use modelctx_protocol::ProtocolVersion;
use serde::Serialize;

/// Where a server stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// The first connection is being made.
    Connecting,
    /// Connected; its tools are in the registry.
    Connected,
    /// A stdio server exited and is being started again (its tools stay listed; calls to
    /// them fail at once until it is back).
    Restarting,
    /// The first connection failed, or restarts ran out; its tools are gone.
    Failed,
    /// The host shut down.
    Stopped,
}

impl fmt::Display for ServerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::Restarting => "restarting",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
        })
    }
}

/// How a server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// A child process over stdio.
    Stdio,
    /// An HTTP endpoint.
    Http,
}

/// One server's state, as [`super::Host::status`] reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// The server's name in the configuration.
    pub name: String,
    /// Where it stands.
    pub state: ServerState,
    /// How it is reached.
    pub transport: TransportKind,
    /// The protocol version of the current connection.
    pub version: Option<ProtocolVersion>,
    /// The process id of a running stdio server.
    pub pid: Option<u32>,
    /// Tools it contributes to the registry.
    pub tools: usize,
    /// Times it was started again after exiting.
    pub restarts: u32,
    /// The last thing that went wrong with it (an exit, a failed connection, a failed
    /// refresh), kept after it recovers.
    pub last_error: Option<String>,
    /// Whether its circuit is open: calls are refused at once after failing in a row
    /// ([`super::CircuitPolicy`]).
    pub circuit_open: bool,
}
