//! `rmcp-bench-server`: the comparison server for modelctx's benchmarks, written against the
//! `rmcp` SDK the way its documentation shows.
//!
//! It serves `echo`, `add` and, on request, any number of generated `tool_NNNN` tools, over
//! stdio (the default) or rmcp's Streamable HTTP service mounted at `/mcp` on axum.

use std::{net::SocketAddr, process::ExitCode, sync::Arc};

use axum::serve::ListenerExt;
use rmcp::{
    Json, ServerHandler, ServiceExt,
    handler::server::{
        common::schema_for_input,
        router::tool::{ToolRoute, ToolRouter},
        wrapper::Parameters,
    },
    model::Tool,
    service::ServerInitializeError,
    tool, tool_handler, tool_router,
    transport::{
        stdio, stdio_pipes,
        streamable_http_server::{
            SessionManager, StreamableHttpServerConfig, StreamableHttpService,
            session::{local::LocalSessionManager, never::NeverSessionManager},
        },
    },
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// Arguments of `echo`.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The message to send back.
    message: String,
}

/// Arguments of `add`.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
}

/// Structured result of `add`.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

/// Arguments of every generated `tool_NNNN` (worded as modelctx's `bench` server words its filler
/// tools, so both `tools/list` answers carry the same text).
#[derive(Deserialize, JsonSchema)]
struct ValueArgs {
    /// Any text; it is sent back.
    value: String,
}

/// The server: its tool router, shared by every session and every stateless request.
///
/// rmcp's Streamable HTTP service builds a handler per session (and per stateless request)
/// from a factory closure, so the router sits behind an `Arc` and that factory costs a
/// reference-count bump, not a copy of 1,002 tool definitions.
#[derive(Clone)]
struct BenchServer {
    /// The `echo` and `add` tools plus the generated ones.
    tool_router: Arc<ToolRouter<BenchServer>>,
}

// ANCHOR: tools
#[tool_router]
impl BenchServer {
    /// Returns the message it is given.
    #[tool(
        title = "Echo",
        description = "Returns the message it is given",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn echo(&self, Parameters(EchoArgs { message }): Parameters<EchoArgs>) -> String {
        message
    }

    /// Adds two numbers; the sum comes as structured content and as its JSON text.
    #[tool(
        title = "Add",
        description = "Adds two numbers; the sum comes as text and as structured content",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum { sum: a + b })
    }
}
// ANCHOR_END: tools

impl BenchServer {
    /// A server with `echo`, `add` and `extra_tools` generated tools registered at run time.
    fn new(extra_tools: usize) -> Self {
        let mut router = Self::tool_router();
        for index in 0..extra_tools {
            router.add_route(generated_tool(index));
        }
        Self { tool_router: Arc::new(router) }
    }
}

/// The generated tool `tool_{index:04}`, which sends its `value` argument back as text.
fn generated_tool(index: usize) -> ToolRoute<BenchServer> {
    let input_schema = schema_for_input::<ValueArgs>().expect("ValueArgs has an object schema");
    let attr = Tool::new(format!("tool_{index:04}"), "A filler tool that sends its value back", input_schema);
    ToolRoute::new(attr, |Parameters(ValueArgs { value }): Parameters<ValueArgs>| value)
}

#[tool_handler(router = self.tool_router, name = "rmcp-bench-server")]
impl ServerHandler for BenchServer {}

/// Command-line options.
struct Options {
    /// How many `tool_NNNN` tools to register besides `echo` and `add`.
    extra_tools: usize,
    /// Serve Streamable HTTP on this address instead of stdio.
    http: Option<String>,
    /// Let `--http` bind a non-loopback address (and accept any `Host` header).
    allow_remote: bool,
    /// Streamable HTTP without sessions (rmcp's `legacy_session_mode = false`).
    stateless: bool,
    /// Answer a plain request with `application/json` where rmcp allows it, not SSE.
    json_response: bool,
    /// Use rmcp's non-blocking pipe stdio transport instead of the default `stdio()`.
    stdio_pipes: bool,
}

