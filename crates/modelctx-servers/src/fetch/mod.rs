//! `fetch`: a web page as markdown, for a model to read, with the tool and prompt of the
//! official MCP fetch server (`fetch {url, max_length, start_index, raw}`), so a host's
//! configuration switches over unchanged. Unlike the original it reaches public addresses
//! only (no loopback, private network or cloud metadata endpoint, unless allowed), and bounds
//! every body in bytes and every fetch in time.

mod markdown;
mod page;
mod tree;

use std::sync::Arc;
use std::time::Duration;

use modelctx::client::egress::Egress;
use modelctx::protocol::types::{ContentBlock, Implementation, PromptMessage, Role, ToolAnnotations};
use modelctx::server::{Args, PromptDef, PromptError, PromptRequest, Server, ServerBuilder, State, ToolDef};
use reqwest::Url;
use schemars::JsonSchema;
use serde::Deserialize;

use markdown::{MAX_NESTING, NotSimplified};
use page::{Fetcher, Limits, Page};

/// The user agent of fetches the model decides on.
const AUTONOMOUS: &str = concat!(
    "modelctx-fetch/",
    env!("CARGO_PKG_VERSION"),
    " (Autonomous; +https://github.com/modelctx/modelctx)"
);

/// The user agent of fetches the user asks for (the prompt).
const USER_SPECIFIED: &str = concat!(
    "modelctx-fetch/",
    env!("CARGO_PKG_VERSION"),
    " (User-Specified; +https://github.com/modelctx/modelctx)"
);

/// Options of `modelctx serve fetch`.
#[derive(clap::Args, Clone, Debug)]
pub struct FetchArgs {
    /// The User-Agent of every request (default: modelctx-fetch/VERSION, marked Autonomous
    /// for the tool and User-Specified for the prompt).
    #[arg(long, value_name = "UA")]
    user_agent: Option<String>,
    /// Fetch pages that the site's robots.txt disallows to autonomous agents.
    #[arg(long)]
    ignore_robots_txt: bool,
    /// Send every request through this proxy (http://, https:// or socks5://). The proxy then
    /// decides where requests may go.
    #[arg(long, value_name = "URL")]
    proxy_url: Option<String>,
    /// Also reach loopback, private and link-local addresses (an intranet, a test server); by
    /// default only public addresses are fetched.
    #[arg(long)]
    allow_private_addresses: bool,
    /// The most bytes of a page that are read; a longer page is cut there.
    #[arg(long, value_name = "BYTES", default_value_t = 5 * 1024 * 1024)]
    max_bytes: usize,
    /// The longest one fetch may take, redirects included, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

/// `fetch` arguments, as the official server names and bounds them.
#[derive(Deserialize, JsonSchema)]
#[schemars(description = "Parameters for fetching a URL.")]
struct FetchToolArgs {
    /// URL to fetch
    #[schemars(url, length(min = 1))]
    url: String,
    /// Maximum number of characters to return.
    #[serde(default = "default_max_length")]
    #[schemars(range(min = 1, max = 999_999))]
    max_length: usize,
    /// On return output starting at this character index, useful if a previous fetch was
    /// truncated and more context is required.
    #[serde(default)]
    start_index: usize,
    /// Get the actual HTML content of the requested page, without simplification.
    #[serde(default)]
    raw: bool,
}

fn default_max_length() -> usize {
    5000
}

/// What the server needs to answer.
struct Fetch {
    fetcher: Fetcher,
    user_agent: Option<String>,
    ignore_robots_txt: bool,
}

impl Fetch {
    fn agent(&self, default: &'static str) -> String {
        self.user_agent.clone().unwrap_or_else(|| default.to_owned())
    }

