//! The guide's first server — one tool, `greet`, on stdio — written with rmcp the way its
//! documentation shows, for the lean-build comparison (`scripts/first_server.py`).

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router, transport::stdio};
use schemars::JsonSchema;
use serde::Deserialize;

/// What `greet` takes.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// The server: its tools.
#[derive(Clone)]
struct Greeter {
    tool_router: ToolRouter<Greeter>,
}

#[tool_router]
impl Greeter {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    /// Greets someone by name.
    #[tool(description = "Greets someone by name", annotations(read_only_hint = true))]
    fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> String {
        format!("Hello, {name}!")
    }
}

#[tool_handler(router = self.tool_router, name = "greeter", version = "1.0.0")]
impl ServerHandler for Greeter {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let running = Greeter::new().serve(stdio()).await?;
    running.waiting().await?;
    Ok(())
}
