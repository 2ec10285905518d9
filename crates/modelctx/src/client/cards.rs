//! Server cards and AI Catalogs, fetched (SEP-2127, experimental): a domain's catalog at
//! `/.well-known/ai-catalog.json`, the cards it lists (by URL or inline), and a server's card
//! at `<endpoint>/server-card`. Each document is asked for by its media type, read within a
//! byte bound and a timeout, checked against the draft's rules, and kept: a copy still fresh
//! by its `Cache-Control` is answered without a request, a stale one is revalidated with
//! `If-None-Match` (a `304` keeps it). A card is advisory — connect, then compare it with what
//! the server says ([`ServerCard::disagreements`]); the live values win.
//!
//! ```no_run
//! # async fn run() -> Result<(), modelctx::client::cards::CardFetchError> {
//! use modelctx::client::cards::CardFetcher;
//! use modelctx::client::egress::Egress;
//!
//! let cards = CardFetcher::new(Egress::PublicOnly)?;
//! for found in cards.catalog("https://example.com").await? {
//!     if let Ok(card) = found.card {
//!         println!("{} {}", card.name, card.description);
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use modelctx_protocol::server_card::{
    AiCatalog, CARD_SUFFIX, CATALOG_MEDIA_TYPE, CATALOG_PATH, MEDIA_TYPE, ServerCard,
};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CACHE_CONTROL, ETAG, IF_NONE_MATCH};

use super::egress::Egress;

/// The bounds of a [`CardFetcher`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardLimits {
    /// The largest card or catalog read (256 KiB): past it the fetch fails.
    pub max_document_bytes: usize,
    /// How long one fetch may take, redirects included (10 s).
    pub timeout: Duration,
    /// How many documents are kept for revalidation (256); past it the oldest is forgotten.
    pub max_kept: usize,
    /// How many redirects one fetch follows (5), each checked against the egress rule.
    pub max_redirects: usize,
}

impl Default for CardLimits {
    fn default() -> Self {
        Self {
            max_document_bytes: 256 * 1024,
            timeout: Duration::from_secs(10),
            max_kept: 256,
            max_redirects: 5,
        }
    }
}

/// The URL of the card of the server whose Streamable HTTP endpoint is `endpoint`.
pub fn card_url(endpoint: &str) -> String {
    format!("{}{CARD_SUFFIX}", endpoint.trim_end_matches('/'))
}

/// Why a card or a catalog could not be had.
#[derive(Debug)]
#[non_exhaustive]
pub enum CardFetchError {
    /// The request failed: refused by the egress rule, unreachable, out of time.
    Request {
        /// The URL asked for.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The server answered another status than 200 or 304.
    Status {
        /// The URL asked for.
        url: String,
        /// The status.
        status: u16,
    },
    /// The document was larger than the bound.
    TooLarge {
        /// The URL asked for.
        url: String,
        /// The bound, in bytes.
        limit: usize,
    },
    /// The document is not a valid card or catalog.
    Invalid {
        /// Where it came from.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for CardFetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Request { url, reason } => write!(f, "{url}: {reason}"),
            Self::Status { url, status } => write!(f, "{url}: answered HTTP {status}"),
            Self::TooLarge { url, limit } => write!(f, "{url}: the document is larger than {limit} bytes"),
            Self::Invalid { url, reason } => write!(f, "{url}: {reason}"),
        }
    }
}

impl std::error::Error for CardFetchError {}

/// How a document was had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Fetched whole.
    Fetched,
    /// The copy kept was stale; the server said it had not changed (`304`).
    Revalidated,
    /// The copy kept was fresh: no request was made.
    Kept,
}

/// A document and how it was had.
#[derive(Clone, Debug)]
pub struct Fetched<T> {
    /// The document.
    pub document: T,
    /// Fetched, revalidated or kept.
    pub freshness: Freshness,
}

/// A card a catalog lists.
#[derive(Debug)]
pub struct DiscoveredCard {
    /// The entry's identifier (`urn:air:example.com:mcp:weather`).
    pub identifier: String,
    /// Where the card was fetched from; `None` for a card given inline.
    pub url: Option<String>,
    /// The card, or why it could not be had.
    pub card: Result<ServerCard, CardFetchError>,
}

