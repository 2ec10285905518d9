//! Lists over HTTP GET (experimental, `modelctx_protocol::http_lists`): `GET
//! <endpoint>?mcp_list=tools[&cursor=…]` answered with the bare list result, cacheable by HTTP:
//! `Cache-Control: private, max-age=⌊ttlMs/1000⌋, must-revalidate`, `Vary`, an `ETag`, and
//! `304 Not Modified` for a matching `If-None-Match`. The list is asked for as a stateless
//! 2026-07-28 POST of the same method would be — through the same front desk, layers,
//! authorization and scopes — by a client that declares no capabilities; authentication
//! happened before this module is reached, so a caller refused never learns a tag.

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use modelctx_protocol::http_lists::{ListQuery, cache_control};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject};
use serde_json::{Value, json};

use super::body::error_response;
use super::etag::{entity_tag, still_current};
use super::{McpBody, Shared, names, post};
use crate::server::Principal;

/// What a cached list page varies by.
const VARY: &str = "Authorization, MCP-Protocol-Version, Accept";

/// Answers a list GET: the page `query` names, or why not.
pub(super) async fn answer(
    shared: &Arc<Shared>,
    parts: &http::request::Parts,
    query: Result<ListQuery, String>,
    principal: Option<Arc<Principal>>,
) -> Response<McpBody> {
    let query = match query {
        Ok(query) => query,
        Err(why) => return error_response(400, None, ErrorObject::invalid_params(why)),
    };
    let Some(version) = names::text(names::RequestHeaders::of(&parts.headers).protocol_version) else {
        let why = "a list GET names its protocol version in MCP-Protocol-Version (2026-07-28)";
        return error_response(400, None, ErrorObject::invalid_request(why));
    };
    let method = query.kind.method();
    let mut params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }});
    if let Some(cursor) = &query.cursor {
        params["cursor"] = json!(cursor);
    }
    let request = json!({"jsonrpc": "2.0", "id": 0, "method": method.as_str(), "params": params});
    let mut posted = parts.clone();
    posted.method = Method::POST;
    let method_header = HeaderValue::from_str(method.as_str()).expect("a method name is a header value");
    posted.headers.insert(names::METHOD, method_header);
    posted.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    posted.headers.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
    posted.headers.remove(names::SESSION_ID);
    let headers = names::RequestHeaders::of(&posted.headers);
    let answered = post::handle(shared, headers, &Bytes::from(request.to_string()), principal, None).await;
    let status = answered.status();
    let body = match answered.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    let mut message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        // An authorization refusal (401, 403) and the like: as the POST was answered.
        Err(_) => return passed_on(status, body),
    };
    match message.get_mut("result").map(Value::take) {
        Some(result) => page(&parts.headers, &result),
        None => {
            let error = serde_json::from_value(message["error"].take())
                .unwrap_or_else(|_| ErrorObject::internal("the list could not be had"));
            let status = if status.is_success() { error_status(&error) } else { status.as_u16() };
            error_response(status, None, error)
        }
    }
}

/// A refusal as it came, never stored.
fn passed_on(status: StatusCode, body: Bytes) -> Response<McpBody> {
    let mut response = Response::new(Full::new(body).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The HTTP status of a list's JSON-RPC error the POST answered `200` (those it gives a status
/// of their own, `404` for a list the server does not offer among them, keep it): `400` for a
/// bad cursor or request, `500` otherwise — a GET is cacheable, an error must not look like a
/// page.
fn error_status(error: &ErrorObject) -> u16 {
    match error.code {
        ErrorCode::INVALID_PARAMS | ErrorCode::INVALID_REQUEST => 400,
        _ => 500,
    }
}

/// A list page: `200` with the result, or `304` when the client's tag still names it.
fn page(request_headers: &http::HeaderMap, result: &Value) -> Response<McpBody> {
    let body = serde_json::to_vec(result).expect("a result serialises");
    let etag = entity_tag(&body);
    let unchanged = still_current(request_headers, &etag);
    // Private: a public HTTP cache would serve the list without the access check (the draft's
    // public profile needs an opt-in this server does not offer).
    let control = cache_control(result.get("ttlMs").and_then(Value::as_u64), false);
    let (status, body) = if unchanged {
        (StatusCode::NOT_MODIFIED, Bytes::new())
    } else {
        (StatusCode::OK, Bytes::from(body))
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, control)
        .header(header::VARY, VARY)
        .header(header::ETAG, etag)
        .body(Full::new(body).boxed_unsync())
        .expect("a valid response")
}
