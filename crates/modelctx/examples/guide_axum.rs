//! The guide's chapter on embedding (docs/guide/src/axum.md): the MCP endpoint as one route
//! of an axum application, beside the application's own routes, then called by modelctx's
//! client.
//!
//! Run it with `cargo run -p modelctx --example guide_axum`.

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::routing::{any, get};
use modelctx::client::{Client, ClientOptions};
use modelctx::server::{Server, ToolDef};
use modelctx::transport::http::{HttpOptions, McpHttp};
use modelctx_protocol::types::Implementation;
use serde_json::json;

// ANCHOR: app
/// The application: its own routes, and MCP at `/mcp`.
fn app(server: Server) -> Router {
    let mcp = McpHttp::new(server, HttpOptions::default());
    Router::new().route("/health", get(|| async { "ok" })).route(
        "/mcp",
        // POST for requests, GET for a legacy session's stream, DELETE to end a session.
        any(move |request: Request| {
            let mcp = mcp.clone();
            async move { mcp.handle(request).await.map(Body::new) }
        }),
    )
}
// ANCHOR_END: app

#[tokio::main]
async fn main() {
    let server = Server::builder("embedded", "1.0.0")
        .tool(
            ToolDef::new("uptime", || async { "up since this example started" }).description("Says how long"),
        )
        .build()
        .expect("the definitions are valid");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app(server)).await });

    let options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
    let client = Client::connect_http(&format!("http://{address}/mcp"), Default::default(), options)
        .await
        .expect("connected");
    let result = client.call_tool("uptime", json!({})).await.expect("called");
    println!("{}", serde_json::to_value(&result.content).unwrap()[0]["text"]);
}
