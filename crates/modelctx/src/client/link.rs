//! How a client reaches its server: a stdio stream pair or a Streamable HTTP endpoint, behind
//! one set of calls.

#[cfg(feature = "http-client")]
use std::collections::BTreeMap;
#[cfg(feature = "http-client")]
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
#[cfg(feature = "http-client")]
use std::time::Instant;

#[cfg(feature = "http-client")]
use modelctx_protocol::era::client::http_probe_verdict;
use modelctx_protocol::era::client::{EraVerdict, ProbeOutcome, stdio_probe_verdict};
#[cfg(feature = "http-client")]
use modelctx_protocol::headers::validate_x_mcp_headers;
use modelctx_protocol::jsonrpc::Notification;
use modelctx_protocol::model::Tool;
use modelctx_protocol::{JsonObject, Method, ProtocolVersion};
use serde_json::Value;
use tokio::sync::broadcast;

use super::ClientError;
use super::error::Kind;
#[cfg(feature = "http-client")]
use super::http::HttpLink;
use super::rpc::Rpc;

/// The transport under a client.
pub(super) enum Link {
    /// One JSON-RPC message per line (a child process, a socket, a pipe).
    Stdio(Rpc),
    /// Streamable HTTP.
    #[cfg(feature = "http-client")]
    Http(Arc<HttpLink>),
}

// Over stdio what only HTTP needs to know (the session stream, the version in use, the
// `Mcp-Param-*` arguments) is not used.
#[cfg_attr(not(feature = "http-client"), allow(unused_variables))]
impl Link {
    /// The OpenTelemetry `network.transport` of the link: `pipe` (stdio), `tcp` (HTTP).
    pub(super) fn network_transport(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "pipe",
            #[cfg(feature = "http-client")]
            Self::Http(http) if http.is_pipe() => "pipe",
            #[cfg(feature = "http-client")]
            Self::Http(_) => "tcp",
        }
    }

    pub(super) async fn request(
        &self,
        method: &Method,
        params: Option<JsonObject>,
        timeout: Duration,
    ) -> Result<JsonObject, ClientError> {
        match self {
            Self::Stdio(rpc) => rpc.request(method, params, timeout).await,
            #[cfg(feature = "http-client")]
            Self::Http(http) => http.request(method, params, timeout).await,
        }
    }

    pub(super) async fn notify(
        &self,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<(), ClientError> {
        match self {
            Self::Stdio(rpc) => rpc.notify(method, params).await,
            #[cfg(feature = "http-client")]
            Self::Http(http) => http.notify(method, params).await,
        }
    }

    pub(super) fn notifications(&self) -> broadcast::Receiver<Notification> {
        match self {
            Self::Stdio(rpc) => rpc.notifications(),
            #[cfg(feature = "http-client")]
            Self::Http(http) => http.notifications(),
        }
    }

    /// Opens what a fresh legacy session listens on: over HTTP, its standalone stream.
    pub(super) async fn open_session(&self, wait: Duration) {
        #[cfg(feature = "http-client")]
        if let Self::Http(http) = self {
            http.open_session_stream(wait).await;
        }
    }

    /// Whether this server was found legacy before, in this process: the HTTP endpoint's
    /// verdict is cached (CHECKLIST §10.1), so it is not probed again; a stdio server is a new
    /// process each time and is always probed.
    pub(super) fn known_legacy(&self) -> bool {
        match self {
            Self::Stdio(_) => false,
            #[cfg(feature = "http-client")]
            // Each child is a new process: as over stdio, its era is not remembered.
            Self::Http(http) if http.is_pipe() => false,
            #[cfg(feature = "http-client")]
            Self::Http(http) => legacy_endpoints()
                .get(http.url().as_str())
                .is_some_and(|found| found.elapsed() < LEGACY_MEMORY),
        }
    }

    /// Remembers that this server turned out legacy.
    pub(super) fn found_legacy(&self) {
        #[cfg(feature = "http-client")]
        if let Self::Http(http) = self
            && !http.is_pipe()
        {
            let mut endpoints = legacy_endpoints();
            endpoints.retain(|_, found| found.elapsed() < LEGACY_MEMORY);
            if endpoints.len() >= LEGACY_ENDPOINTS_KEPT
                && let Some(oldest) =
                    endpoints.iter().min_by_key(|(_, found)| **found).map(|(url, _)| url.clone())
            {
                endpoints.remove(&oldest);
            }
            endpoints.insert(http.url().to_string(), Instant::now());
        }
    }

    /// Records the version in use.
    pub(super) fn settle(&self, version: ProtocolVersion) {
        #[cfg(feature = "http-client")]
        if let Self::Http(http) = self {
            http.settle(version);
        }
    }

    /// Learns which tool arguments travel as `Mcp-Param-*` headers; over HTTP, tools whose
    /// `x-mcp-header` annotations are invalid are dropped (HTTP-27).
    #[cfg_attr(not(feature = "http-client"), allow(clippy::ptr_arg))]
    pub(super) fn learn_param_headers(&self, tools: &mut Vec<Tool>) {
        #[cfg(feature = "http-client")]
        if let Self::Http(http) = self {
            tools.retain(|tool| match validate_x_mcp_headers(&tool.input_schema) {
                Ok(params) => {
                    http.learn_param_headers(&tool.name, params);
                    true
                }
                Err(e) => {
                    tracing::warn!(tool = %tool.name, error = %e, "dropping a tool whose x-mcp-header annotations are invalid");
                    false
                }
            });
        }
    }

    /// Sends the `server/discover` probe at `version` and reads the verdict for a client that
    /// speaks the `known` versions (CHECKLIST §10.1), with the result when there is one.
    /// `answered` says whether the verdict came from the server's answer, not from the probe's
    /// time running out.
    pub(super) async fn probe(
        &self,
        params: JsonObject,
        version: ProtocolVersion,
        known: &[ProtocolVersion],
        timeout: Duration,
    ) -> Result<Probed, ClientError> {
        match self {
            Self::Stdio(rpc) => {
                let probe = rpc.request(&Method::Discover, Some(params), timeout).await;
                let verdict = match &probe {
                    Ok(result) => {
                        stdio_probe_verdict(ProbeOutcome::Result(&Value::Object(result.clone())), known)
                    }
                    Err(error) => match error.kind() {
                        Kind::Rpc(error) => stdio_probe_verdict(ProbeOutcome::Error(error), known),
                        Kind::Timeout { .. } => stdio_probe_verdict(ProbeOutcome::TimedOut, known),
                        _ => return Err(error.clone()),
                    },
                };
                let answered = !probe.as_ref().is_err_and(ClientError::is_timeout);
                Ok(Probed { verdict, result: probe.ok(), answered })
            }
            #[cfg(feature = "http-client")]
            Self::Http(http) => {
                http.settle(version);
                let posted = tokio::time::timeout(
                    timeout,
                    http.post_request(http.fresh_id(), &Method::Discover, Some(params)),
                )
                .await;
                let answered = posted.is_ok();
                let verdict = match posted {
                    Err(_) => (EraVerdict::Legacy { try_http_sse: false }, None),
                    Ok(posted) => {
                        let posted = posted?;
                        // Refused authorization says nothing of the era: it is the error.
                        if matches!(posted.status, 401 | 403) {
                            return Err(ClientError::http(
                                posted.status,
                                String::from_utf8_lossy(&posted.body).into_owned(),
                            ));
                        }
                        match posted.answer {
                            Some(Ok(result)) if (200..300).contains(&posted.status) => {
                                let value = Value::Object(result.clone());
                                (stdio_probe_verdict(ProbeOutcome::Result(&value), known), Some(result))
                            }
                            Some(Err(error)) if posted.body.is_empty() => {
                                (stdio_probe_verdict(ProbeOutcome::Error(&error), known), None)
                            }
                            _ => (http_probe_verdict(posted.status, &posted.body, known), None),
                        }
                    }
                };
                if !matches!(verdict.0, EraVerdict::Modern(_)) {
                    http.unsettle();
                }
                Ok(Probed { verdict: verdict.0, result: verdict.1, answered })
            }
        }
    }
}

