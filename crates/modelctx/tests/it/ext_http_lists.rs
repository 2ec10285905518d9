//! Lists over HTTP GET (experimental; the transports working group's draft "HTTP Retrieval and
//! Caching of MCP Lists"), over real HTTP on 127.0.0.1: each test is named after the draft's
//! rule it proves (docs/extensions.md).

use std::sync::Arc;

use modelctx::client::Client;
use modelctx::server::{Server, ServerOptions, ToolDef};
use modelctx::transport::http::HttpOptions;
use modelctx_protocol::http_lists::{EXTENSION_ID, ListKind};
use reqwest::header;
use serde_json::{Value, json};

use crate::common::client::options;
use crate::common::http::start_serving;
use crate::common::within;
use crate::http_streams::Names;

fn tool(name: &str) -> ToolDef {
    ToolDef::new(name.to_owned(), || async { "done" }).description("Does it")
}

/// A server of three tools, two to a page, its lists served over GET.
fn server() -> Server {
    let options = ServerOptions { page_size: 2, ..ServerOptions::default() };
    Server::builder("lists", "1.0.0")
        .options(options)
        .tool(tool("a"))
        .tool(tool("b"))
        .tool(tool("c"))
        .lists_over_get()
        .build()
        .unwrap()
}

/// A GET of `url` with the 2026-07-28 version header and `headers`.
async fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(url).header("mcp-protocol-version", "2026-07-28");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

