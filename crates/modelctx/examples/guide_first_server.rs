//! The guide's first server (docs/guide/src/first-server.md): one tool, served on stdio.
//!
//! Run it under the CLI, which spawns it and calls the tool:
//! `cargo run -p modelctx-cli -- tools call greet name=Ada -- cargo run -q -p modelctx --example guide_first_server`

// ANCHOR: server
use modelctx::server::Server;

/// Greets someone by name.
#[modelctx::tool(read_only)]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn main() -> std::io::Result<()> {
    let server =
        Server::builder("greeter", "1.0.0").tool(greet_tool()).build().expect("the definitions are valid");
    // Both protocol eras on stdin and stdout, until the client closes stdin.
    modelctx::run_stdio(server)
}
// ANCHOR_END: server
