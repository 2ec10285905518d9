//! MCP middleware: every request the method table serves passes through a [`tower::Service`]
//! over [`McpRequest`]s, wrapped in the [`tower::Layer`]s given to the whole server
//! ([`crate::server::ServerBuilder::layer`]) and to one tool, prompt or resource
//! ([`crate::server::ToolDef::layer`] and the like).
//!
//! Any layer whose service answers an [`McpRequest`] with an [`Answer`] fits, whatever its
//! error type: `tower`'s own [`tower::timeout::TimeoutLayer`],
//! [`tower::limit::ConcurrencyLimitLayer`] and [`tower::load_shed::LoadShedLayer`], this
//! module's [`RateLimit`] and [`Audit`], or one of your own. A layer's error becomes the
//! JSON-RPC error of the answer: an [`ErrorObject`] as it is, a timeout or an overload as
//! `-32603` saying so, anything else as `-32603` with its message.
//!
//! Layers see the requests the lifecycle admitted, after the era router and before the
//! method table; the bookkeeping of a 2025-11-25 session (`initialize`, `ping`,
//! `logging/setLevel`, `resources/subscribe`) is answered before them. The lifecycle's own
//! bounds (queue, permits, time from arrival, panics) hold outside every layer.
//!
//! ```
//! use std::time::Duration;
//! use modelctx::server::middleware::tower::timeout::TimeoutLayer;
//! use modelctx::server::middleware::{Audit, RateLimit};
//! use modelctx::server::{Server, ToolDef};
//! use modelctx_protocol::types::Implementation;
//!
//! // Ten searches a minute, whoever asks; every request of the server within 30 s, audited.
//! let search = ToolDef::new("search", || async { "found" })
//!     .layer(RateLimit::new(10, Duration::from_secs(60)));
//! let server = Server::builder("demo", "1.0")
//!     .tool(search)
//!     .layer(TimeoutLayer::new(Duration::from_secs(30)))
//!     .layer(Audit::new(|record| tracing::info!(method = %record.method, outcome = ?record.outcome)))
//!     .build()
//!     .expect("valid definitions");
//! # drop(server);
//! ```

mod around;
mod audit;
mod guard;
pub mod lifecycle;
#[cfg(feature = "rate-limit")]
mod rate_limit;

pub use around::{Around, AroundService};
pub use audit::{Audit, AuditOutcome, AuditRecord, Pending};
pub use guard::{Guard, Guarded};
pub use lifecycle::{ArrivalDeadline, CatchPanic, Turn};
#[cfg(feature = "rate-limit")]
pub use rate_limit::{RateBudget, RateLimit};
#[cfg(feature = "gateway")]
pub(crate) use rate_limit::{describe as describe_rate, over_budget};
/// The `tower` this crate builds on, with its `util`, `timeout`, `limit` and `load-shed`
/// layers.
pub use tower;

use std::pin::Pin;

use futures::future::BoxFuture;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::{JsonObject, Method};
use tower::util::BoxCloneSyncService;
use tower::{BoxError, Layer, Service, ServiceExt};

use super::exchange::Job;
use super::{Answer, RequestContext, Server};
use crate::telemetry::Subject;

/// A request on its way to the method table: what a layer sees.
pub struct McpRequest {
    /// The method, read once from the message: a layer matches on it
    /// (`Method::CallTool`, `Method::ReadResource`, …; an extension's is `Method::Other`).
    pub method: Method,
    /// The params, `_meta` included.
    pub params: Option<JsonObject>,
    /// The request's context: its era, version, client, cancellation.
    pub ctx: RequestContext,
}

impl McpRequest {
    /// What the request is about: the tool of a `tools/call`, the prompt of a `prompts/get`,
    /// the URI of a `resources/read`; `None` for other methods.
    pub fn target(&self) -> Option<&str> {
        let subject = Subject::of(&self.method, self.params.as_ref());
        let uri = subject.uri.filter(|_| self.method == Method::ReadResource);
        subject.tool.or(subject.prompt).or(uri)
    }
}

/// The service a layer wraps: a request in, its answer or JSON-RPC error out.
pub type McpService = BoxCloneSyncService<McpRequest, Answer, ErrorObject>;

/// A [`tower::Layer`] that can wrap an [`McpService`]: implemented for every layer whose
/// service answers [`McpRequest`]s with [`Answer`]s and an error that converts into
/// [`BoxError`].
pub trait McpLayer {
    /// Wraps `inner`, its errors turned into JSON-RPC errors.
    fn wrap(self, inner: McpService) -> McpService;
}