/// "A successful GET returns `200 OK`, `Content-Type: application/json`, and the corresponding
/// MCP list result object … GET and POST must describe the same list … each page is
/// independently cacheable and has its own validator": both pages over GET hold what
/// `tools/list` over POST holds, each with `Cache-Control` (`max-age` ≤ ⌊ttlMs/1000⌋,
/// `must-revalidate`, private), `Vary` and a tag of its own; the extension is declared.
#[tokio::test]
async fn a_list_get_answers_the_list_result_as_post_does_page_by_page() {
    let endpoint = start_serving(server(), HttpOptions::default()).await;
    let first = get(&format!("{}?mcp_list=tools", endpoint.url), &[]).await;
    assert_eq!(first.status(), 200);
    let headers = first.headers().clone();
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert_eq!(headers[header::VARY], "Authorization, MCP-Protocol-Version, Accept");
    let first: Value = serde_json::from_str(&first.text().await.unwrap()).unwrap();
    let ttl = first["ttlMs"].as_u64().unwrap();
    let control = format!("private, max-age={}, must-revalidate", ttl / 1000);
    assert_eq!(headers[header::CACHE_CONTROL], control.as_str());
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    let second = get(&format!("{}?mcp_list=tools&cursor={cursor}", endpoint.url), &[]).await;
    assert_ne!(second.headers()[header::ETAG], headers[header::ETAG], "a tag per page");
    let second: Value = serde_json::from_str(&second.text().await.unwrap()).unwrap();
    let names = |page: &Value| -> Vec<String> {
        page["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!([names(&first), names(&second)].concat(), ["a", "b", "c"]);

    let client = within(Client::connect_http(&endpoint.url, Default::default(), options())).await.unwrap();
    let posted: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(posted, ["a", "b", "c"], "GET and POST describe the same list");
    let extensions = client.server().capabilities.extensions.clone().unwrap_or_default();
    assert!(extensions.contains_key(EXTENSION_ID), "{extensions:?}");
}

/// "After authorization and variant selection, an unchanged representation can produce `304
/// Not Modified` … A changed representation returns 200 with the new body and validator": the
/// client keeps the page's tag, revalidates (`304`, nothing sent again), and after a tool is
/// added gets the new page whole.
#[tokio::test]
async fn the_client_revalidates_a_page_with_if_none_match() {
    let server = Server::builder("lists", "1.0.0").tool(tool("a")).lists_over_get().build().unwrap();
    let endpoint = start_serving(server.clone(), HttpOptions::default()).await;
    let client = within(Client::connect_http(&endpoint.url, Default::default(), options())).await.unwrap();
    let fetched = within(client.list_over_get(ListKind::Tools, None)).await.unwrap();
    assert!(!fetched.revalidated);
    let again = within(client.list_over_get(ListKind::Tools, None)).await.unwrap();
    assert!(again.revalidated, "the server said 304");
    assert_eq!(again.result, fetched.result);
    let etag = get(&format!("{}?mcp_list=tools", endpoint.url), &[]).await.headers()[header::ETAG].clone();
    let unchanged =
        get(&format!("{}?mcp_list=tools", endpoint.url), &[("if-none-match", etag.to_str().unwrap())]).await;
    assert_eq!(unchanged.status(), 304);
    assert!(unchanged.text().await.unwrap().is_empty(), "a 304 has no body");

    server.add_tool(tool("b")).unwrap();
    let changed = within(client.list_over_get(ListKind::Tools, None)).await.unwrap();
    assert!(!changed.revalidated);
    assert_eq!(changed.result["tools"].as_array().unwrap().len(), 2);
}

/// "Authorization and representation selection happen before conditional validation. An
/// invalid token or denied caller receives an authorization error, not `304`, even if the
/// supplied ETag matches": without a token, a matching tag still gets `401`.
#[tokio::test]
async fn authorization_comes_before_304() {
    let options = HttpOptions { authenticator: Some(Arc::new(Names)), ..HttpOptions::default() };
    let endpoint = start_serving(server(), options).await;
    let url = format!("{}?mcp_list=tools", endpoint.url);
    let allowed = get(&url, &[("authorization", "Bearer alice")]).await;
    assert_eq!(allowed.status(), 200);
    let etag = allowed.headers()[header::ETAG].to_str().unwrap().to_owned();
    let current = get(&url, &[("authorization", "Bearer alice"), ("if-none-match", &etag)]).await;
    assert_eq!(current.status(), 304);
    let refused = get(&url, &[("if-none-match", &etag)]).await;
    assert_eq!(refused.status(), 401, "not 304");
}

/// "Only parameters defined by this mapping are supported. Unknown or repeated selectors are
/// rejected rather than ignored"; a list the server does not offer, a bad cursor and a GET
/// without the version are refused with a JSON-RPC error naming why; errors are not stored.
#[tokio::test]
async fn unknown_repeated_or_unusable_selections_are_refused() {
    let endpoint = start_serving(server(), HttpOptions::default()).await;
    for (query, status) in [
        ("mcp_list=tool", 400),
        ("mcp_list=tools&mcp_list=prompts", 400),
        ("mcp_list=tools&page=2", 400),
        ("mcp_list=tools&cursor=not-a-cursor", 400),
        ("mcp_list=prompts", 404),
    ] {
        let response = get(&format!("{}?{query}", endpoint.url), &[]).await;
        assert_eq!(response.status(), status, "{query}");
        let answer: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert!(answer["error"]["message"].is_string(), "{query}: {answer}");
    }
    let unversioned = reqwest::get(format!("{}?mcp_list=tools", endpoint.url)).await.unwrap();
    assert_eq!(unversioned.status(), 400);
}

/// "GET retrieval is optional; POST list methods remain required and unchanged": a server that
/// did not declare the extension answers a list GET as any GET of its endpoint, and the client
/// does not try.
#[tokio::test]
async fn a_server_without_the_extension_serves_no_list_over_get() {
    let server = Server::builder("plain", "1.0.0").tool(tool("a")).build().unwrap();
    let endpoint = start_serving(server, HttpOptions::default()).await;
    let response = get(&format!("{}?mcp_list=tools", endpoint.url), &[]).await;
    assert_ne!(response.status(), 200);
    let client = within(Client::connect_http(&endpoint.url, Default::default(), options())).await.unwrap();
    let refused = client.list_over_get(ListKind::Tools, None).await.unwrap_err();
    assert_eq!(refused.undeclared_capability(), Some(EXTENSION_ID), "{refused}");
    assert_eq!(json!(client.list_tools().await.unwrap().len()), json!(1));
}
