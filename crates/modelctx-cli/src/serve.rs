//! `modelctx serve`: run a bundled reference server.

use std::env::VarError;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use clap::{Args, Subcommand};

use modelctx::auth::{Keys, ResourceServer};
use modelctx::server::{Server, ServerBuilder, StateKey, StateKeyError, StateKeys};
use modelctx::transport::http::{HttpOptions, MCP_PATH, McpEndpoints};
use modelctx::transport::http_sse::SSE_PATH;

use modelctx_servers as servers;

/// Binds `address` and serves Streamable HTTP (and, without `auth`, the deprecated HTTP+SSE
/// transport) until SIGTERM; with `auth`, only to callers with an access token of its
/// authorization server.
pub(crate) async fn serve_http(
    server: Server,
    more: Vec<(String, Server)>,
    address: SocketAddr,
    mut options: HttpOptions,
    auth: Option<&AuthArgs>,
    scopes: &[String],
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let bound = listener.local_addr()?;
    if let Some(auth) = auth {
        let resource = auth.audience.clone().unwrap_or_else(|| format!("http://{bound}{MCP_PATH}"));
        let verifier = auth.resource_server(&resource, scopes).map_err(std::io::Error::other)?;
        options.authenticator = Some(Arc::new(verifier));
    }
    // A fixed line scripts can wait for and parse (the first such line).
    eprintln!("listening on http://{bound}{MCP_PATH}");
    let mut endpoints = McpEndpoints::new(server);
    for (path, server) in more {
        eprintln!("  and a server of its own at http://{bound}{path}");
        endpoints = endpoints.at(path, server);
    }
    if let Some(warning) = unprotected_remote(bound, auth.is_some() || options.authenticator.is_some()) {
        tracing::warn!("{warning}");
    }
    match auth {
        Some(auth) => {
            eprintln!("  for callers with an access token of {}", auth.issuer.as_deref().unwrap_or_default());
        }
        // The deprecated transport has no authorization: with an authenticator it is not served.
        None if options.authenticator.is_some() => eprintln!("  for callers with the run's token"),
        None => {
            eprintln!("  and, for old clients, the deprecated HTTP+SSE transport at http://{bound}{SSE_PATH}")
        }
    }
    let stop = modelctx::transport::terminated();
    if auth.is_none() {
        endpoints = endpoints.with_sse();
    }
    modelctx::transport::http::serve_http_at(endpoints, listener, options, stop).await
}

/// The warning for an endpoint bound to an address other machines reach with nothing that
/// checks its callers (`--allow-remote` without `--auth-issuer` used to start silently).
fn unprotected_remote(bound: SocketAddr, authenticated: bool) -> Option<String> {
    (!bound.ip().is_loopback() && !authenticated).then(|| {
        format!(
            "http://{bound}{MCP_PATH} is served to other machines with no authorization: anyone who reaches it \
             can call every tool (add --auth-issuer and --auth-jwks)"
        )
    })
}

/// Options of `serve --http` that put the endpoint behind OAuth.
#[derive(Args, Clone)]
pub(crate) struct AuthArgs {
    /// Accept only access tokens (JWTs) issued by this authorization server (its issuer
    /// identifier), published in the endpoint's protected resource metadata. Read-only tools
    /// then need the scope SERVER:read and the others SERVER:write (everything:read, …).
    #[arg(long = "auth-issuer", value_name = "URL", requires_all = ["http", "jwks"], global = true)]
    issuer: Option<String>,
    /// The authorization server's signing keys: a JWKS file, or its jwks_uri.
    #[arg(long = "auth-jwks", id = "jwks", value_name = "FILE_OR_URL", requires = "issuer", global = true)]
    jwks: Option<String>,
    /// The audience tokens must name: the endpoint's public URL (default
    /// http://ADDR/mcp, the address bound).
    #[arg(long = "auth-audience", value_name = "URL", requires = "issuer", global = true)]
    audience: Option<String>,
}

impl AuthArgs {
    /// Whether the endpoint is to be protected.
    pub(crate) fn enabled(&self) -> bool {
        self.issuer.is_some()
    }

