//! Which server a command drives, and connecting to it: a command to spawn (`-- CMD ARGS…`,
//! stdio), a URL (`--url`, Streamable HTTP), or a server named in a host's config file
//! (`--config FILE --server NAME`, as Claude Desktop, Cursor, `.mcp.json` and VS Code keep
//! them).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode, StaticBearer, StdioCommand, WireTap};
use modelctx::host::config::HostConfig;
use modelctx::protocol::types::{Implementation, Root};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::exit::Failure;

/// The server to drive.
#[derive(Args, Clone, Debug)]
pub struct Target {
    /// A Streamable HTTP endpoint (for example http://127.0.0.1:8080/mcp) instead of a
    /// command; old HTTP+SSE servers are found by themselves.
    #[arg(long, value_name = "URL", help_heading = "Server")]
    pub url: Option<String>,
    /// An HTTP header for every request, as 'Name: value' (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        value_name = "'NAME: VALUE'",
        requires = "url",
        help_heading = "Server"
    )]
    pub headers: Vec<String>,
    /// A bearer token for every HTTP request (Authorization: Bearer TOKEN). Prefer the
    /// environment variable: a command line is visible to every user of the machine (`ps`).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "MODELCTX_BEARER",
        hide_env_values = true,
        requires = "url",
        help_heading = "Server"
    )]
    pub bearer: Option<String>,
    /// A config file of servers (`mcpServers` as in Claude Desktop, Cursor and .mcp.json, or
    /// VS Code's `servers`); with --server, the server to drive.
    #[arg(long, value_name = "FILE", requires = "server", help_heading = "Server")]
    pub config: Option<PathBuf>,
    /// The server's name in --config.
    #[arg(long, value_name = "NAME", requires = "config", help_heading = "Server")]
    pub server: Option<String>,
    /// An environment variable for the spawned server, as KEY=VALUE (repeatable).
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE", help_heading = "Server")]
    pub env: Vec<String>,
    /// The spawned server's working directory.
    #[arg(long, value_name = "DIR", help_heading = "Server")]
    pub cwd: Option<PathBuf>,
    /// A directory the server may work in, offered as a root when it asks (`roots/list`;
    /// repeatable).
    #[arg(long = "root", value_name = "DIR", help_heading = "Server")]
    pub roots: Vec<PathBuf>,
    /// Which protocol era to speak: probe with server/discover and fall back to initialize
    /// (auto), or only one.
    #[arg(long, value_enum, default_value_t = EraArg::Auto, help_heading = "Server")]
    pub era: EraArg,
    /// Run tool calls as tasks where the server allows: declare the tasks extension
    /// (2026-07-28), or ask a 2025-11-25 server for a task when the tool allows one. A task
    /// is followed to its end (its questions answered as they come).
    #[arg(long, help_heading = "Server")]
    pub tasks: bool,
    /// Speak HTTP/2 to an http:// URL from the first byte (h2c, "prior knowledge"), as a
    /// proxy does to its back ends; https:// URLs negotiate HTTP/2 by themselves.
    #[arg(long, help_heading = "Server")]
    pub h2c: bool,
    /// The command after -- speaks HTTP over stdio (experimental; the draft transport
    /// `stdio-v2`, as `modelctx serve --experimental --stdio-v2` does): Streamable HTTP as
    /// HTTP/2 on its stdin and stdout instead of JSON-RPC lines.
    #[arg(long, conflicts_with_all = ["url", "config"], help_heading = "Server")]
    pub stdio_v2: bool,
    /// Seconds each request may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, help_heading = "Server")]
    pub timeout: f64,
    /// The server command and its arguments, after `--` (stdio).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Set for a target the web inspector's page gave: a config file's `${input:…}` are not
    /// asked on the terminal, where nobody answers (the config must name their values).
    #[arg(skip)]
    pub unattended: bool,
}

/// `--era`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EraArg {
    /// 2026-07-28 if the server speaks it, else the initialize handshake.
    Auto,
    /// The initialize handshake (2025-11-25) only.
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