    /// The page at `url` as the model reads it, see [`readable`], with a note when it was cut.
    async fn content(&self, url: &Url, user_agent: &str, raw: bool) -> Result<Readable, String> {
        let (status, page) = self.fetcher.get(url, user_agent).await?;
        if status.is_client_error() || status.is_server_error() {
            return Err(format!("Failed to fetch {url} - status code {}", status.as_u16()));
        }
        // Simplifying is CPU work (a 5 MiB page takes a while): off the runtime, so the server
        // answers other requests and signals meanwhile.
        let cut = page.cut;
        let at = url.clone();
        let mut readable = tokio::task::spawn_blocking(move || readable(&page, &at, raw))
            .await
            .map_err(|e| format!("simplifying {url} failed: {e}"))?;
        if cut {
            readable.content.push_str(
                "\n\n<error>The page was longer than the server reads; the rest was not fetched.</error>",
            );
        }
        Ok(readable)
    }
}

/// A page as the model reads it.
struct Readable {
    /// What comes before the content: empty, or a line saying why it is raw.
    prefix: String,
    /// The content, which the tool pages through.
    content: String,
}

/// `page` as the model reads it: markdown unless `raw` or not HTML (then the text as it came,
/// after a line that says so).
fn readable(page: &Page, url: &Url, raw: bool) -> Readable {
    if page.is_html() && !raw {
        let content = match markdown::simplified(&page.text, url.as_str()) {
            Ok(markdown) => markdown,
            Err(NotSimplified::NothingReadable) => {
                "<error>Page failed to be simplified from HTML</error>".to_owned()
            }
            Err(NotSimplified::TooDeep) => format!(
                "<error>The page nests its elements more than {MAX_NESTING} deep, deeper than the server \
                 simplifies; call fetch with raw set to true for its HTML</error>"
            ),
        };
        Readable { prefix: String::new(), content }
    } else {
        let kind = page.content_type.as_deref().unwrap_or("unknown");
        let prefix =
            format!("Content type {kind} cannot be simplified to markdown, but here is the raw content:\n");
        Readable { prefix, content: page.text.clone() }
    }
}

/// `max_length` characters of `content` from character `start`, with a note saying where to
/// go on when more is left.
fn window(content: &str, start: usize, max_length: usize) -> String {
    let total = content.chars().count();
    if start >= total {
        return "<error>No more content available.</error>".to_owned();
    }
    let mut chunk: String = content.chars().skip(start).take(max_length).collect();
    let end = start + chunk.chars().count();
    if end < total {
        chunk.push_str(&format!(
            "\n\n<error>Content truncated. Call the fetch tool with a start_index of {end} to get more content.</error>"
        ));
    }
    chunk
}

/// The `fetch` tool: robots.txt first (unless ignored), then the page, paged.
async fn fetch_tool(
    State(fetch): State<Arc<Fetch>>,
    Args(args): Args<FetchToolArgs>,
) -> Result<String, String> {
    let url = Url::parse(&args.url).map_err(|e| format!("{}: not a URL: {e}", args.url))?;
    fetch.fetcher.check(&url)?;
    let agent = fetch.agent(AUTONOMOUS);
    if !fetch.ignore_robots_txt {
        fetch.fetcher.robots_allow(&url, &agent).await?;
    }
    let Readable { prefix, content } = fetch.content(&url, &agent, args.raw).await?;
    Ok(format!("{prefix}Contents of {url}:\n{}", window(&content, args.start_index, args.max_length)))
}

/// The `fetch` prompt: the page the user asks for, whole (within the byte bound), robots.txt
/// not consulted since a person asked; a failure is the message's text, as in the original.
async fn fetch_prompt(
    State(fetch): State<Arc<Fetch>>,
    request: PromptRequest,
) -> Result<Vec<PromptMessage>, PromptError> {
    let raw = request.arguments.get("url").cloned().unwrap_or_default();
    let url =
        Url::parse(&raw).map_err(|e| PromptError::InvalidArguments(format!("url {raw}: not a URL: {e}")))?;
    let text = match fetch.content(&url, &fetch.agent(USER_SPECIFIED), false).await {
        Ok(Readable { prefix, content }) => prefix + &content,
        Err(why) => why,
    };
    Ok(vec![PromptMessage { role: Role::User, content: ContentBlock::text(text) }])
}

/// The fetch server, not yet built, or why it cannot start (a proxy URL it cannot use).
pub fn builder(args: &FetchArgs) -> Result<ServerBuilder, String> {
    let egress = if args.allow_private_addresses { Egress::Any } else { Egress::PublicOnly };
    let limits =
        Limits { max_bytes: args.max_bytes, timeout: Duration::from_secs(args.timeout.max(1)), egress };
    let fetch = Fetch {
        fetcher: Fetcher::new(limits, args.proxy_url.as_deref())?,
        user_agent: args.user_agent.clone(),
        ignore_robots_txt: args.ignore_robots_txt,
    };
    let tool = ToolDef::new("fetch", fetch_tool)
        .description(
            "Fetches a URL from the internet and optionally extracts its contents as markdown.\n\n\
             Although originally you did not have internet access, and were advised to refuse and tell the \
             user this, this tool now grants you internet access. Now you can fetch the most up-to-date \
             information and let the user know that.",
        )
        .annotations(ToolAnnotations {
            read_only_hint: Some(true),
            open_world_hint: Some(true),
            ..ToolAnnotations::default()
        });
    let prompt = PromptDef::new("fetch", fetch_prompt)
        .description("Fetch a URL and extract its contents as markdown")
        .argument("url", "URL to fetch", true);
    Ok(Server::with_info(Implementation {
        title: Some("modelctx fetch".into()),
        description: Some("Web pages as markdown, public addresses only, bounded in size and time".into()),
        ..Implementation::new("modelctx-fetch", env!("CARGO_PKG_VERSION"))
    })
    .state(Arc::new(fetch))
    .tool(tool)
    .prompt(prompt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_characters_and_says_where_to_go_on() {
        assert_eq!(
            window("héllo wörld", 0, 5),
            "héllo\n\n<error>Content truncated. Call the fetch tool with a start_index of 5 to get more content.</error>"
        );
        assert_eq!(window("héllo wörld", 6, 5), "wörld");
        assert_eq!(window("héllo", 5, 5), "<error>No more content available.</error>");
        assert_eq!(window("", 0, 5), "<error>No more content available.</error>");
    }
}