/// How a `server/discover` probe ended.
pub(super) struct Probed {
    /// What it says of the era.
    pub(super) verdict: EraVerdict,
    /// The result, when the server answered with one.
    pub(super) result: Option<JsonObject>,
    /// Whether the server answered (rather than the probe's time running out).
    pub(super) answered: bool,
}

#[cfg(feature = "http-client")]
/// HTTP endpoints whose answer to a probe showed them legacy, and when: remembered for
/// [`LEGACY_MEMORY`], at most [`LEGACY_ENDPOINTS_KEPT`] of them.
static LEGACY_ENDPOINTS: Mutex<BTreeMap<String, Instant>> = Mutex::new(BTreeMap::new());

#[cfg(feature = "http-client")]
/// How long a legacy verdict spares later connections the probe: a server may be upgraded.
const LEGACY_MEMORY: Duration = Duration::from_secs(600);

#[cfg(feature = "http-client")]
/// At most this many endpoints are remembered; the oldest verdict goes first.
const LEGACY_ENDPOINTS_KEPT: usize = 1024;

#[cfg(feature = "http-client")]
fn legacy_endpoints() -> MutexGuard<'static, BTreeMap<String, Instant>> {
    LEGACY_ENDPOINTS.lock().unwrap_or_else(PoisonError::into_inner)
}

impl super::Client {
    /// The transport under this client, as a host's configuration names it: `stdio`,
    /// `stdio-v2` (HTTP over stdio, experimental), `http` (Streamable HTTP) or `sse` (the
    /// deprecated HTTP+SSE).
    pub fn transport(&self) -> &'static str {
        #[cfg(feature = "http-client")]
        if self.session.is_some() {
            return "sse";
        }
        match &self.link {
            Link::Stdio(_) => "stdio",
            #[cfg(feature = "http-client")]
            Link::Http(http) if http.is_pipe() => "stdio-v2",
            #[cfg(feature = "http-client")]
            Link::Http(_) => "http",
        }
    }
}
