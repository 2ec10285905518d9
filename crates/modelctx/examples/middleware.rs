//! MCP middleware, end to end: a server with `tower`'s concurrency limit, load shedding and
//! timeout, a per-caller rate limit, a guard and a layer written by hand (one refuses clients
//! that do not say who they are, the other the tools an operator switched off) and an audit
//! hook, served over Streamable HTTP on 127.0.0.1 and called by modelctx's own client.
//!
//! Run it with `cargo run -p modelctx --example middleware`; docs/middleware.md explains each
//! part, quoting this file (its blocks are checked to be this file's, by scripts/guide.sh).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use modelctx::client::{Client, ClientOptions};
use modelctx::server::middleware::tower::limit::ConcurrencyLimitLayer;
use modelctx::server::middleware::tower::load_shed::LoadShedLayer;
use modelctx::server::middleware::tower::timeout::TimeoutLayer;
use modelctx::server::middleware::tower::{Layer, Service};
use modelctx::server::middleware::{Audit, Guard, Guarded, McpRequest, RateLimit};
use modelctx::server::{Answer, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::Implementation;
use serde_json::json;

// ANCHOR: guard
/// Refuses requests from clients that do not say who they are; logs slow answers.
#[derive(Clone)]
struct Known;

impl Guard for Known {
    type Pending = std::time::Instant;

    fn before(&self, request: &McpRequest) -> Result<Self::Pending, ErrorObject> {
        match request.ctx.client_info() {
            Some(_) => Ok(std::time::Instant::now()),
            None => Err(ErrorObject::invalid_request("send clientInfo in _meta to use this server")),
        }
    }

    fn after(started: Self::Pending, _answered: &Result<Answer, ErrorObject>) {
        if started.elapsed().as_secs() >= 5 {
            eprintln!("a slow request: {:?}", started.elapsed());
        }
    }
}

impl<S> Layer<S> for Known {
    type Service = Guarded<S, Known>;

    fn layer(&self, inner: S) -> Self::Service {
        Guarded::new(inner, self.clone())
    }
}
// ANCHOR_END: guard

// ANCHOR: own_layer
/// A layer of our own: `tools/call` of a switched-off tool is refused before it runs.
#[derive(Clone)]
struct SwitchedOff(Arc<BTreeSet<String>>);

impl<S> Layer<S> for SwitchedOff {
    type Service = SwitchedOffService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SwitchedOffService { inner, off: self.0.clone() }
    }
}

/// The service of [`SwitchedOff`]: it wraps the next service (`inner`) and decides per request.
#[derive(Clone)]
struct SwitchedOffService<S> {
    inner: S,
    off: Arc<BTreeSet<String>>,
}

impl<S> Service<McpRequest> for SwitchedOffService<S>
where
    S: Service<McpRequest, Response = Answer, Error = ErrorObject>,
    S::Future: Send + 'static,
{
    type Response = Answer;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, Result<Answer, ErrorObject>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ErrorObject>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if request.method == Method::CallTool && request.target().is_some_and(|tool| self.off.contains(tool))
        {
            let refusal = ErrorObject::invalid_params(format!(
                "tool {:?} is switched off on this server",
                request.target().unwrap_or_default()
            ));
            return Box::pin(std::future::ready(Err(refusal)));
        }
        Box::pin(self.inner.call(request))
    }
}
// ANCHOR_END: own_layer

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: layers
    let build = ToolDef::new("build", || async { "built" })
        .layer(ConcurrencyLimitLayer::new(2)) // two builds at once…
        .layer(LoadShedLayer::new()); // …and a third is refused at once, not queued
    let search = ToolDef::new("search", || async { "found" })
        // 2 searches a minute per client
        .layer(RateLimit::new(2, Duration::from_secs(60)).per_caller(|request| {
            request.ctx.client_info().map(|client| client.name.clone()).unwrap_or_default()
        }));
    let server = Server::builder("middleware-example", "1.0")
        .tool(ToolDef::new("echo", || async { "echo" }))
        .tool(ToolDef::new("deploy", || async { "deployed" }))
        .tool(build)
        .tool(search)
        .layer(SwitchedOff(Arc::new(BTreeSet::from(["deploy".to_owned()]))))
        .layer(Known)
        .layer(TimeoutLayer::new(Duration::from_secs(30)))
        .layer(Audit::new(|record| {
            println!(
                "audit: {} {:?} -> {:?} in {:?}",
                record.method, record.target, record.outcome, record.elapsed
            );
        }))
        .build()?;
    // ANCHOR_END: layers

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), std::future::pending()));

    let client = Client::connect_http(
        &url,
        Default::default(),
        ClientOptions::new(Implementation::new("example", "1")),
    )
    .await?;
    for tool in ["echo", "build", "deploy", "search", "search", "search"] {
        match client.call_tool(tool, json!({})).await {
            Ok(result) => println!("{tool}: {}", serde_json::to_string(&result.content)?),
            Err(error) => println!("{tool}: refused: {error}"),
        }
    }
    Ok(())
}
