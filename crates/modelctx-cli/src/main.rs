//! `modelctx`: the command line tool for Model Context Protocol servers.
//!
//! - `modelctx discover`, `tools`, `resources`, `prompts`, `complete`, `listen` and `ping`
//!   drive any server, spawned (`-- CMD ARGS…`) or at a URL (`--url`);
//! - `modelctx serve everything` runs the bundled reference server on stdio, and
//!   `modelctx serve filesystem --root DIR` a server of the files under DIR;
//! - `modelctx host` holds the servers of a config file at once, and `modelctx gateway` serves
//!   them as one;
//! - `modelctx route` reads a transcript of JSON-RPC messages and shows, for each, how a
//!   dual-era server decides its protocol era and whether the message has the shape its
//!   revision's schema requires.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bench;
mod config_file;
mod demo;
mod experimental;
mod gateway;
mod host;
mod inspect;
mod logging;
mod login;
mod route;
mod run_token;
mod runtime;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc: servers allocate and free an answer per request (a `tools/list` of a thousand
/// tools is a third of a megabyte); glibc's allocator grows and trims its per-thread arenas
/// around such blocks each time, mimalloc reuses them. Its 2.x line (`v2`): fewer
/// instructions per allocation than 3.x on this workload (docs/architecture.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Inspect and drive Model Context Protocol servers.
#[derive(Parser)]
#[command(name = "modelctx", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show what a server is: its name, protocol version and era, capabilities and
    /// instructions.
    ///
    /// The server is a command after `--` (spawned, over stdio) or --url (Streamable HTTP);
    /// the same goes for every command below that drives a server.
    ///
    /// Examples:
    ///   modelctx discover -- modelctx serve everything
    ///   modelctx discover --era legacy -- npx -y @modelcontextprotocol/server-everything
    ///   MODELCTX_BEARER="$TOKEN" modelctx discover --url http://127.0.0.1:8080/mcp --json
    ///   modelctx discover --card https://example.com/mcp/server-card     (experimental)
    ///   modelctx discover --catalog https://example.com                  (experimental)
    #[command(verbatim_doc_comment, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Discover(inspect::DiscoverArgs),
    /// List or call tools.
    #[command(subcommand, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Tools(inspect::ToolsCommand),
    /// List, read and list templates of resources.
    #[command(subcommand, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Resources(inspect::ResourcesCommand),
    /// List prompts or get one.
    #[command(subcommand, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Prompts(inspect::PromptsCommand),
    /// List, show, wait for or cancel tasks, by id (either era).
    #[command(subcommand, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Tasks(inspect::TasksCommand),
    /// Complete an argument of a prompt or a variable of a resource template.
    #[command(after_help = inspect::exit::EXIT_STATUS_HELP)]
    Complete(inspect::CompleteArgs),
    /// Print the server's change notifications (list changes, resource updates) as they
    /// come, until Ctrl-C.
    #[command(after_help = inspect::exit::EXIT_STATUS_HELP)]
    Listen(inspect::ListenArgs),
    /// Check that the server answers, and how fast.
    ///
    /// Example:
    ///   modelctx ping -- modelctx serve everything
    #[command(verbatim_doc_comment, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Ping(inspect::ServerArgs),
    /// Load a server: keep C requests in flight, check every answer, and report throughput,
    /// latency percentiles, the server's CPU time per request, its peak memory and its cold
    /// start.
    #[command(verbatim_doc_comment, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Bench(bench::BenchArgs),
    /// Hold every server of a host's config file at once: one registry of namespaced tools
    /// (`server__tool`), calls routed to their server, crashed servers restarted.
    ///
    /// Examples:
    ///   modelctx host --config .mcp.json status
    ///   modelctx host --config .mcp.json tools list
    ///   modelctx host --config .mcp.json tools call everything__add a=2 b=40
    #[command(verbatim_doc_comment, after_help = inspect::exit::EXIT_STATUS_HELP)]
    Host(host::HostArgs),
    /// Serve every server of a host's config file as one MCP server, in both protocol eras:
    /// names prefixed per server (`"prefix"`, `""` for none), tools filtered (`allowTools`,
    /// `denyTools`), questions, progress and cancellation relayed; see docs/gateway.md.
    ///
    /// Examples:
    ///   modelctx gateway --config gateway.json --http 127.0.0.1:8080
    ///   modelctx gateway --config gateway.json        (stdio)
    #[command(verbatim_doc_comment)]
    Gateway(gateway::GatewayArgs),
    /// A web page to look at one server: its discover or initialize result, its tools called
    /// from forms made of their input schemas, resources, prompts, elicitations answered in
    /// the page, and every JSON-RPC message of the session. Served by this binary on loopback
    /// only; the URL to open, with its random token, is the first line of standard output.
    ///
    /// Examples:
    ///   modelctx inspect --web 127.0.0.1:6274 -- modelctx serve everything
    ///   modelctx inspect --web 127.0.0.1:0 --url http://127.0.0.1:8080/mcp
    #[command(verbatim_doc_comment)]
    Inspect(inspect::web::InspectArgs),
    /// A tour of modelctx: start the bundled `everything` server over stdio and over
    /// Streamable HTTP on loopback, and drive it with the client through every feature in
    /// both protocol eras, with timings. Exit 1 if any step fails.
    ///
    /// Example:
    ///   cargo run -p modelctx-cli -- demo
    #[command(verbatim_doc_comment)]
    Demo,
    /// Authorize with an HTTP server's OAuth authorization server: a browser opens (or the
    /// URL is printed, with --no-browser) and the tokens are kept in the credentials file,
    /// for every later command with --url to use and refresh.
    ///
    /// Examples:
    ///   modelctx login https://mcp.example.com/mcp
    ///   modelctx login http://127.0.0.1:8080/mcp --scope everything:write --no-browser
    ///
    /// Environment:
    ///   MODELCTX_CREDENTIALS=FILE
    ///       The credentials file (default: $XDG_CONFIG_HOME/modelctx/credentials.json,
    ///       or ~/.config/modelctx/credentials.json), created readable by you only.
    #[command(verbatim_doc_comment)]
    Login(login::LoginArgs),
    /// Forget the tokens kept for a server.
    Logout(login::LogoutArgs),
    /// Route a transcript of client messages through the era router, as a dual-era stdio
    /// server would, and check each message's shape against its revision.
    ///
    /// Each line of the input is one JSON-RPC message from client to server. An
    /// `initialize` that is accepted opens a legacy session for the lines after it.
    ///
    /// Examples:
    ///   modelctx route examples/dual-era-transcript.jsonl
    ///   modelctx route --modern-only --json < transcript.jsonl
    #[command(verbatim_doc_comment)]
    Route(route::RouteArgs),
    /// Run a bundled reference server on stdio, or on Streamable HTTP with --http (logs go
    /// to stderr; set RUST_LOG to tune).
    ///
    /// Examples:
    ///   modelctx serve everything
    ///   modelctx serve everything --http 127.0.0.1:8080
    ///   modelctx serve filesystem --root ~/notes --root /srv/data --read-only
    ///   RUST_LOG=debug modelctx serve everything
    ///
    /// Environment:
    ///   MODELCTX_STATE_KEY=ID:BASE64SECRET
    ///       The key that seals the requestState of 2026-07-28 multi-round-trip requests
    ///       (HMAC-SHA256): an id (not empty, no '.') and a secret of at least 32 bytes in
    ///       base64 (standard or URL-safe, padding optional). Give every instance behind one
    ///       load balancer the same value, so that a retry may land on any of them. Unset,
    ///       each process makes a random key and only that process can continue the
    ///       requests it started. An invalid value is an error (exit status 1).
    ///       For example: MODELCTX_STATE_KEY="k1:$(openssl rand -base64 32)"
    #[command(verbatim_doc_comment)]
    Serve(serve::ServeArgs),
}

