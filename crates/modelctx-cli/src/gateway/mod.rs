//! `modelctx gateway --config FILE [--http ADDR]`: every server of a host's config file served
//! as one MCP server, in both eras, over Streamable HTTP or stdio; with `--metrics ADDR` the
//! operator's endpoint beside it (`metrics.rs`), with `--audit FILE` a line per call
//! (`audit.rs`); the config file followed as it changes (`reload.rs`).

mod audit;
mod metrics;
mod reload;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use modelctx::gateway::{Gateway, GatewayOptions};
use modelctx::protocol::types::Implementation;
use modelctx::transport::http::{HttpOptions, MCP_PATH};

use crate::serve::RedisShares;

/// Arguments of `modelctx gateway`.
#[derive(Args)]
pub struct GatewayArgs {
    /// The config file: `mcpServers` (Claude Desktop, Cursor, .mcp.json) or VS Code's
    /// `servers`, each entry with an optional `prefix` (`""` keeps the backend's own names),
    /// `allowTools`, `denyTools` and `circuitBreaker`; `policies`, who may use what;
    /// `rateLimits`, how often; `virtualServers`, each served at /mcp/NAME with --http (a
    /// chosen set of tools, prompts and resources); and, with --experimental, `interceptors`
    /// of the backends run around every call; see docs/gateway.md. Applied again when it
    /// changes or on SIGHUP: sessions and calls in flight go on; a file that does not read is
    /// refused and the running configuration kept (virtual servers and interceptors are read
    /// at start).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (port 0 picks a free port);
    /// the address bound is printed on stderr as `listening on http://HOST:PORT/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Allow --http to bind an address other than loopback.
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Accept requests whose Host header is NAME (repeat for more); loopback names are always
    /// accepted, any other is refused with 403 (DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "NAME", requires = "http")]
    allowed_hosts: Vec<String>,
    /// Accept requests from web pages of ORIGIN (repeat for more); loopback origins are
    /// always accepted.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// The gateway's own authorization: its clients' tokens are checked here and never
    /// passed on (each backend gets only the headers its entry names). A caller then needs the
    /// scope BACKEND:read for a backend's prompts, resources and read-only tools, BACKEND:write
    /// for its other tools (BACKEND is its name in the config), else it is refused 403 naming
    /// the scope: every backend is called as the operator. Without it, --http
    /// callers need the run's token (`Authorization: Bearer TOKEN`): MODELCTX_GATEWAY_TOKEN, or
    /// one made at start and printed on stderr as `gateway token: TOKEN` — every backend is
    /// called with the operator's own credentials, and loopback alone does not tell the
    /// operator from any other local user or process.
    #[command(flatten)]
    auth: crate::serve::AuthArgs,
    /// Let every caller that reaches --http in, with no token (a machine with one user, a
    /// test): anyone who reaches the address then uses the backends as the operator.
    #[arg(long, requires = "http", conflicts_with = "issuer")]
    no_auth: bool,
    /// Share legacy sessions, their event logs, the gateway's tasks, changes, the requestState
    /// keys and the rate limits' budgets with every gateway started with the same Redis
    /// (redis://HOST:PORT),
    /// so that several run behind a load balancer with no sticky sessions (each runs its own
    /// backends). Startup fails if Redis cannot be reached.
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
    /// Serve the operator's endpoint at http://ADDR: /metrics (Prometheus text format: calls,
    /// errors and latency per backend and tool, backends up), /healthz and /readyz (every
    /// backend connected). Loopback only unless --allow-remote; it has no authorization.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<SocketAddr>,
    /// Append one JSON line per tool call to FILE (`-`: standard output, with --http only):
    /// time, principal, backend, tool, outcome (`refused` for a call a policy or a rate limit
    /// refused) and why, duration, trace id and arguments.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// An argument name whose values the audit log replaces with "[redacted]", at any depth
    /// (repeatable; names compare without case).
    #[arg(long = "audit-redact", value_name = "NAME", requires = "audit")]
    audit_redact: Vec<String>,
    #[command(flatten)]
    experimental: crate::experimental::ExperimentalArgs,
}

/// The variable that gives the gateway's run token instead of a random one.
const TOKEN_VARIABLE: &str = "MODELCTX_GATEWAY_TOKEN";

/// The run token `--http` callers need, unless the gateway has OAuth or `--no-auth`: from
/// [`TOKEN_VARIABLE`], else made now and printed.
fn run_token(args: &GatewayArgs) -> std::io::Result<Option<String>> {
    if args.auth.enabled() || args.no_auth {
        return Ok(None);
    }
    match std::env::var(TOKEN_VARIABLE) {
        Ok(token) if !token.trim().is_empty() => Ok(Some(token.trim().to_owned())),
        _ => {
            let token = crate::run_token::random_token()?;
            eprintln!("gateway token: {token}");
            Ok(Some(token))
        }
    }
}

