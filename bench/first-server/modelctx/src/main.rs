//! The guide's first server — one tool, `greet`, on stdio — as a new user writes it, with one
//! dependency: the lean-build comparison (`scripts/first_server.py`).

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
    let server = Server::builder("greeter", "1.0.0").tool(greet_tool()).build().expect("the definitions are valid");
    // Both protocol eras on stdin and stdout, until the client closes stdin.
    modelctx::run_stdio(server)
}