/// `modelctx serve …` alone: what a host spawns once per session, parsed without building
/// every other command's arguments (a fifth of the start-up's instructions).
#[derive(Parser)]
#[command(name = "modelctx serve")]
struct ServeOnly {
    #[command(flatten)]
    args: serve::ServeArgs,
}

/// The command of this process's arguments.
fn command() -> Command {
    if std::env::args_os().nth(1).is_some_and(|first| first == "serve")
        && let Ok(serve) = ServeOnly::try_parse_from(std::env::args_os().skip(1))
    {
        return Command::Serve(serve.args);
    }
    // Help, versions and errors, for `serve` too, come from the whole command line.
    Cli::parse().command
}

fn main() -> ExitCode {
    modelctx_servers::process::small_pages();
    match command() {
        Command::Bench(args) => bench::run(&args),
        Command::Demo => demo::run(),
        Command::Host(args) => host::run(&args),
        Command::Gateway(args) => gateway::run(&args),
        Command::Inspect(args) => inspect::web::run(&args),
        Command::Discover(args) => inspect::run_discover(&args),
        Command::Tools(command) => inspect::run_tools(&command),
        Command::Resources(command) => inspect::run_resources(&command),
        Command::Prompts(command) => inspect::run_prompts(&command),
        Command::Complete(args) => inspect::run_complete(&args),
        Command::Tasks(command) => inspect::run_tasks(&command),
        Command::Listen(args) => inspect::run_listen(&args),
        Command::Login(args) => login::run_login(&args),
        Command::Logout(args) => login::run_logout(&args),
        Command::Ping(args) => inspect::run_ping(&args),
        Command::Route(args) => route::run(&args),
        Command::Serve(args) => serve::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory as _, Parser as _};

    use super::{Cli, Command, ServeOnly};

    /// Both command lines are well formed (clap's own checks).
    #[test]
    fn both_command_lines_are_well_formed() {
        Cli::command().debug_assert();
        ServeOnly::command().debug_assert();
    }

    /// `serve` parsed alone takes the options the whole command line takes, before and after
    /// the server's name, and refuses what it refuses.
    #[test]
    fn serve_alone_takes_what_the_whole_command_line_takes() {
        let line =
            ["serve", "--threads", "2", "everything", "--http", "127.0.0.1:0", "--allowed-host", "a.example"];
        assert!(ServeOnly::try_parse_from(line).is_ok());
        let whole =
            Cli::try_parse_from(std::iter::once("modelctx").chain(line)).expect("the whole line parses");
        assert!(matches!(whole.command, Command::Serve(_)));
        let wrong = ["serve", "everything", "--threads", "0"];
        assert!(ServeOnly::try_parse_from(wrong).is_err());
        assert!(Cli::try_parse_from(std::iter::once("modelctx").chain(wrong)).is_err());
    }
}
