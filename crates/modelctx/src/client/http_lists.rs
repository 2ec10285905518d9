//! Lists over HTTP GET, the client's side (experimental, `modelctx_protocol::http_lists`): a
//! page fetched with `GET <endpoint>?mcp_list=…`, its `ETag` kept, and sent back in
//! `If-None-Match` the next time — a `304` answers with the page kept, no body sent again.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use modelctx_protocol::headers::MCP_PROTOCOL_VERSION;
use modelctx_protocol::http_lists::{ListKind, list_url};
use modelctx_protocol::{JsonObject, ProtocolVersion};
use reqwest::header::{ACCEPT, ETAG, IF_NONE_MATCH};

use super::{HttpLink, body_text, read_capped};
use crate::client::ClientError;

/// A list page fetched over GET.
#[derive(Clone, Debug)]
pub struct ListPage {
    /// The list result: `tools` (or `prompts`, `resources`, `resourceTemplates`),
    /// `nextCursor`, `ttlMs`, `cacheScope`.
    pub result: JsonObject,
    /// Whether the server said the page kept was still current (`304`): nothing was sent
    /// again.
    pub revalidated: bool,
}

/// The pages fetched, by URL, with their tags: at most `bound`; past it they are all
/// forgotten (a page not kept is fetched whole, which is only slower).
pub(crate) struct KeptPages {
    pages: Mutex<HashMap<String, (String, Bytes)>>,
    bound: usize,
}

impl KeptPages {
    /// Keeps at most `bound` pages (`ClientOptions::max_kept_list_pages`).
    pub(crate) fn new(bound: usize) -> Self {
        Self { pages: Mutex::default(), bound }
    }

    fn get(&self, url: &str) -> Option<(String, Bytes)> {
        self.pages.lock().unwrap_or_else(PoisonError::into_inner).get(url).cloned()
    }

    fn keep(&self, url: String, etag: String, body: Bytes) {
        let mut kept = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        if self.bound == 0 {
            return;
        }
        if kept.len() >= self.bound && !kept.contains_key(&url) {
            kept.clear();
        }
        kept.insert(url, (etag, body));
    }
}

impl HttpLink {
    /// The page of list `kind` at `cursor`, over GET: revalidated with its tag when kept.
    pub(crate) async fn get_list(
        &self,
        kind: ListKind,
        cursor: Option<&str>,
    ) -> Result<ListPage, ClientError> {
        let url = list_url(self.url.as_str(), kind, cursor);
        let version = self.settled().version.unwrap_or(ProtocolVersion::V2026_07_28);
        let kept = self.kept_pages.get(&url);
        let mut request = self
            .http
            .get(&url)
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json")
            .header(MCP_PROTOCOL_VERSION, version.to_string());
        if let Some((etag, _)) = &kept {
            request = request.header(IF_NONE_MATCH, etag);
        }
        let response = self.send(request, "GET (list)").await?;
        let status = response.status().as_u16();
        let (body, revalidated) = match (status, kept) {
            (304, Some((_, body))) => (body, true),
            (200, _) => {
                let etag = response.headers().get(ETAG).and_then(|tag| tag.to_str().ok()).map(str::to_owned);
                let body = read_capped(response, self.limits.max_message_bytes).await?;
                if let Some(etag) = etag {
                    self.kept_pages.keep(url, etag, body.clone());
                }
                (body, false)
            }
            _ => return Err(ClientError::http(status, body_text(response).await)),
        };
        let result = serde_json::from_slice(&body)
            .map_err(|e| ClientError::invalid_result(kind.method(), format!("not a list result: {e}")))?;
        Ok(ListPage { result, revalidated })
    }
}
