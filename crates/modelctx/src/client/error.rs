//! What can go wrong in a client call.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;

/// Why a client call failed. Opaque: ask with the predicates (`is_timeout`, `is_auth`, …)
/// and accessors (`rpc_error`, `http_status`, …), so a new case never breaks your code.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientError(Box<Kind>);

/// The cases of [`ClientError`], for this crate's own decisions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// The connection ended before the answer (the server exited or closed its output).
    Closed(String),
    /// No answer in time; the request was cancelled on the server.
    Timeout { method: Method, after: Duration },
    /// The HTTP exchange failed (connection refused, broken stream); `source` is the error
    /// underneath (`reqwest`'s, or an I/O error).
    #[cfg_attr(not(feature = "http-client"), expect(dead_code, reason = "only HTTP makes it"))]
    Transport { detail: String, source: Option<Cause> },
    /// The server answered with an HTTP status and no JSON-RPC answer (the body, as text).
    #[cfg_attr(not(feature = "http-client"), expect(dead_code, reason = "only HTTP makes it"))]
    Http { status: u16, detail: String },
    /// The server could not be started; `source` is the I/O error underneath.
    Spawn { detail: String, source: Option<Cause> },
    /// The server and this client share no protocol version (those the server named).
    Incompatible { supported: Vec<String> },
    /// The call's parameters were not what the protocol needs.
    InvalidParams(String),
    /// The server did not declare the capability `method` needs, so it was not sent (LIFE-08).
    Undeclared { capability: &'static str, method: Method },
    /// The server wants credentials this client could not get (the OAuth flow failed, or a
    /// refusal went on after fresh credentials).
    #[cfg_attr(
        not(any(feature = "auth", feature = "http-client")),
        expect(dead_code, reason = "only authorization makes it")
    )]
    Auth(String),
    /// The server's answer did not have the shape its method (when known) defines.
    InvalidResult { method: Option<Method>, detail: String },
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

impl From<Kind> for ClientError {
    fn from(kind: Kind) -> Self {
        Self(Box::new(kind))
    }
}

impl ClientError {
    /// The case, for this crate's own decisions.
    pub(crate) fn kind(&self) -> &Kind {
        &self.0
    }

    /// The server answered with `error`.
    pub(crate) fn rpc(error: ErrorObject) -> Self {
        Kind::Rpc(error).into()
    }

    /// The connection ended before the answer.
    pub(crate) fn closed(why: impl Into<String>) -> Self {
        Kind::Closed(why.into()).into()
    }

    /// `method` got no answer within `after`.
    pub(crate) fn timeout(method: Method, after: Duration) -> Self {
        Kind::Timeout { method, after }.into()
    }

    /// A failed HTTP exchange: `detail` says what was done, `source` what failed underneath.
    #[cfg(feature = "http-client")]
    pub(crate) fn transport(
        detail: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Kind::Transport { detail: detail.into(), source: Some(Cause::new(source)) }.into()
    }

    /// The server answered HTTP `status` with no JSON-RPC answer; `detail` is the body.
    #[cfg(feature = "http-client")]
    pub(crate) fn http(status: u16, detail: impl Into<String>) -> Self {
        Kind::Http { status, detail: detail.into() }.into()
    }

    /// A server that could not be started, with the error underneath when there is one.
    pub(crate) fn spawn(detail: impl Into<String>, source: Option<std::io::Error>) -> Self {
        Kind::Spawn { detail: detail.into(), source: source.map(Cause::new) }.into()
    }

    /// The server speaks none of this client's versions; `supported` are those it named.
    pub(crate) fn incompatible(supported: Vec<String>) -> Self {
        Kind::Incompatible { supported }.into()
    }

    /// The call's parameters were not what the protocol needs.
    pub(crate) fn invalid_params(why: impl Into<String>) -> Self {
        Kind::InvalidParams(why.into()).into()
    }

    /// The server did not declare `capability`, which `method` needs.
    pub(crate) fn undeclared(capability: &'static str, method: Method) -> Self {
        Kind::Undeclared { capability, method }.into()
    }

    /// Credentials could not be had.
    #[cfg(any(feature = "auth", feature = "http-client"))]
    pub(crate) fn auth(why: impl Into<String>) -> Self {
        Kind::Auth(why.into()).into()
    }

    /// The server's result for `method` is malformed: `detail` says how.
    pub(crate) fn invalid_result(method: Method, detail: impl Into<String>) -> Self {
        Kind::InvalidResult { method: Some(method), detail: detail.into() }.into()
    }

    /// What the server sent is malformed, outside any one method's result: `detail` says how.
    #[cfg(feature = "http-client")]
    pub(crate) fn malformed(detail: impl Into<String>) -> Self {
        Kind::InvalidResult { method: None, detail: detail.into() }.into()
    }