/// The usage text.
const USAGE: &str = "\
usage: rmcp-bench-server [--extra-tools N] [--http ADDR [--allow-remote] [--stateless] [--json-response]]
                         [--stdio-pipes]

  (no --http)        serve MCP over stdin/stdout with rmcp's stdio() transport
  --extra-tools N    also register tool_0000 .. tool_{N-1} (default 0)
  --http ADDR        serve rmcp's Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:0)
  --allow-remote     allow a non-loopback ADDR (also disables rmcp's Host-header allowlist)
  --stateless        no sessions: legacy_session_mode = false, NeverSessionManager
  --json-response    rmcp's json_response = true (off by default; see README)
  --stdio-pipes      rmcp's stdio_pipes() instead of stdio() (off by default; see README)
";

impl Options {
    /// Parses the process arguments.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Options {
            extra_tools: 0,
            http: None,
            allow_remote: false,
            stateless: false,
            json_response: false,
            stdio_pipes: false,
        };
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
                _ => (arg, None),
            };
            let mut value = |name: &str| {
                inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{name} needs a value"))
            };
            match flag.as_str() {
                "--extra-tools" => {
                    let raw = value("--extra-tools")?;
                    options.extra_tools =
                        raw.parse().map_err(|_| format!("--extra-tools: not a count: {raw}"))?;
                }
                "--http" => options.http = Some(value("--http")?),
                "--allow-remote" => options.allow_remote = true,
                "--stateless" => options.stateless = true,
                "--json-response" => options.json_response = true,
                "--stdio-pipes" => options.stdio_pipes = true,
                "-h" | "--help" => return Err(String::new()),
                other => return Err(format!("unknown argument: {other}")),
            }
        }
        if options.http.is_none() && (options.stateless || options.json_response || options.allow_remote) {
            return Err("--stateless, --json-response and --allow-remote need --http".into());
        }
        if options.http.is_some() && options.stdio_pipes {
            return Err("--stdio-pipes applies to stdio, not --http".into());
        }
        Ok(options)
    }
}

/// Parses the options and serves until stdin closes (stdio) or a signal arrives (HTTP).
#[tokio::main]
async fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("rmcp-bench-server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = BenchServer::new(options.extra_tools);
    let outcome = match &options.http {
        Some(addr) => serve_http(server, addr, &options).await,
        None => serve_stdio(server, options.stdio_pipes).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rmcp-bench-server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves one MCP session over stdin/stdout until the client closes stdin.
async fn serve_stdio(server: BenchServer, pipes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let started = if pipes { server.serve(stdio_pipes()).await } else { server.serve(stdio()).await };
    match started {
        Ok(running) => {
            running.waiting().await?;
            Ok(())
        }
        // stdin reached EOF before the client finished a handshake: nothing left to serve.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Serves rmcp's Streamable HTTP service at `/mcp` on `addr` until SIGTERM or Ctrl-C.
async fn serve_http(
    server: BenchServer,
    addr: &str,
    options: &Options,
) -> Result<(), Box<dyn std::error::Error>> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host(addr).await?.collect();
    if addrs.is_empty() {
        return Err(format!("{addr}: no address").into());
    }
    if !options.allow_remote && addrs.iter().any(|a| !a.ip().is_loopback()) {
        return Err(format!("{addr} is not a loopback address; pass --allow-remote to serve it").into());
    }

    let stop = StopSignal::install();
    let shutdown = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token());
    if options.allow_remote {
        config = config.disable_allowed_hosts();
    }
    if options.json_response {
        config = config.with_json_response(true);
    }
    let router = if options.stateless {
        config = config.with_legacy_session_mode(false);
        mcp_router(server, NeverSessionManager::default(), config)
    } else {
        mcp_router(server, LocalSessionManager::default(), config)
    };

    let listener = tokio::net::TcpListener::bind(addrs.as_slice()).await?;
    let bound = listener.local_addr()?;
    eprintln!("listening on http://{bound}/mcp");
    let listener = listener.tap_io(|stream| {
        // Same as the modelctx server: no Nagle delay on small responses.
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop.wait().await;
            shutdown.cancel();
        })
        .await?;
    Ok(())
}

/// An axum router with rmcp's Streamable HTTP service nested at `/mcp`.
fn mcp_router<M: SessionManager>(
    server: BenchServer,
    sessions: M,
    config: StreamableHttpServerConfig,
) -> axum::Router {
    let service = StreamableHttpService::new(move || Ok(server.clone()), Arc::new(sessions), config);
    axum::Router::new().nest_service("/mcp", service)
}

/// Watches SIGTERM and SIGINT (Ctrl-C) from the moment it is built.
struct StopSignal {
    /// SIGTERM, where the platform has it and it could be watched.
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    /// SIGINT, where the platform has it and it could be watched.
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl StopSignal {
    /// Installs the handlers now, so a signal that comes before the server first waits is not lost.
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                term: signal(SignalKind::terminate()).ok(),
                interrupt: signal(SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves on the first SIGTERM or SIGINT; never, if neither can be watched.
    async fn wait(self) {
        #[cfg(unix)]
        {
            /// Waits for one delivery of `signal`, or forever if it is not watched.
            async fn next(signal: Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(mut signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                _ = next(self.term) => {}
                _ = next(self.interrupt) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
