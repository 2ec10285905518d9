//! Server cards over HTTP (SEP-2127, experimental): a server's card at
//! `<endpoint>/server-card` and, from `serve_http_at`, the AI Catalog of every endpoint's card
//! at `/.well-known/ai-catalog.json`. Both are public, read-only documents: served before
//! authentication and the origin check, with open CORS (the draft's MUST), `Cache-Control`,
//! an `ETag` and `304 Not Modified` for a matching `If-None-Match`.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use http_body_util::{BodyExt, Full};
use modelctx_protocol::server_card::{AiCatalog, CARD_SUFFIX, CATALOG_MEDIA_TYPE, MEDIA_TYPE};

use super::McpBody;
use super::body::empty;
use super::etag::{entity_tag, still_current};
use crate::server::Server;

/// The scheme and authority a request reached, as `http://host:port`: its `Host` header (or
/// the URI's authority, as HTTP/2 sends it), `https` when the URI or `X-Forwarded-Proto` says
/// so. `None` without a host.
pub(super) fn request_origin(uri: &Uri, headers: &HeaderMap) -> Option<String> {
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| uri.authority().map(http::uri::Authority::as_str))?;
    let forwarded = headers.get("x-forwarded-proto").and_then(|proto| proto.to_str().ok());
    let scheme = match (uri.scheme_str(), forwarded) {
        (_, Some(proto)) if proto.eq_ignore_ascii_case("https") => "https",
        (Some("https"), _) => "https",
        _ => "http",
    };
    Some(format!("{scheme}://{host}"))
}

/// The answer to a request for `server`'s card at `path` (`<endpoint>/server-card`); `None`
/// when `path` is not a card's or the server serves none.
pub(super) fn answer<B>(server: &Server, request: &Request<B>) -> Option<Response<McpBody>> {
    let endpoint = request.uri().path().strip_suffix(CARD_SUFFIX)?;
    let settings = server.card_settings()?;
    let origin = request_origin(request.uri(), request.headers());
    if origin.is_none() && settings.configured_url().is_none() {
        return Some(empty(StatusCode::BAD_REQUEST));
    }
    let card = server.card(&format!("{}{endpoint}", origin.unwrap_or_default()))?;
    Some(served(request, &card, MEDIA_TYPE, settings.card_max_age().as_secs()))
}

/// The catalog of the cards of `endpoints` (each a path and its server) as reached by
/// `request`, at `/.well-known/ai-catalog.json`; entries for the servers that serve a card.
pub(super) fn catalog<'a, B>(
    request: &Request<B>,
    endpoints: impl Iterator<Item = (&'a str, &'a Server)>,
) -> Response<McpBody> {
    let Some(origin) = request_origin(request.uri(), request.headers()) else {
        return empty(StatusCode::BAD_REQUEST);
    };
    let mut max_age = u64::MAX;
    let entries = endpoints
        .filter_map(|(path, server)| {
            let settings = server.card_settings()?;
            max_age = max_age.min(settings.card_max_age().as_secs());
            let card = server.card(&format!("{origin}{path}"))?;
            let url = match settings.configured_url() {
                Some(public) => format!("{public}{CARD_SUFFIX}"),
                None => format!("{origin}{path}{CARD_SUFFIX}"),
            };
            Some(card.catalog_entry(url))
        })
        .collect::<Vec<_>>();
    if entries.is_empty() {
        return empty(StatusCode::NOT_FOUND);
    }
    served(request, &AiCatalog::new(entries), CATALOG_MEDIA_TYPE, max_age)
}

/// `document` as a public, cacheable response to `request`: `200` with the document, `304`
/// when `If-None-Match` names its tag, `204` to a CORS preflight, `405` to any method but GET,
/// HEAD and OPTIONS.
fn served<B>(
    request: &Request<B>,
    document: &impl serde::Serialize,
    media_type: &str,
    max_age: u64,
) -> Response<McpBody> {
    let method = request.method();
    if method == Method::OPTIONS {
        return with_cors(Response::builder().status(StatusCode::NO_CONTENT), max_age, None)
            .body(Full::new(Bytes::new()).boxed_unsync())
            .expect("a valid response");
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD, OPTIONS"));
        return response;
    }
    let body = serde_json::to_vec(document).expect("a document serialises");
    let etag = entity_tag(&body);
    let unchanged = still_current(request.headers(), &etag);
    let (status, body) = match (unchanged, method == Method::HEAD) {
        (true, _) => (StatusCode::NOT_MODIFIED, Bytes::new()),
        (false, true) => (StatusCode::OK, Bytes::new()),
        (false, false) => (StatusCode::OK, Bytes::from(body)),
    };
    with_cors(Response::builder().status(status), max_age, Some(&etag))
        .header(header::CONTENT_TYPE, media_type)
        .body(Full::new(body).boxed_unsync())
        .expect("a valid response")
}

/// The CORS and caching headers of a public document (the draft's list, verbatim).
fn with_cors(builder: http::response::Builder, max_age: u64, etag: Option<&str>) -> http::response::Builder {
    let builder = builder
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header(header::ACCESS_CONTROL_ALLOW_METHODS, "GET")
        .header(header::ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type, If-None-Match")
        .header(header::ACCESS_CONTROL_EXPOSE_HEADERS, "ETag")
        .header(header::CACHE_CONTROL, format!("public, max-age={max_age}"));
    match etag {
        Some(etag) => builder.header(header::ETAG, etag),
        None => builder,
    }
}