impl From<EraArg> for EraMode {
    fn from(era: EraArg) -> Self {
        match era {
            EraArg::Auto => Self::Auto,
            EraArg::Legacy => Self::Legacy,
            EraArg::Modern => Self::Modern,
        }
    }
}

impl Target {
    /// The server as the person at the terminal knows it: its URL, its name in the config
    /// file, or its command line.
    pub fn describe(&self) -> String {
        match (&self.url, &self.server) {
            (Some(url), _) => url.clone(),
            (None, Some(server)) => format!("{server:?}"),
            (None, None) => self.command.join(" "),
        }
    }

    /// The target as `modelctx`'s command line names it: `--url URL`, `--config FILE --server
    /// NAME`, or `[--stdio-v2] -- COMMAND…` (the web inspector copies a request as a command).
    pub fn words(&self) -> Vec<String> {
        if let Some(url) = &self.url {
            return vec!["--url".into(), url.clone()];
        }
        if let (Some(config), Some(server)) = (&self.config, &self.server) {
            return vec!["--config".into(), config.display().to_string(), "--server".into(), server.clone()];
        }
        let transport = self.stdio_v2.then(|| "--stdio-v2".to_owned());
        transport.into_iter().chain(["--".to_owned()]).chain(self.command.iter().cloned()).collect()
    }

    /// The same target, declaring the tasks extension.
    pub fn declaring_tasks(&self) -> Self {
        Self { tasks: true, ..self.clone() }
    }

    /// The client options: our name, the era, the time limit and `handlers`.
    fn options(&self, handlers: ClientHandlers) -> Result<ClientOptions, Failure> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            return Err(Failure::Usage(format!(
                "--timeout {} is not a positive number of seconds",
                self.timeout
            )));
        }
        let mut options = ClientOptions::new(Implementation::new("modelctx-cli", env!("CARGO_PKG_VERSION")));
        options.mode = self.era.into();
        options.request_timeout = Duration::from_secs_f64(self.timeout);
        options.handlers = offering_roots(handlers, &self.roots)?;
        options.auth = self.bearer.clone().map(|token| Arc::new(StaticBearer::new(token)) as _);
        options.tasks = self.tasks;
        options.http2_prior_knowledge = self.h2c;
        Ok(options)
    }

    /// Connects, answering the server's questions with `handlers`; an HTTP server gets the
    /// --bearer token, or else the tokens `modelctx login` kept for it.
    pub async fn connect(&self, handlers: ClientHandlers) -> Result<Client, Failure> {
        self.connect_tapped(handlers, None).await
    }

    /// [`Target::connect`], every JSON-RPC message of the connection shown to `tap`.
    pub async fn connect_tapped(
        &self,
        handlers: ClientHandlers,
        tap: Option<WireTap>,
    ) -> Result<Client, Failure> {
        let mut options = self.options(handlers)?;
        options.wire_tap = tap;
        if options.auth.is_none()
            && let Some(url) = &self.url
            && let Some(oauth) = crate::login::stored(url).await?
        {
            options.auth = Some(Arc::new(oauth));
        }
        if let (Some(path), Some(name)) = (&self.config, &self.server) {
            if self.url.is_some() || !self.command.is_empty() {
                return Err(Failure::Usage(
                    "give --config/--server, --url or a command after --: one of them".into(),
                ));
            }
            return connect_configured(path, name, options, self.unattended).await;
        }
        match (&self.url, self.command.split_first()) {
            (Some(_), Some(_)) => Err(Failure::Usage("give either --url or a command after --, not both".into())),
            (None, None) => Err(Failure::Usage(
                "which server? Give a command after -- (for example: -- modelctx serve everything) or --url URL".into(),
            )),
            (Some(url), None) => Ok(Client::connect_http(url, self.header_map()?, options).await?),
            (None, Some((program, args))) => {
                let mut command = StdioCommand::new(program).args(args);
                for pair in &self.env {
                    let (key, value) = pair
                        .split_once('=')
                        .ok_or_else(|| Failure::Usage(format!("-e {pair:?} is not KEY=VALUE")))?;
                    command = command.env(key, value);
                }
                if let Some(dir) = &self.cwd {
                    command = command.current_dir(dir);
                }
                if self.stdio_v2 {
                    return Ok(Client::spawn_stdio_v2(&command, options).await?);
                }
                Ok(Client::spawn(&command, options).await?)
            }
        }
    }

    /// `--header` values as a header map.
    fn header_map(&self) -> Result<HeaderMap, Failure> {
        header_map(&self.headers)
    }
}

