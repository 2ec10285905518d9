//! How a client is set up, and what it learns of the server.

#[cfg(feature = "http-client")]
use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::ProtocolVersion;
use modelctx_protocol::jsonrpc::ParseLimits;
use modelctx_protocol::model::ServerCapabilities;
use modelctx_protocol::types::Implementation;

#[cfg(feature = "http-client")]
use super::HttpAuth;
use super::{ClientHandlers, WireTap};

/// Which era the client speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EraMode {
    /// Probe with `server/discover`, fall back to `initialize`.
    #[default]
    Auto,
    /// 2026-07-28 only: a server that does not speak it is an error.
    Modern,
    /// The `initialize` handshake, without probing.
    Legacy,
}

/// How the client identifies itself and how long it waits.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// The client software, sent to the server.
    pub info: Implementation,
    /// Which era to speak.
    pub mode: EraMode,
    /// How long one request may take before it is cancelled. Default 60 s.
    pub request_timeout: Duration,
    /// How long the `server/discover` probe waits before falling back. Default 5 s.
    pub probe_timeout: Duration,
    /// At shutdown, how long a stdio server has after stdin closes, and again after SIGTERM,
    /// before it is killed. Default 2 s.
    pub shutdown_grace: Duration,
    /// Limits on the messages the server sends.
    pub limits: ParseLimits,
    /// How the client answers the server's questions (elicitation, sampling, roots).
    pub handlers: ClientHandlers,
    /// The most a listing (`tools/list`, `prompts/list`, `resources/list`, … over all its
    /// pages) may hold, counted as its pages' JSON: a server listing more is an error (a
    /// hostile one could send 1,000 pages of 4 MiB). Default 16 MiB.
    pub max_listing_bytes: usize,
    /// Rounds of input a multi-round-trip request may ask for before the client gives up.
    /// Default 8.
    pub max_input_rounds: usize,
    /// Whether a progress report starts a request's time limit again (for requests sent
    /// with a progress callback). Default true.
    pub reset_timeout_on_progress: bool,
    /// The credentials of HTTP requests: set on each one, and told of a 401 or 403 (for
    /// stdio servers it is unused). [`StaticBearer`](super::StaticBearer) for a fixed token,
    /// `modelctx::auth::OAuth` (feature `auth`) for OAuth. Default none.
    #[cfg(feature = "http-client")]
    pub auth: Option<Arc<dyn HttpAuth>>,
    /// Whether `call_tool` checks the arguments against the tool's `inputSchema` before
    /// sending them (listing the tools first when no listing was seen): arguments that do not
    /// fit fail ([`super::ClientError::is_invalid_params`]) and nothing is sent. Default false.
    #[cfg(feature = "validation")]
    pub validate_arguments: bool,
    /// Whether to run tool calls as tasks where the server allows: on 2026-07-28 requests the
    /// tasks extension (`io.modelcontextprotocol/tasks`) is declared, so a server may answer a
    /// `tools/call` with a task; a 2025-11-25 server that runs calls as tasks is asked for one
    /// (`params.task`) for each tool that allows it (`execution.taskSupport`; a tool that
    /// requires one always gets one). [`Client::call_tool`](super::Client::call_tool) follows
    /// the task to its end. Default false.
    pub tasks: bool,
    /// How long `call_tool` follows a task before it cancels it (`tasks/cancel`) and gives up
    /// with a timeout (a 2025-11-25 task is asked to be kept as long). Default 1 hour.
    pub task_timeout: Duration,
    /// How many times a 2026-07-28 request over HTTP whose response stream broke before its
    /// answer is sent again, as a new request with a new id (HTTP-17: such streams cannot be
    /// resumed). Default 2.
    pub reissues: usize,
    /// Sees every JSON-RPC message sent and received (an inspector's log); none by default.
    pub wire_tap: Option<WireTap>,
    /// Whether `http://` URLs are spoken to in HTTP/2 from the first byte (h2c, "prior
    /// knowledge"), as a proxy speaks to its back ends: every request of the connection is then
    /// a stream of one TCP connection. `https://` URLs negotiate HTTP/2 by ALPN whatever this
    /// says. Default false: HTTP/1.1, which every server speaks.
    #[cfg(feature = "http-client")]
    pub http2_prior_knowledge: bool,
    /// Certificate authorities trusted for `https://` servers besides the built-in roots
    /// (webpki's): for a server whose certificate a private authority signed. Default none.
    #[cfg(feature = "http-client")]
    pub root_certificates: Vec<reqwest::Certificate>,
    /// How many list pages fetched over GET are kept with their tags for revalidation
    /// (`Client::list_over_get`, experimental); past it they are all forgotten. Each is at most
    /// `limits.max_message_bytes`. Default 16.
    #[cfg(all(feature = "experimental", feature = "http-client"))]
    pub max_kept_list_pages: usize,
    /// Whether the client keeps the definition tags of its listings and sends them back with
    /// each call (experimental, `modelctx_protocol::definition_tags`): a server that tags its
    /// definitions then refuses a call built on changed ones (`ClientError::stale_definitions`)
    /// and the stale listings are fetched again. Default false.
    #[cfg(feature = "experimental")]
    pub known_tags: bool,
}

impl ClientOptions {
    /// Defaults for a client called `info`.
    pub fn new(info: Implementation) -> Self {
        Self {
            info,
            mode: EraMode::Auto,
            request_timeout: Duration::from_secs(60),
            probe_timeout: Duration::from_secs(5),
            shutdown_grace: Duration::from_secs(2),
            limits: ParseLimits::default(),
            handlers: ClientHandlers::default(),
            max_listing_bytes: 16 * 1024 * 1024,
            max_input_rounds: 8,
            reset_timeout_on_progress: true,
            #[cfg(feature = "http-client")]
            auth: None,
            #[cfg(feature = "validation")]
            validate_arguments: false,
            tasks: false,
            task_timeout: Duration::from_secs(3600),
            reissues: 2,
            wire_tap: None,
            #[cfg(feature = "http-client")]
            http2_prior_knowledge: false,
            #[cfg(feature = "http-client")]
            root_certificates: Vec::new(),
            #[cfg(all(feature = "experimental", feature = "http-client"))]
            max_kept_list_pages: 16,
            #[cfg(feature = "experimental")]
            known_tags: false,
        }
    }
}

/// What the connection settled on, and what the server said of itself.
#[derive(Clone, Debug)]
pub struct ServerDescription {
    /// The protocol version in use.
    pub version: ProtocolVersion,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// The server software, when it said.
    pub info: Option<Implementation>,
    /// How to use the server, when it said.
    pub instructions: Option<String>,
}
