//! `bench`: the server the benchmarks load — `echo` and `add` as in `everything`, plus any
//! number of filler tools for the large `tools/list` case, all on one page (as servers that
//! do not paginate send them), so that both sides of a comparison do the same work.

use modelctx::server::{Args, Server, ServerBuilder, ServerOptions, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;

use super::everything;

/// Filler tool arguments.
#[derive(Deserialize, JsonSchema)]
struct FillerArgs {
    /// Any text; it is sent back.
    value: String,
}

/// The `bench` server with `extra_tools` filler tools (`tool_0000`, …) besides `echo` and
/// `add`.
pub fn builder(extra_tools: usize) -> ServerBuilder {
    let options = ServerOptions { page_size: extra_tools + 2, ..ServerOptions::default() };
    let mut builder = Server::builder("modelctx-bench", env!("CARGO_PKG_VERSION"))
        .options(options)
        .tool(everything::echo())
        .tool(everything::add());
    for n in 0..extra_tools {
        builder = builder.tool(
            ToolDef::new(format!("tool_{n:04}"), |Args(FillerArgs { value }): Args<FillerArgs>| async move {
                value
            })
            .description("A filler tool that sends its value back"),
        );
    }
    builder
}