/// `handlers` answering `roots/list` with `dirs` (each must be a directory), when there are
/// any.
fn offering_roots(handlers: ClientHandlers, dirs: &[PathBuf]) -> Result<ClientHandlers, Failure> {
    if dirs.is_empty() {
        return Ok(handlers);
    }
    let root = |dir: &PathBuf| directory_root(dir).map_err(|why| Failure::Usage(format!("--root {why}")));
    let roots: Vec<Root> = dirs.iter().map(root).collect::<Result<_, _>>()?;
    Ok(handlers.on_roots(move || std::future::ready(roots.clone())))
}

/// Directory `dir` as a root: its canonical path as a `file://` URI, named after its last
/// component; why not when it is no directory.
pub fn directory_root(dir: &Path) -> Result<Root, String> {
    let refused = |why: String| format!("{}: {why}", dir.display());
    let path = std::fs::canonicalize(dir).map_err(|e| refused(e.to_string()))?;
    if !path.is_dir() {
        return Err(refused("not a directory".into()));
    }
    let uri = url::Url::from_directory_path(&path).map_err(|()| refused("not an absolute path".into()))?;
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned());
    Ok(Root { uri: uri.to_string(), name, meta: None })
}

/// `headers` (`Name: value` each) as a header map. A refusal never shows a value: a header
/// often carries a secret (it used to echo the whole argument).
fn header_map(headers: &[String]) -> Result<HeaderMap, Failure> {
    let mut map = HeaderMap::new();
    for header in headers {
        let (name, value) = header.split_once(':').ok_or_else(|| {
            Failure::Usage("a --header has no ':' (give 'Name: value'; its text is not shown)".into())
        })?;
        let name = HeaderName::try_from(name.trim()).map_err(|_| {
            Failure::Usage(format!(
                "--header {}: not a header name",
                crate::inspect::output::shown(name.trim(), false)
            ))
        })?;
        let value = HeaderValue::try_from(value.trim()).map_err(|_| {
            Failure::Usage(format!("--header {name}: its value is not a header value (not shown)"))
        })?;
        map.append(name, value);
    }
    Ok(map)
}

/// Connects to the server `name` of the config file at `path`; its inputs are asked on the
/// terminal unless `unattended`.
async fn connect_configured(
    path: &std::path::Path,
    name: &str,
    options: ClientOptions,
    unattended: bool,
) -> Result<Client, Failure> {
    let loaded = if unattended { HostConfig::load(path) } else { crate::config_file::load(path) };
    let config = loaded.map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let Some(server) = config.servers.get(name) else {
        let names: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        return Err(Failure::Usage(format!(
            "{} has no server {name:?} (it has: {})",
            path.display(),
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        )));
    };
    Ok(server.connect(options).await?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clap::Parser;

    /// The target `words` name, as `modelctx`'s command line reads them.
    pub(crate) fn target(words: &[&str]) -> Target {
        #[derive(Parser)]
        struct Line {
            #[command(flatten)]
            target: Target,
        }
        Line::parse_from(std::iter::once("modelctx").chain(words.iter().copied())).target
    }

    #[test]
    fn a_refused_header_never_shows_its_value() {
        let refused = |header: &str| match header_map(&[header.to_owned()]) {
            Err(Failure::Usage(message)) => message,
            other => panic!("{header}: {other:?}"),
        };
        for (header, says) in [
            ("Bearer s3cret-token", "has no ':'"),
            ("Authorization: Bearer s3cret\u{7}", "authorization: its value is not a header value"),
        ] {
            let message = refused(header);
            assert!(message.contains(says) && !message.contains("s3cret"), "{message}");
        }
        assert!(header_map(&["X-Key: value".to_owned()]).unwrap().contains_key("x-key"));
    }
}
