//! # modelctx
//!
//! Model Context Protocol servers in Rust, serving both protocol eras — the stateless
//! 2026-07-28 revision and the `initialize`-session revisions up to 2025-11-25 — from one set
//! of handlers, with tool arguments and structured results validated against their JSON
//! Schemas.
//!
//! ```no_run
//! use modelctx::server::{Args, Server, ToolDef};
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Echo {
//!     /// What to say back.
//!     message: String,
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     let server = Server::builder("echo-server", "1.0")
//!         .tool(ToolDef::new("echo", |Args(Echo { message }): Args<Echo>| async move { message })
//!             .description("Says the message back"))
//!         .build()
//!         .expect("valid definitions");
//!     // On a runtime of its own sized for one client; in an async `main`, use
//!     // `modelctx::serve_stdio(server).await`.
//!     modelctx::run_stdio(server)
//! }
//! ```
//!
//! With the `macros` feature (on by default), `#[modelctx::tool]` turns an async function into
//! a tool: it generates `<name>_tool()`, which builds the same `ToolDef` you could write by
//! hand, with the doc comment as the description and the plain parameters
//! (`name: String`, each described by its doc comment) as the tool's arguments.
//! `#[modelctx::tools]` does the same for the `#[tool]` methods of an impl block, whose tools
//! share one value.
//!
//! Guarantees: requests run concurrently up to [`server::Limits::max_in_flight`];
//! notifications are handled in arrival order by the reader, which never waits on a handler;
//! a cancelled request gets no response; stdout carries only protocol messages (logs go to
//! stderr through `tracing`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(all(test, any(feature = "server", feature = "client"), not(feature = "fuzzing")))]
mod fuzzing;
#[cfg(feature = "gateway")]
pub mod gateway;
#[cfg(feature = "host")]
pub mod host;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(any(feature = "server", all(feature = "client", feature = "validation")))]
pub(crate) mod schema;
#[cfg(feature = "server")]
pub mod server;
#[cfg(all(feature = "skills", any(feature = "server", feature = "client")))]
mod skill_file;
pub mod store;
#[cfg(any(feature = "server", feature = "client"))]
mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(any(feature = "server", feature = "client"))]
pub mod transport;
#[cfg(feature = "experimental")]
pub mod webhooks;

pub use modelctx_protocol as protocol;
/// `schemars`, whose `JsonSchema` derive gives tool arguments and results their schemas.
#[cfg(feature = "server")]
pub use schemars;
/// `serde`, for the types of tool arguments and results (the version modelctx uses).
pub use serde;
/// `serde_json`, for JSON values in arguments, results and `_meta`.
pub use serde_json;

#[cfg(feature = "server")]
pub use transport::stdio::{run_stdio, serve_stdio};

#[cfg(feature = "macros")]
pub use modelctx_macros::{prompt, resource, tool, tools};