impl<L> McpLayer for L
where
    L: Layer<McpService>,
    L::Service: Service<McpRequest, Response = Answer> + Clone + Send + Sync + 'static,
    <L::Service as Service<McpRequest>>::Error: Into<BoxError>,
    <L::Service as Service<McpRequest>>::Future: Send + 'static,
{
    fn wrap(self, inner: McpService) -> McpService {
        BoxCloneSyncService::new(self.layer(inner).map_err(|error| into_error(error.into())))
    }
}

/// The JSON-RPC error a layer's error becomes.
fn into_error(error: BoxError) -> ErrorObject {
    let error = match error.downcast::<ErrorObject>() {
        Ok(error) => return *error,
        Err(other) => other,
    };
    if error.is::<tower::timeout::error::Elapsed>() {
        ErrorObject::internal("the request ran past the time limit a layer sets, and was cancelled")
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        ErrorObject::internal("server busy: a layer's concurrency limit is reached; try again later")
    } else {
        ErrorObject::internal(error)
    }
}

/// What guards the requests about the server or one definition: its layers, applied as they
/// were added (the last one added is the outermost, as in `axum`; `None` when there are
/// none, so a request without layers costs nothing), and the OAuth scopes its callers need.
#[derive(Clone, Default)]
pub(crate) struct Layered {
    service: Option<McpService>,
    scopes: Vec<String>,
}

impl Layered {
    /// Adds `layer` around the layers so far, the first of them around `innermost`.
    pub(crate) fn wrap(self, layer: impl McpLayer, innermost: fn() -> McpService) -> Self {
        Self { service: Some(layer.wrap(self.service.unwrap_or_else(innermost))), scopes: self.scopes }
    }

    /// Adds `scopes` to those a caller needs.
    pub(crate) fn require(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self
    }

    /// Whether any layer was added.
    pub(crate) fn is_some(&self) -> bool {
        self.service.is_some()
    }

    /// The scopes a caller needs.
    #[cfg(feature = "http-server")]
    pub(crate) fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// A service to call once, if any layer was added.
    fn service(&self) -> Option<McpService> {
        self.service.clone()
    }
}

/// Declares `layer` and `scopes`, the setters of what guards a definition (a field `layers`).
macro_rules! layer_setter {
    () => {
        /// Wraps the requests about this definition in `layer` (see
        /// [`crate::server::middleware`]), inside the server's layers. The last layer added
        /// is the outermost.
        pub fn layer(mut self, layer: impl $crate::server::middleware::McpLayer) -> Self {
            self.layers = self.layers.wrap(layer, $crate::server::middleware::method_table);
            self
        }

        /// Requires `scopes` of the caller's access token. Over HTTP with an authenticator
        /// (`HttpOptions::authenticator`), a request about this definition from a caller
        /// without them is refused `403` with an `insufficient_scope` challenge naming them,
        /// before it is admitted. Transports without authorization (stdio) have no
        /// principal and do not apply them.
        pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
            self.layers = self.layers.require(scopes);
            self
        }
    };
}
pub(crate) use layer_setter;

/// `work` in the lifecycle's own steps, composed directly: no boxed service between the
/// three, and what they wrap boxed (by the caller), so that each step moves a pointer rather
/// than the whole future.
fn in_lifecycle<'a>(
    method: &'a Method,
    ctx: &'a RequestContext,
    work: Pin<Box<impl Future<Output = Result<Answer, ErrorObject>> + Send + 'a>>,
) -> impl Future<Output = Result<Answer, ErrorObject>> + Send + 'a {
    let served = lifecycle::in_turn(ctx, work);
    lifecycle::catching_panic(method, lifecycle::within_deadline(ctx, served))
}

/// The innermost service of a definition's layers: the method table.
pub(crate) fn method_table() -> McpService {
    BoxCloneSyncService::new(tower::service_fn(|request: McpRequest| async move {
        let McpRequest { method, params, ctx } = request;
        let server = ctx.server().clone();
        server.answer(ctx, method, params).await
    }))
}

/// The innermost service of the server's layers: on to the layers of the request's target.
pub(crate) fn router() -> McpService {
    BoxCloneSyncService::new(tower::service_fn(|request: McpRequest| async move {
        let server = request.ctx.server().clone();
        server.route(request).await
    }))
}

impl Server {
    /// Serves an admitted request through the lifecycle's layers (unless the builder left them
    /// out), the server's layers, its target's layers and the method table.
    pub(crate) async fn serve(&self, request: McpRequest) -> Result<Answer, ErrorObject> {
        if !self.inner.lifecycle_layers {
            return self.serve_layers(request).await;
        }
        let (method, ctx) = (request.method.clone(), request.ctx.clone());
        in_lifecycle(&method, &ctx, Box::pin(self.serve_layers(request))).await
    }

