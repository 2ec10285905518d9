//! Lists over HTTP GET (experimental): the transports working group's exploratory draft "HTTP
//! Retrieval and Caching of MCP Lists" (`proposals/XXXX-http-list-retrieval-and-caching.md` at
//! `8e2ea64a`, 2026-09-08). A list result is fetched with `GET <endpoint>?mcp_list=tools`
//! (`&cursor=…` for a later page) as the bare result object, so that ordinary HTTP caching and
//! `ETag` / `If-None-Match` revalidation apply to it. The draft allocates no identifier, field
//! or error: the ones here are this crate's choices, named in docs/extensions.md.

use crate::Method;
use crate::percent::{decode, encode_unreserved};

/// The identifier a server declares in `capabilities.extensions` when it serves its lists over
/// GET (none is allocated by the draft; this one is outside the namespaces MCP reserves).
pub const EXTENSION_ID: &str = "io.github.modelctx/http-lists";

/// The query parameter that selects a list.
pub const LIST_QUERY: &str = "mcp_list";

/// The query parameter of a later page's cursor.
pub const CURSOR_QUERY: &str = "cursor";

/// A list served over GET.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
}

impl ListKind {
    /// Every list, in the order a server declares them.
    pub const ALL: [Self; 4] = [Self::Tools, Self::Prompts, Self::Resources, Self::ResourceTemplates];

    /// Its selector: the value of [`LIST_QUERY`].
    pub fn selector(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
            Self::ResourceTemplates => "resource-templates",
        }
    }

    /// The list method it stands for.
    pub fn method(self) -> Method {
        match self {
            Self::Tools => Method::ListTools,
            Self::Prompts => Method::ListPrompts,
            Self::Resources => Method::ListResources,
            Self::ResourceTemplates => Method::ListResourceTemplates,
        }
    }

    /// The list a selector names.
    pub fn from_selector(selector: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.selector() == selector)
    }
}

/// What a list GET asks for: the list and the cursor of its page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListQuery {
    /// The list.
    pub kind: ListKind,
    /// The page after the first, by the cursor the previous page gave.
    pub cursor: Option<String>,
}

/// Reads a request's query: `None` when it selects no list (a GET of the endpoint itself, the
/// stream of a session); an error naming the fault for an unknown selector, an unknown or
/// repeated parameter (the draft: rejected rather than ignored), or bad percent-encoding.
pub fn parse_query(query: Option<&str>) -> Option<Result<ListQuery, String>> {
    let query = query?;
    let pairs: Vec<(&str, &str)> =
        query.split('&').map(|pair| pair.split_once('=').unwrap_or((pair, ""))).collect();
    if !pairs.iter().any(|(name, _)| *name == LIST_QUERY) {
        return None;
    }
    Some(read_pairs(&pairs))
}

/// The list and cursor of a list GET's query parameters.
fn read_pairs(pairs: &[(&str, &str)]) -> Result<ListQuery, String> {
    let (mut selector, mut cursor) = (None, None);
    for (name, value) in pairs {
        let slot = match *name {
            LIST_QUERY => &mut selector,
            CURSOR_QUERY => &mut cursor,
            other => return Err(format!("the query parameter {other:?} is not one of a list's")),
        };
        let value = decode(value).ok_or_else(|| format!("{name}: not percent-encoded UTF-8"))?;
        if slot.replace(value).is_some() {
            return Err(format!("the query parameter {name:?} is repeated"));
        }
    }
    let selector = selector.unwrap_or_default();
    let kind = ListKind::from_selector(&selector).ok_or_else(|| {
        format!("{LIST_QUERY}={selector:?} selects no list (tools, prompts, resources, resource-templates)")
    })?;
    Ok(ListQuery { kind, cursor })
}

/// The URL of a list's page at `endpoint` (whose own query, if any, is kept).
pub fn list_url(endpoint: &str, kind: ListKind, cursor: Option<&str>) -> String {
    let separator = if endpoint.contains('?') { '&' } else { '?' };
    let mut url = format!("{endpoint}{separator}{LIST_QUERY}={}", kind.selector());
    if let Some(cursor) = cursor {
        url.push_str(&format!("&{CURSOR_QUERY}={}", encode_unreserved(cursor)));
    }
    url
}

/// The `Cache-Control` of a list page: `max-age` at most `floor(ttlMs / 1000)` (0 without a
/// `ttlMs`), `must-revalidate`, `private` unless the server opted in to `public` HTTP caching
/// and the page says `cacheScope: "public"`.
pub fn cache_control(ttl_ms: Option<u64>, public: bool) -> String {
    let scope = if public { "public" } else { "private" };
    format!("{scope}, max-age={}, must-revalidate", ttl_ms.unwrap_or(0) / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_selects_a_list_and_its_page_or_nothing() {
        assert_eq!(parse_query(None), None);
        assert_eq!(parse_query(Some("")), None);
        assert_eq!(parse_query(Some("sessionless=1")), None, "not a list GET");
        let first = parse_query(Some("mcp_list=tools")).unwrap().unwrap();
        assert_eq!(first, ListQuery { kind: ListKind::Tools, cursor: None });
        let url = list_url("http://h/mcp", ListKind::ResourceTemplates, Some("a+b/c="));
        let query = url.split_once('?').unwrap().1;
        let page = parse_query(Some(query)).unwrap().unwrap();
        assert_eq!(page, ListQuery { kind: ListKind::ResourceTemplates, cursor: Some("a+b/c=".into()) });
    }

    #[test]
    fn unknown_repeated_or_broken_parameters_are_refused() {
        for bad in ["mcp_list=tool", "mcp_list=tools&mcp_list=prompts", "mcp_list=tools&x=1", "mcp_list=%zz"]
        {
            assert!(parse_query(Some(bad)).unwrap().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_endpoints_own_query_is_kept() {
        assert_eq!(
            list_url("http://h/mcp?tenant=a", ListKind::Tools, None),
            "http://h/mcp?tenant=a&mcp_list=tools"
        );
    }

    #[test]
    fn max_age_follows_ttl_and_scope_is_private_by_default() {
        assert_eq!(cache_control(Some(60_999), false), "private, max-age=60, must-revalidate");
        assert_eq!(cache_control(None, true), "public, max-age=0, must-revalidate");
    }
}
