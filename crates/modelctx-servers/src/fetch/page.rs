//! Getting a page: an HTTP client bounded in size, time and redirects that reaches public
//! addresses only (unless allowed), and the robots.txt rules of the page's site.

use std::time::Duration;

use futures::StreamExt;
use modelctx::client::egress::Egress;
use reqwest::header::{CONTENT_TYPE, USER_AGENT};
use reqwest::{StatusCode, Url};

/// The most redirects a fetch follows.
const MAX_REDIRECTS: usize = 5;

/// The most of a robots.txt file that is read (the size crawlers honour).
const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// How a fetcher is bounded and where it may go.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The most bytes of a body that are read; the rest is left unread and the page is cut.
    pub max_bytes: usize,
    /// The longest a whole fetch (connecting, redirects, reading) may take.
    pub timeout: Duration,
    /// Which addresses may be reached.
    pub egress: Egress,
}

/// A fetched body.
#[derive(Debug)]
pub struct Page {
    /// The body as text (decoded by its charset; UTF-8 when it names none).
    pub text: String,
    /// Its `Content-Type`, when it has one.
    pub content_type: Option<String>,
    /// Whether the body was longer than [`Limits::max_bytes`] and cut there.
    pub cut: bool,
}

impl Page {
    /// Whether the body is HTML: its type says so, it has none, or it starts like a page.
    pub fn is_html(&self) -> bool {
        let start: String = self.text.chars().take(100).collect();
        start.to_ascii_lowercase().contains("<html")
            || self.content_type.as_deref().is_none_or(|kind| kind.contains("text/html"))
    }
}

/// Fetches pages within its limits.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    limits: Limits,
}

impl Fetcher {
    /// A fetcher within `limits`, through `proxy` when there is one (the proxy then decides
    /// where requests go: only literal addresses are checked).
    pub fn new(limits: Limits, proxy: Option<&str>) -> Result<Self, String> {
        let mut builder = limits
            .egress
            .client_builder()
            .timeout(limits.timeout)
            .connect_timeout(limits.timeout.min(Duration::from_secs(10)))
            .redirect(limits.egress.redirects(MAX_REDIRECTS));
        if let Some(proxy) = proxy {
            builder =
                builder.proxy(reqwest::Proxy::all(proxy).map_err(|e| format!("--proxy-url {proxy}: {e}"))?);
        }
        let client = builder.build().map_err(|e| format!("the HTTP client could not be built: {e}"))?;
        Ok(Self { client, limits })
    }

    /// Whether `url` may be fetched as far as it shows (its scheme, a literal address).
    pub fn check(&self, url: &Url) -> Result<(), String> {
        self.limits.egress.check_url(url)
    }

    /// GETs `url` as `user_agent`: the body, or why not.
    pub async fn get(&self, url: &Url, user_agent: &str) -> Result<(StatusCode, Page), String> {
        self.get_within(url, user_agent, self.limits.max_bytes).await
    }

    async fn get_within(
        &self,
        url: &Url,
        user_agent: &str,
        max_bytes: usize,
    ) -> Result<(StatusCode, Page), String> {
        self.limits.egress.check_url(url)?;
        let response = self
            .client
            .get(url.clone())
            .header(USER_AGENT, user_agent)
            .send()
            .await
            .map_err(|e| format!("Failed to fetch {url}: {}", cause_chain(&e)))?;
        let status = response.status();
        let content_type =
            response.headers().get(CONTENT_TYPE).and_then(|value| value.to_str().ok()).map(str::to_owned);
        let mut body = Vec::new();
        let mut cut = false;
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| format!("Failed to fetch {url}: {}", cause_chain(&e)))?;
            let room = max_bytes - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        let text = decoded(&body, content_type.as_deref());
        Ok((status, Page { text, content_type, cut }))
    }

    /// Whether the site's robots.txt lets `user_agent` fetch `url`: `Err` with the reason
    /// when it does not, or when robots.txt cannot be read (401 and 403 forbid fetching,
    /// other 4xx allow everything).
    pub async fn robots_allow(&self, url: &Url, user_agent: &str) -> Result<(), String> {
        let mut robots = url.clone();
        robots.set_path("/robots.txt");
        robots.set_query(None);
        robots.set_fragment(None);
        let (status, page) = self.get_within(&robots, user_agent, MAX_ROBOTS_BYTES).await.map_err(|why| {
            format!("Failed to fetch robots.txt {robots} due to a connection issue ({why})")
        })?;
        if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Err(format!(
                "When fetching robots.txt ({robots}), received status {} so assuming that autonomous fetching \
                 is not allowed, the user can try manually fetching by using the fetch prompt",
                status.as_u16()
            ));
        }
        if status.is_client_error() {
            return Ok(());
        }
        let agent = user_agent.split('/').next().unwrap_or(user_agent);
        let rules = texting_robots::Robot::new(agent, page.text.as_bytes())
            .map_err(|e| format!("robots.txt ({robots}) could not be read: {e}"))?;
        if rules.allowed(url.as_str()) {
            Ok(())
        } else {
            Err(format!(
                "The site's robots.txt ({robots}) does not allow autonomous fetching of this page for \
                 <useragent>{user_agent}</useragent>\n<url>{url}</url>\n<robots>\n{}\n</robots>\n\
                 The assistant must let the user know that it failed to view the page. The assistant may \
                 provide further guidance based on the above information. The assistant can tell the user \
                 that they can try manually fetching the page by using the fetch prompt within their UI.",
                page.text
            ))
        }
    }
}

/// `body` decoded by the charset its `content_type` names (a byte-order mark wins; UTF-8 when
/// it names none or an unknown one), bad sequences replaced.
fn decoded(body: &[u8], content_type: Option<&str>) -> String {
    let charset = content_type
        .and_then(|kind| kind.split(';').find_map(|part| part.trim().strip_prefix("charset=")))
        .map(|label| label.trim_matches('"'));
    let encoding = charset.and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()));
    encoding.unwrap_or(encoding_rs::UTF_8).decode(body).0.into_owned()
}

/// An error with its causes, which say what actually failed (a refused address, a timeout).
fn cause_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_decoded_by_their_charset() {
        assert_eq!(decoded("caf\u{e9}".as_bytes(), None), "caf\u{e9}");
        assert_eq!(decoded(b"caf\xe9", Some("text/html; charset=ISO-8859-1")), "caf\u{e9}");
        assert_eq!(decoded(b"caf\xe9", Some("text/plain; charset=\"windows-1252\"")), "caf\u{e9}");
        assert_eq!(decoded(b"ok", Some("text/plain; charset=no-such-thing")), "ok");
    }

    #[test]
    fn html_is_told_by_its_type_or_its_start() {
        let page = |text: &str, kind: Option<&str>| Page {
            text: text.into(),
            content_type: kind.map(Into::into),
            cut: false,
        };
        assert!(page("<!doctype html><HTML>", Some("application/octet-stream")).is_html());
        assert!(page("x", Some("text/html; charset=utf-8")).is_html());
        assert!(page("x", None).is_html());
        assert!(!page("{\"a\":1}", Some("application/json")).is_html());
    }
}