    /// Serves what an admitted request asks: a request with JSON params as [`Server::serve`]
    /// does, a `tools/call` read typed through the lifecycle's layers to the method table (its
    /// server has no other layer: [`Server::read_typed`]). Boxed: the future is large, and the
    /// request's own (its telemetry, its cancellation) moves it as it starts; a box moves as a
    /// pointer.
    pub(crate) fn serve_job(&self, job: Job) -> BoxFuture<'_, Result<Answer, ErrorObject>> {
        match job {
            Job::Request(request) => Box::pin(self.serve(request)),
            Job::ToolCall { ctx, name, arguments } => Box::pin(async move {
                let work = Box::pin(self.typed_tool_call(ctx.clone(), name, arguments));
                in_lifecycle(&Method::CallTool, &ctx, work).await
            }),
        }
    }

    /// Serves a request through the server's layers, its target's layers and the method table.
    async fn serve_layers(&self, request: McpRequest) -> Result<Answer, ErrorObject> {
        match self.inner.layers.service() {
            Some(service) => service.oneshot(request).await,
            None => self.route(request).await,
        }
    }

    /// The server as a `tower::Service` over the requests a transport admitted: through the
    /// lifecycle's layers (unless left out), the server's, its targets' and the method table.
    pub fn into_service(self) -> McpService {
        BoxCloneSyncService::new(tower::service_fn(move |request: McpRequest| {
            let server = self.clone();
            async move { server.serve(request).await }
        }))
    }

    /// Serves a request through its target's layers, if it has any, and the method table.
    async fn route(&self, request: McpRequest) -> Result<Answer, ErrorObject> {
        match self.target_layers(&request) {
            Some(service) => service.oneshot(request).await,
            None => {
                let McpRequest { method, params, ctx } = request;
                self.answer(ctx, method, params).await
            }
        }
    }

    /// The scopes a caller needs for a request of `method` about `subject`: those of the
    /// tool, prompt or resource it is about (none for other methods, or an unknown target).
    #[cfg(feature = "http-server")]
    pub(crate) fn required_scopes(&self, method: &Method, subject: &Subject<'_>) -> Vec<String> {
        let registry = self.read_registry();
        let guard = match method {
            Method::CallTool => subject.tool.and_then(|name| registry.tools.get(name)).map(|t| &t.layers),
            Method::GetPrompt => {
                subject.prompt.and_then(|name| registry.prompts.get(name)).map(|p| &p.layers)
            }
            Method::ReadResource => {
                subject.uri.and_then(|uri| registry.find_resource(uri)).map(|found| found.layers)
            }
            _ => None,
        };
        guard.map(|guard| guard.scopes().to_vec()).unwrap_or_default()
    }

    /// The layers of the tool, prompt or resource the request is about. Looked up only
    /// once some definition has layers.
    fn target_layers(&self, request: &McpRequest) -> Option<McpService> {
        if !self.inner.layered_targets.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let target = request.target()?;
        let registry = self.read_registry();
        match request.method {
            Method::CallTool => registry.tools.get(target)?.layers.service(),
            Method::GetPrompt => registry.prompts.get(target)?.layers.service(),
            _ => registry.find_resource(target)?.layers.service(),
        }
    }
}

#[cfg(test)]
mod tests {
    use modelctx_protocol::jsonrpc::{Request, RequestId};
    use serde_json::json;

    use super::*;
    use crate::server::{Tokens, ToolDef};

    /// The server as a `tower::Service` answers a request a transport made, through its
    /// layers: here one that marks the answer, so the answer shows it passed.
    #[tokio::test]
    async fn the_server_as_a_service_answers_through_its_layers() {
        let marked = tower::util::MapResponseLayer::new(|answer: Answer| {
            let mut result = answer.into_object();
            result.insert("marked".into(), json!(true));
            Answer::from(result)
        });
        let server = Server::builder("service", "1")
            .tool(ToolDef::new("echo", || async { "echo" }))
            .layer(marked)
            .build()
            .unwrap();
        let params = json!({"name": "echo", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}});
        let request = Request {
            id: RequestId::Number(1),
            method: Method::CallTool,
            params: params.as_object().cloned(),
        };
        let (sink, _messages) = tokio::sync::mpsc::channel(1);
        let sink = sink.into();
        let caller =
            crate::server::dispatch::Caller { session_id: None, principal: None, network_transport: "pipe" };
        let ctx = server.modern_context(&request, caller, Tokens::default(), sink).unwrap();
        let request = McpRequest { method: request.method, params: request.params, ctx };
        let answer = server.into_service().oneshot(request).await.unwrap().into_object();
        assert_eq!(answer["content"][0]["text"], "echo");
        assert_eq!(answer["marked"], true);
    }
}