    /// The lists whose definitions changed, when the server refused the request for stale
    /// definition tags (experimental, `modelctx_protocol::definition_tags`): list them again,
    /// then decide whether to retry.
    #[cfg(feature = "experimental")]
    pub fn stale_definitions(&self) -> Option<Vec<Method>> {
        self.rpc_error().and_then(modelctx_protocol::definition_tags::stale_in_error)
    }

    /// The server's JSON-RPC error, when it answered with one.
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match self.kind() {
            Kind::Rpc(error) => Some(error),
            _ => None,
        }
    }

    /// Whether the server answered with a JSON-RPC error.
    pub fn is_rpc(&self) -> bool {
        matches!(self.kind(), Kind::Rpc(_))
    }

    /// Whether authorization failed.
    pub fn is_auth(&self) -> bool {
        matches!(self.kind(), Kind::Auth(_))
    }

    /// Whether the request got no answer in time (and was cancelled on the server).
    pub fn is_timeout(&self) -> bool {
        matches!(self.kind(), Kind::Timeout { .. })
    }

    /// Whether the connection ended before the answer.
    pub fn is_closed(&self) -> bool {
        matches!(self.kind(), Kind::Closed(_))
    }

    /// Whether the HTTP exchange itself failed, or the server answered a bare HTTP status.
    pub fn is_transport(&self) -> bool {
        matches!(self.kind(), Kind::Transport { .. } | Kind::Http { .. })
    }

    /// The HTTP status, when the server answered one without a JSON-RPC answer.
    pub fn http_status(&self) -> Option<u16> {
        match self.kind() {
            Kind::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the server could not be started.
    pub fn is_spawn(&self) -> bool {
        matches!(self.kind(), Kind::Spawn { .. })
    }

    /// Whether the server speaks no protocol version this client does.
    pub fn is_incompatible(&self) -> bool {
        matches!(self.kind(), Kind::Incompatible { .. })
    }

    /// Whether the call's own parameters were refused before anything was sent.
    pub fn is_invalid_params(&self) -> bool {
        matches!(self.kind(), Kind::InvalidParams(_))
    }

    /// The capability the server did not declare, when the call needed one and so was not
    /// sent (`"tools"`, `"resources.subscribe"`, …).
    pub fn undeclared_capability(&self) -> Option<&str> {
        match self.kind() {
            Kind::Undeclared { capability, .. } => Some(capability),
            _ => None,
        }
    }

    /// Whether the server's result did not have the shape its method defines.
    pub fn is_invalid_result(&self) -> bool {
        matches!(self.kind(), Kind::InvalidResult { .. })
    }

    /// The method of the request that failed, where the error names it (a time-out, an
    /// undeclared capability, a malformed result).
    pub fn method(&self) -> Option<&Method> {
        match self.kind() {
            Kind::Timeout { method, .. } | Kind::Undeclared { method, .. } => Some(method),
            Kind::InvalidResult { method, .. } => method.as_ref(),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            Kind::Rpc(error) => write!(f, "the server answered {}: {}", error.code.0, error.message),
            Kind::Closed(why) => write!(f, "the connection ended: {why}"),
            Kind::Timeout { method, after } => {
                write!(f, "{method} got no answer within {}s and was cancelled", after.as_secs_f64())
            }
            Kind::Transport { detail, .. } => write!(f, "the HTTP exchange failed: {detail}"),
            Kind::Http { status, detail } => write!(f, "the server answered HTTP {status}: {detail}"),
            Kind::Spawn { detail, .. } => write!(f, "the server could not be started: {detail}"),
            Kind::Incompatible { supported } if supported.is_empty() => {
                f.write_str("the server speaks no protocol version this client does")
            }
            Kind::Incompatible { supported } => {
                write!(f, "the server speaks only {}, none of which this client does", supported.join(", "))
            }
            Kind::InvalidParams(why) => write!(f, "invalid parameters: {why}"),
            Kind::Undeclared { capability, method } => write!(
                f,
                "the server did not declare the `{capability}` capability, so {method} is not sent (LIFE-08)"
            ),
            Kind::Auth(why) => write!(f, "authorization failed: {why}"),
            Kind::InvalidResult { method: Some(method), detail } => {
                write!(f, "the server's {method} result is malformed: {detail}")
            }
            Kind::InvalidResult { method: None, detail } => {
                write!(f, "the server's answer is malformed: {detail}")
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.kind() {
            Kind::Rpc(error) => Some(error),
            Kind::Transport { source, .. } | Kind::Spawn { source, .. } => {
                source.as_ref().map(|cause| &*cause.0 as &(dyn std::error::Error + 'static))
            }
            _ => None,
        }
    }
}