/// A copy kept for revalidation.
struct Kept {
    body: Bytes,
    etag: Option<String>,
    fresh_until: Option<Instant>,
    stored: Instant,
}

/// Fetches cards and catalogs, keeping what it fetched (up to [`CardLimits::max_kept`]).
pub struct CardFetcher {
    http: reqwest::Client,
    limits: CardLimits,
    kept: Mutex<HashMap<String, Kept>>,
}

impl CardFetcher {
    /// A fetcher with the default [`CardLimits`] whose requests (redirects included) go where
    /// `egress` allows: a catalog may name cards on any domain, so `Egress::PublicOnly` unless
    /// the network is trusted.
    pub fn new(egress: Egress) -> Result<Self, CardFetchError> {
        Self::with_limits(egress, CardLimits::default())
    }

    /// [`CardFetcher::new`] within `limits`.
    pub fn with_limits(egress: Egress, limits: CardLimits) -> Result<Self, CardFetchError> {
        let http = egress
            .client_builder()
            .redirect(egress.redirects(limits.max_redirects))
            .timeout(limits.timeout)
            .build()
            .map_err(|e| CardFetchError::Request { url: String::new(), reason: e.to_string() })?;
        Ok(Self { http, limits, kept: Mutex::new(HashMap::new()) })
    }

    /// The card at `url`, checked against the draft's rules.
    pub async fn card(&self, url: &str) -> Result<Fetched<ServerCard>, CardFetchError> {
        let (body, freshness) = self.get(url, MEDIA_TYPE).await?;
        Ok(Fetched { document: parse_card(url, &body)?, freshness })
    }

    /// The catalog at `url`.
    pub async fn catalog_at(&self, url: &str) -> Result<Fetched<AiCatalog>, CardFetchError> {
        let (body, freshness) = self.get(url, CATALOG_MEDIA_TYPE).await?;
        let catalog: AiCatalog = serde_json::from_slice(&body).map_err(|e| CardFetchError::Invalid {
            url: url.to_owned(),
            reason: format!("not an AI Catalog: {e}"),
        })?;
        Ok(Fetched { document: catalog, freshness })
    }

    /// The cards `origin`'s catalog lists (`https://example.com` →
    /// `https://example.com/.well-known/ai-catalog.json`): each entry of the card media type,
    /// fetched from its `url` or read from its `data`; an entry that gives both or neither, or
    /// whose card is invalid, is listed with its error.
    pub async fn catalog(&self, origin: &str) -> Result<Vec<DiscoveredCard>, CardFetchError> {
        let catalog_url = format!("{}{CATALOG_PATH}", origin.trim_end_matches('/'));
        let catalog = self.catalog_at(&catalog_url).await?.document;
        let mut found = Vec::new();
        for entry in catalog.entries.into_iter().filter(|entry| entry.is_card()) {
            let card = match (entry.validate(), &entry.url, entry.data) {
                (Err(e), ..) => {
                    Err(CardFetchError::Invalid { url: catalog_url.clone(), reason: e.to_string() })
                }
                (Ok(()), Some(url), _) => self.card(url).await.map(|fetched| fetched.document),
                (Ok(()), None, Some(data)) => parse_card(&catalog_url, &Bytes::from(data.to_string())),
                (Ok(()), None, None) => unreachable!("validate requires url or data"),
            };
            found.push(DiscoveredCard { identifier: entry.identifier, url: entry.url, card });
        }
        Ok(found)
    }