    fn resource_server(&self, resource: &str, scopes: &[String]) -> Result<ResourceServer, String> {
        let (Some(issuer), Some(jwks)) = (&self.issuer, &self.jwks) else {
            return Err("--auth-issuer needs --auth-jwks".into());
        };
        let keys = if jwks.starts_with("https://") || jwks.starts_with("http://") {
            Keys::Url(jwks.clone())
        } else {
            Keys::File(PathBuf::from(jwks))
        };
        let verifier = ResourceServer::jwt(resource, issuer.clone(), keys).map_err(|e| e.to_string())?;
        Ok(verifier.scopes_supported(scopes.iter().take(1).cloned()))
    }
}

/// The scopes of the server `name`'s tools: `NAME:read` for those that say they only read,
/// `NAME:write` for the rest.
fn scopes_of(name: &str) -> [String; 2] {
    [format!("{name}:read"), format!("{name}:write")]
}

/// The environment variable that holds the `requestState` key shared by every instance:
/// `ID:BASE64SECRET`.
pub const STATE_KEY_VAR: &str = "MODELCTX_STATE_KEY";

/// How long a sealed `requestState` stays valid: the runtime's default.
const STATE_LIFETIME: Duration = Duration::from_secs(600);

/// Parses `ID:BASE64SECRET` (standard or URL-safe alphabet, padding optional; the secret
/// decodes to at least 32 bytes). Returns the key id with the key. The error never repeats the
/// secret.
fn parse_state_key(value: &str) -> Result<(String, StateKey), String> {
    let Some((id, secret)) = value.trim().split_once(':') else {
        return Err("it has no ':' between the key id and the secret".into());
    };
    let secret = secret.trim_end_matches('=');
    let secret = STANDARD_NO_PAD
        .decode(secret)
        .or_else(|_| URL_SAFE_NO_PAD.decode(secret))
        .map_err(|_| "the secret after ':' is not base64".to_owned())?;
    let length = secret.len();
    match StateKey::new(id, secret) {
        Ok(key) => Ok((id.to_owned(), key)),
        Err(StateKeyError::TooShort) => {
            Err(format!("the secret is {length} bytes; a requestState key needs at least 32"))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The keys of `MODELCTX_STATE_KEY`, with the key id; `None` when it is not set (each
/// process then makes a random key).
fn state_keys_from_env() -> Result<Option<(String, StateKeys)>, String> {
    match std::env::var(STATE_KEY_VAR) {
        Err(VarError::NotPresent) => Ok(None),
        Err(VarError::NotUnicode(_)) => Err("it is not valid UTF-8".into()),
        Ok(value) => {
            let (id, key) = parse_state_key(&value)?;
            Ok(Some((id, StateKeys::new(key, Vec::new(), STATE_LIFETIME))))
        }
    }
}

/// Arguments of `modelctx serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// Which server, with its own options.
    #[command(subcommand)]
    server: Bundled,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (for example
    /// 127.0.0.1:8080; port 0 picks a free port). The address actually bound is printed on
    /// stderr as `listening on http://HOST:PORT/mcp`. Old clients of the deprecated HTTP+SSE
    /// transport (2024-11-05) connect to http://ADDR/sse on the same port (they POST to the
    /// /messages?sessionId=... URI its `endpoint` event names).
    #[arg(long, value_name = "ADDR", global = true)]
    http: Option<SocketAddr>,
    /// Speak HTTP over stdio (experimental, with --experimental; the draft transport
    /// `stdio-v2`): Streamable HTTP as HTTP/2 frames on stdin and stdout instead of JSON-RPC
    /// lines, for a client started to speak it (`modelctx call --stdio-v2 -- CMD`, or
    /// `"type": "stdio-v2"` in a host's config). No port is opened.
    #[arg(long, requires = "experimental", conflicts_with = "http", global = true)]
    stdio_v2: bool,
    /// Allow --http to bind an address other than loopback (by default only 127.0.0.1 or
    /// ::1, so that nothing outside this machine can reach the server).
    #[arg(long, requires = "http", global = true)]
    allow_remote: bool,
    /// Accept requests whose Host header is NAME (repeat for more), as a server deployed
    /// under its own domain needs; loopback names are always accepted, any other is refused
    /// with 403 (DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "NAME", requires = "http", global = true)]
    allowed_hosts: Vec<String>,
    /// Accept requests from web pages of ORIGIN (`https://app.example.com`; repeat for
    /// more); loopback origins are always accepted.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http", global = true)]
    allowed_origins: Vec<String>,
    /// Share legacy sessions, their event logs, tasks, changes and the requestState keys with
    /// every instance started with the same Redis (redis://HOST:PORT), so that several run
    /// behind a load balancer with no sticky sessions. Startup fails if Redis cannot be
    /// reached.
    #[arg(long, value_name = "URL", requires = "http", global = true)]
    redis: Option<String>,
    /// Run requests on N worker threads. By default a stdio server runs on one thread (one
    /// client, and the quickest start), an HTTP server on one per CPU. Give more to a stdio
    /// server whose tools compute for long.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), global = true)]
    threads: Option<u16>,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    experimental: crate::experimental::ExperimentalArgs,
}

// ANCHOR: redis
/// What instances share through Redis: connected once at start, then given to the server
/// (tasks, changes, the requestState keys) and to its HTTP endpoint (sessions, event logs).
pub(crate) struct RedisShares {
    redis: modelctx_redis::Redis,
    /// `None` when the instance seals requestState with a key of its own.
    keys: Option<StateKeys>,
}

impl RedisShares {
    /// Connects to Redis at `url`, and takes the shared requestState keys unless the instance
    /// has its own (`own_state_key`).
    pub(crate) async fn connect(url: &str, own_state_key: bool) -> Result<Self, String> {
        let redis = modelctx_redis::Redis::connect(url, modelctx_redis::RedisOptions::default())
            .await
            .map_err(|e| format!("{e}; start Redis there or fix --redis"))?;
        let keys = if own_state_key {
            None
        } else {
            let rotation =
                modelctx_redis::StateKeyRotation { lifetime: STATE_LIFETIME, ..Default::default() };
            Some(modelctx_redis::state_keys(&redis, rotation).await.map_err(|e| e.to_string())?)
        };
        tracing::info!(%url, "sessions, tasks, changes and requestState keys are shared through Redis");
        Ok(Self { redis, keys })
    }

    /// `builder` with the shared task store, bus and requestState keys.
    pub(crate) fn server(&self, builder: ServerBuilder) -> ServerBuilder {
        let builder = builder.task_store(Arc::new(self.redis.task_store())).bus(Arc::new(self.redis.bus()));
        match &self.keys {
            Some(keys) => builder.request_state_keys(keys.clone()),
            None => builder,
        }
    }

    /// `options` with the shared session and event stores.
    pub(crate) fn endpoint(&self, options: &mut HttpOptions) {
        options.stores = Some(self.redis.http_stores(options.session_idle_timeout, options.max_sessions));
    }

    /// The shared budgets of rate limits.
    pub(crate) fn rate_store(&self) -> Arc<dyn modelctx::store::RateStore> {
        Arc::new(self.redis.rate_store())
    }
}
// ANCHOR_END: redis

/// The bundled servers, each with the options that are its own.
#[derive(Subcommand)]
enum Bundled {
    /// Every feature: tools (echo, add, progress, images, errors), resources, templates,
    /// prompts, completion.
    Everything,
    /// What the benchmarks load: echo and add, plus --extra-tools filler tools, listed on
    /// one page.
    Bench {
        /// This many filler tools besides echo and add (for a large tools/list).
        #[arg(long, value_name = "N", default_value_t = 0)]
        extra_tools: usize,
    },
    /// Files inside the --root directories: list, read, search, write, edit, move (Linux).
    Filesystem(FilesystemArgs),
    /// The --repo repositories through git: status, diffs, add, commit, reset, log, branches,
    /// show (the official git server's tools).
    Git(servers::git::GitArgs),
    /// Web pages as markdown, public addresses only (the official fetch server's tool and
    /// prompt).
    Fetch(servers::fetch::FetchArgs),
    /// A knowledge graph of entities, observations and relations kept in SQLite (the official
    /// memory server's tools).
    Memory(servers::memory::MemoryArgs),
    /// The current time in any IANA time zone, and conversions between zones (the official
    /// time server's tools).
    Time(servers::time::TimeArgs),
    /// Interceptors for a gateway (experimental, with --experimental; SEP-2624): pii-redactor
    /// (e-mail addresses, social security and card numbers), blocked-terms (config.terms) and
    /// audit-log. No tools: a gateway config runs them around its calls (docs/gateway.md).
    Guard,
}

/// Options of `modelctx serve filesystem`.
#[derive(Args)]
struct FilesystemArgs {
    /// A directory the server may read and write (repeat for more; relative paths are taken
    /// relative to the first).
    #[arg(long = "root", value_name = "DIR", required = true)]
    roots: Vec<PathBuf>,
    /// Offer only the tools that read (write_file, edit_file, create_directory and move_file
    /// are not offered at all).
    #[arg(long)]
    read_only: bool,
}

impl Bundled {
    /// The server's name, as `serve` spells it.
    fn name(&self) -> &'static str {
        match self {
            Self::Everything => "everything",
            Self::Bench { .. } => "bench",
            Self::Filesystem(_) => "filesystem",
            Self::Git(_) => "git",
            Self::Fetch(_) => "fetch",
            Self::Memory(_) => "memory",
            Self::Time(_) => "time",
            Self::Guard => "guard",
        }
    }

    /// The server, not yet built, or why it cannot start.
    async fn builder(&self) -> Result<ServerBuilder, String> {
        match self {
            Self::Everything => Ok(servers::everything::builder()),
            Self::Bench { extra_tools } => Ok(servers::bench::builder(*extra_tools)),
            Self::Filesystem(args) => {
                filesystem(args).map_err(|why| format!("the filesystem server cannot start: {why}"))
            }
            Self::Git(args) => {
                servers::git::builder(args).await.map_err(|why| format!("the git server cannot start: {why}"))
            }
            Self::Fetch(args) => {
                servers::fetch::builder(args).map_err(|why| format!("the fetch server cannot start: {why}"))
            }
            Self::Memory(args) => {
                servers::memory::builder(args).map_err(|why| format!("the memory server cannot start: {why}"))
            }
            Self::Time(args) => {
                servers::time::builder(args).map_err(|why| format!("the time server cannot start: {why}"))
            }
            Self::Guard => Ok(servers::guard::builder()),
        }
    }
}

/// The filesystem server for `args`, or why it cannot start.
#[cfg(target_os = "linux")]
fn filesystem(args: &FilesystemArgs) -> Result<ServerBuilder, String> {
    servers::filesystem::builder(&servers::filesystem::Options {
        roots: args.roots.clone(),
        read_only: args.read_only,
    })
}

/// The filesystem server needs `openat2(2)`.
#[cfg(not(target_os = "linux"))]
fn filesystem(_: &FilesystemArgs) -> Result<ServerBuilder, String> {
    Err("the filesystem server runs on Linux only: it confines paths with openat2(2)".into())
}

/// Runs the server on stdio (until stdin ends) or HTTP, until SIGTERM: exit 0 then, 1 on an
/// I/O failure or a refused address.
pub fn run(args: &ServeArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::INFO);
    let state_keys = match state_keys_from_env() {
        Ok(keys) => keys,
        Err(why) => {
            tracing::error!(
                "{STATE_KEY_VAR} is invalid: {why}. It must be ID:BASE64SECRET, with at least 32 \
                 secret bytes; for example {STATE_KEY_VAR}=\"k1:$(openssl rand -base64 32)\""
            );
            return ExitCode::FAILURE;
        }
    };
    let threads = modelctx_servers::process::serving_threads(args.threads, args.http.is_some());
    let Some(runtime) = modelctx_servers::process::serving_runtime(threads) else { return ExitCode::FAILURE };
    if matches!(args.server, Bundled::Guard) && !args.experimental.experimental {
        tracing::error!(
            "the guard server hosts interceptors, an experimental extension: give --experimental"
        );
        return ExitCode::FAILURE;
    }
    let mut builder = match runtime.block_on(args.server.builder()) {
        Ok(builder) => builder,
        Err(why) => {
            tracing::error!("{why}");
            return ExitCode::FAILURE;
        }
    };
    let scopes = scopes_of(args.server.name());
    if args.auth.enabled() {
        let [read, write] = scopes.clone();
        builder = builder.tool_scopes(move |tool| {
            let reads = tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
            vec![if reads { read.clone() } else { write.clone() }]
        });
    }
    // Definition tags and events on either transport; a card and lists over GET over HTTP only.
    if args.experimental.experimental {
        let events = runtime.block_on(async { crate::experimental::clock_events() });
        builder = builder.definition_tags().events(events);
    }
    // A card is served over HTTP only, and lists over GET over HTTP and HTTP over stdio: a
    // stdio server of JSON-RPC lines declares neither.
    if args.stdio_v2 {
        builder = builder.lists_over_get();
    }
    if let Some(card) = args.experimental.card(args.server.name())
        && args.http.is_some()
    {
        // The bench server's info has no description: its answers stay as small as can be.
        let bench = matches!(args.server, Bundled::Bench { .. });
        builder = builder.card(if bench { card.description("Echo and add, for benchmarks") } else { card });
        builder = builder.lists_over_get();
    }
    let own_state_key = state_keys.is_some();
    if let Some((id, keys)) = state_keys {
        tracing::info!(key_id = %id, "requestState is sealed with the shared key of {STATE_KEY_VAR}");
        builder = builder.request_state_keys(keys);
    }
    let mut options = HttpOptions {
        allowed_hosts: args.allowed_hosts.clone(),
        allowed_origins: args.allowed_origins.clone(),
        ..HttpOptions::default()
    };
    if let Some(url) = &args.redis {
        match runtime.block_on(RedisShares::connect(url, own_state_key)) {
            Ok(shares) => {
                builder = shares.server(builder);
                shares.endpoint(&mut options);
            }
            Err(why) => {
                tracing::error!("{why}");
                return ExitCode::FAILURE;
            }
        }
    }
    let server = match builder.build() {
        Ok(server) => server,
        Err(e) => {
            tracing::error!(error = %e, "the server definitions are invalid");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match args.http {
        None if args.stdio_v2 => {
            runtime.block_on(modelctx::transport::stdio_v2::serve_stdio_v2(server, options))
        }
        None => runtime.block_on(modelctx::transport::stdio::serve_stdio(server)),
        Some(address) if crate::runtime::refuses_remote(address, args.allow_remote) => {
            return ExitCode::FAILURE;
        }
        Some(address) => {
            let auth = Some(&args.auth).filter(|a| a.enabled());
            runtime.block_on(serve_http(server, Vec::new(), address, options, auth, &scopes))
        }
    };
    modelctx_servers::process::finish(runtime, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_other_machines_reach_without_authorization_is_warned_of() {
        let anywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let loopback: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let warning = unprotected_remote(anywhere, false).expect("a warning");
        assert!(warning.contains("no authorization") && warning.contains("--auth-issuer"), "{warning}");
        assert_eq!(unprotected_remote(anywhere, true), None);
        assert_eq!(unprotected_remote(loopback, false), None);
    }

    const SECRET_32: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

    #[test]
    fn state_key_takes_an_id_and_a_base64_secret() {
        let (id, _) = parse_state_key(&format!("k1:{SECRET_32}=")).unwrap();
        assert_eq!(id, "k1");
        // Unpadded, URL-safe, and with a trailing newline (as read from a secrets file).
        assert!(parse_state_key(&format!("k1:{SECRET_32}")).is_ok());
        assert!(parse_state_key("k2:-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_\n").is_ok());
    }

    #[test]
    fn state_key_errors_say_why_without_the_secret() {
        let cases = [
            (SECRET_32.to_owned(), "no ':'"),
            (format!(":{SECRET_32}"), "non-empty"),
            (format!("a.b:{SECRET_32}"), "no '.'"),
            ("k1:not base64!".to_owned(), "not base64"),
            ("k1:AAECAwQFBgcICQoLDA0ODw==".to_owned(), "16 bytes"),
        ];
        for (value, why) in cases {
            let error = parse_state_key(&value).map(|(id, _)| id).unwrap_err();
            assert!(error.contains(why), "{value}: {error}");
            assert!(!error.contains("AAEC"), "{error}");
        }
    }
}