/// Runs the gateway until SIGTERM (or, on stdio, until stdin ends): exit 0 then, 1 when the
/// config cannot be read, the address is refused or serving fails.
pub fn run(args: &GatewayArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::INFO);
    let loaded = match reload::load(&args.config) {
        Ok(loaded) => loaded,
        Err(e) => {
            tracing::error!("{}: {e}", args.config.display());
            return ExitCode::FAILURE;
        }
    };
    if [args.http, args.metrics]
        .into_iter()
        .flatten()
        .any(|address| crate::runtime::refuses_remote(address, args.allow_remote))
    {
        return ExitCode::FAILURE;
    }
    if !loaded.interceptors.is_empty() && !args.experimental.experimental {
        tracing::error!("interceptors are an experimental extension (SEP-2624): give --experimental");
        return ExitCode::FAILURE;
    }
    if args.http.is_none() && !loaded.virtual_servers.is_empty() {
        tracing::error!("virtualServers are served over HTTP, at /mcp/NAME: give --http");
        return ExitCode::FAILURE;
    }
    if args.http.is_none() && args.audit.as_deref() == Some(std::path::Path::new("-")) {
        tracing::error!(
            "--audit - writes to standard output, which is the protocol over stdio: give a file, or --http"
        );
        return ExitCode::FAILURE;
    }
    let Some(runtime) = modelctx_servers::process::serving_runtime(None) else { return ExitCode::FAILURE };
    let outcome = runtime.block_on(async {
        let info = Implementation {
            description: Some("The tools, resources and prompts of several MCP servers, as one".into()),
            ..Implementation::new("modelctx-gateway", env!("CARGO_PKG_VERSION"))
        };
        let mut options = GatewayOptions::new(info);
        // Verified callers act as the operator on the backends: only within the scopes their
        // tokens hold for each.
        options.scopes_per_backend = args.auth.enabled();
        // Each backend authorizes the gateway with its own tokens, kept by `modelctx login`.
        let config = loaded.config;
        options.host.auth_for = Some(crate::login::stored_for(&config).await.map_err(std::io::Error::other)?);
        options.policy = loaded.policy;
        options.rate_limits = loaded.rate_limits;
        options.virtual_servers = loaded.virtual_servers;
        // A card and lists over GET are served over HTTP only.
        options.card = args.experimental.card("gateway").filter(|_| args.http.is_some());
        options.lists_over_get = args.experimental.experimental && args.http.is_some();
        options.definition_tags = args.experimental.experimental;
        options.interceptors = loaded.interceptors;
        // A backend that keeps failing is refused at once for a while rather than waited on by
        // every caller (an entry's `circuitBreaker` overrides this).
        options.host.circuit_breaker = Some(modelctx::host::CircuitPolicy::default());
        let shares = match &args.redis {
            Some(url) => {
                Some(Arc::new(RedisShares::connect(url, false).await.map_err(std::io::Error::other)?))
            }
            None => None,
        };
        if let Some(shares) = &shares {
            options.rate_store = shares.rate_store();
            let shares = Arc::clone(shares);
            options.configure = Some(Arc::new(move |builder| shares.server(builder)));
        }
        let metrics = Arc::new(metrics::Metrics::default());
        if args.metrics.is_some() {
            options.observers.push(metrics.clone());
        }
        if let Some(path) = &args.audit {
            options.observers.push(Arc::new(audit::Audit::open(path, &args.audit_redact, metrics.clone())?));
        }
        let gateway = Arc::new(Gateway::start(config, options).await.map_err(std::io::Error::other)?);
        if let Some(address) = args.metrics {
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("metrics on http://{}/metrics", listener.local_addr()?);
            let endpoint = axum::serve(listener, metrics::router(Arc::clone(&gateway), metrics));
            tokio::spawn(async move {
                if let Err(error) = endpoint.await {
                    tracing::error!(%error, "the metrics endpoint failed");
                }
            });
        }
        for status in gateway.host().status() {
            let error = status.last_error.map(|e| format!(": {e}")).unwrap_or_default();
            tracing::info!(server = %status.name, tools = status.tools, "{}{error}", status.state);
        }
        let follower = tokio::spawn(reload::follow(args.config.clone(), Arc::clone(&gateway)));
        let server = gateway.server().clone();
        let served = match args.http {
            None => modelctx::transport::stdio::serve_stdio(server).await,
            Some(address) => {
                let gate = run_token(args)?.map(|token| {
                    Arc::new(crate::run_token::TokenGate::new(token))
                        as Arc<dyn modelctx::transport::http::Authenticator>
                });
                let mut options = HttpOptions {
                    allowed_hosts: args.allowed_hosts.clone(),
                    allowed_origins: args.allowed_origins.clone(),
                    authenticator: gate,
                    ..HttpOptions::default()
                };
                if let Some(shares) = &shares {
                    shares.endpoint(&mut options);
                }
                let auth = Some(&args.auth).filter(|auth| auth.enabled());
                let virtual_servers = gateway
                    .virtual_servers()
                    .iter()
                    .map(|(name, server)| (format!("{MCP_PATH}/{name}"), server.clone()))
                    .collect();
                crate::serve::serve_http(server, virtual_servers, address, options, auth, &[]).await
            }
        };
        follower.abort();
        gateway.shutdown().await;
        served
    });
    runtime.shutdown_background();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "the gateway failed");
            ExitCode::FAILURE
        }
    }
}
