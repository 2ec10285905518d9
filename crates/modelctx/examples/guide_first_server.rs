//! The guide's first server (docs/guide/src/first-server.md): one tool, served on stdio.
//!
//! Run it under the CLI, which spawns it and calls the tool:
//! `cargo run -p modelctx-cli -- tools call greet name=Ada -- cargo run -q -p modelctx --example guide_first_server`

// ANCHOR: server
use modelctx::server::{Args, Server};
use modelctx::transport::stdio::serve_stdio;
use schemars::JsonSchema;
use serde::Deserialize;

/// What `greet` takes: its JSON Schema comes from this type.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Greets someone by name.
#[modelctx::tool(read_only)]
async fn greet(Args(GreetArgs { name }): Args<GreetArgs>) -> String {
    format!("Hello, {name}!")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server =
        Server::builder("greeter", "1.0.0").tool(greet_tool()).build().expect("the definitions are valid");
    // Both protocol eras on one stream, until the client closes stdin.
    serve_stdio(server).await
}
// ANCHOR_END: server