    /// The body at `url`: the copy kept when still fresh, else fetched (revalidating a stale
    /// copy with its tag).
    async fn get(&self, url: &str, media_type: &str) -> Result<(Bytes, Freshness), CardFetchError> {
        let now = Instant::now();
        let etag = {
            let kept = self.kept.lock().expect("the kept documents");
            match kept.get(url) {
                Some(copy) if copy.fresh_until.is_some_and(|until| until > now) => {
                    return Ok((copy.body.clone(), Freshness::Kept));
                }
                Some(copy) => copy.etag.clone(),
                None => None,
            }
        };
        let failed =
            |e: reqwest::Error| CardFetchError::Request { url: url.to_owned(), reason: e.to_string() };
        let mut request = self.http.get(url).header(ACCEPT, media_type);
        if let Some(etag) = &etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        let mut response = request.send().await.map_err(failed)?;
        let fresh_until = fresh_until(response.headers().get(CACHE_CONTROL));
        if response.status() == StatusCode::NOT_MODIFIED && etag.is_some() {
            let mut kept = self.kept.lock().expect("the kept documents");
            if let Some(copy) = kept.get_mut(url) {
                copy.fresh_until = fresh_until;
                return Ok((copy.body.clone(), Freshness::Revalidated));
            }
        }
        if response.status() != StatusCode::OK {
            return Err(CardFetchError::Status { url: url.to_owned(), status: response.status().as_u16() });
        }
        let new_etag = response.headers().get(ETAG).and_then(|tag| tag.to_str().ok()).map(str::to_owned);
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > self.limits.max_document_bytes {
                return Err(CardFetchError::TooLarge {
                    url: url.to_owned(),
                    limit: self.limits.max_document_bytes,
                });
            }
            body.extend_from_slice(&chunk);
        }
        let body = Bytes::from(body);
        self.keep(url, Kept { body: body.clone(), etag: new_etag, fresh_until, stored: now });
        Ok((body, Freshness::Fetched))
    }

    /// Keeps `copy` of `url`, forgetting the oldest copy when full.
    fn keep(&self, url: &str, copy: Kept) {
        let mut kept = self.kept.lock().expect("the kept documents");
        if kept.len() >= self.limits.max_kept.max(1) && !kept.contains_key(url) {
            let oldest = kept.iter().min_by_key(|(_, copy)| copy.stored).map(|(url, _)| url.clone());
            if let Some(oldest) = oldest {
                kept.remove(&oldest);
            }
        }
        kept.insert(url.to_owned(), copy);
    }
}

/// A card from `body`, checked.
fn parse_card(url: &str, body: &Bytes) -> Result<ServerCard, CardFetchError> {
    let invalid = |reason: String| CardFetchError::Invalid { url: url.to_owned(), reason };
    let card: ServerCard =
        serde_json::from_slice(body).map_err(|e| invalid(format!("not a server card: {e}")))?;
    card.validate().map_err(|e| invalid(format!("an invalid server card: {e}")))?;
    Ok(card)
}

/// Until when a response may be used without asking again, from its `Cache-Control`:
/// `max-age` seconds from now, never with `no-cache` or `no-store`.
fn fresh_until(cache_control: Option<&reqwest::header::HeaderValue>) -> Option<Instant> {
    let directives = cache_control?.to_str().ok()?;
    let mut max_age = None;
    for directive in directives.split(',').map(str::trim) {
        if directive.eq_ignore_ascii_case("no-cache") || directive.eq_ignore_ascii_case("no-store") {
            return None;
        }
        if let Some(seconds) = directive.strip_prefix("max-age=") {
            max_age = seconds.trim_matches('"').parse::<u64>().ok();
        }
    }
    Instant::now().checked_add(Duration::from_secs(max_age?))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::{card_url, fresh_until};

    #[test]
    fn a_cards_url_is_its_endpoints_plus_server_card() {
        assert_eq!(card_url("https://host/mcp"), "https://host/mcp/server-card");
        assert_eq!(card_url("https://host/mcp/"), "https://host/mcp/server-card");
    }

    #[test]
    fn freshness_follows_max_age_unless_told_not_to_keep() {
        assert!(fresh_until(Some(&HeaderValue::from_static("public, max-age=3600"))).is_some());
        assert!(fresh_until(Some(&HeaderValue::from_static("max-age=60, no-cache"))).is_none());
        assert!(fresh_until(Some(&HeaderValue::from_static("public"))).is_none());
        assert!(fresh_until(None).is_none());
    }
}
