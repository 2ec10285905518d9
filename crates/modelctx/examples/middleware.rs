//! MCP middleware, end to end: a server with a layer written by hand (one that refuses the
//! tools an operator switched off), `tower`'s timeout, a per-tool rate limit and an audit
//! hook, served over Streamable HTTP on 127.0.0.1 and called by modelctx's own client.
//!
//! Run it with `cargo run -p modelctx --example middleware`; docs/middleware.md explains each
//! part.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use modelctx::client::{Client, ClientOptions};
use modelctx::server::middleware::tower::timeout::TimeoutLayer;
use modelctx::server::middleware::tower::{Layer, Service};
use modelctx::server::middleware::{Audit, McpRequest, RateLimit};
use modelctx::server::{Answer, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::Implementation;
use serde_json::json;

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
    let server = Server::builder("middleware-example", "1.0")
        .tool(ToolDef::new("echo", || async { "echo" }))
        .tool(ToolDef::new("deploy", || async { "deployed" }))
        .tool(ToolDef::new("search", || async { "found" }).layer(RateLimit::new(2, Duration::from_secs(60))))
        .layer(SwitchedOff(Arc::new(BTreeSet::from(["deploy".to_owned()]))))
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
    for tool in ["echo", "deploy", "search", "search", "search"] {
        match client.call_tool(tool, json!({})).await {
            Ok(result) => println!("{tool}: {}", serde_json::to_string(&result.content)?),
            Err(error) => println!("{tool}: refused: {error}"),
        }
    }
    Ok(())
}
