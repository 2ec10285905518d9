//! Definition tags (experimental; the transports working group's draft "Definition Tags"), a
//! server that tags its definitions and a client that sends its known tags back, over real HTTP
//! on 127.0.0.1: each test is named after the draft's rule it proves (docs/extensions.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use modelctx::client::{Client, ClientOptions, EraMode};
use modelctx::server::{PromptDef, PromptRequest, Server, ServerOptions, ToolDef};
use modelctx::transport::http::HttpOptions;
use modelctx_protocol::Method;
use modelctx_protocol::definition_tags::{EXTENSION_ID, STALE_TAGS};
use serde_json::{Value, json};

use crate::common::client::options;
use crate::common::http::start_serving;
use crate::common::within;

fn tool(name: &str) -> ToolDef {
    ToolDef::new(name.to_owned(), || async { "done" }).description("Does it")
}

fn prompt(name: &str) -> PromptDef {
    PromptDef::new(name.to_owned(), |_: PromptRequest| async { Ok(Vec::new()) })
}

fn tagging() -> Server {
    Server::builder("tags", "1.0.0").tool(tool("a")).prompt(prompt("p")).definition_tags().build().unwrap()
}

fn known_tags_options() -> ClientOptions {
    ClientOptions { known_tags: true, ..options() }
}

async fn connect(server: Server, options: ClientOptions) -> (Client, crate::common::http::Endpoint) {
    let endpoint = start_serving(server, HttpOptions::default()).await;
    let client = within(Client::connect_http(&endpoint.url, Default::default(), options)).await.unwrap();
    (client, endpoint)
}

/// The `tag` of each page of `tools/list`, as the server wrote it.
async fn tool_page_tags(client: &Client) -> Vec<String> {
    let mut tags = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = client.request(Method::ListTools, params).await.unwrap();
        tags.push(page["tag"].as_str().expect("every page has a tag").to_owned());
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => return tags,
        }
    }
}

/// "A tag MUST be deterministic and collision-resistant. Adding, removing, or changing a
/// definition changes it. Ordering, page size, cursors, and TTL do not … A server SHOULD return
/// the same tag on every page": three tools two to a page carry one tag on both pages, the
/// same as three tools registered the other way round on one page; a fourth tool changes it;
/// `server/discover` has a tag of its own that changes with the instructions.
#[tokio::test]
async fn a_tag_covers_the_whole_collection_whatever_the_pages_and_the_order() {
    let paged = ServerOptions { page_size: 2, ..ServerOptions::default() };
    let forwards = Server::builder("tags", "1.0.0").options(paged);
    let forwards =
        forwards.tool(tool("a")).tool(tool("b")).tool(tool("c")).definition_tags().build().unwrap();
    let backwards = Server::builder("tags", "1.0.0").tool(tool("c")).tool(tool("b")).tool(tool("a"));
    let backwards = backwards.definition_tags().build().unwrap();
    let (paged_client, _paged) = connect(forwards.clone(), options()).await;
    let (whole_client, _whole) = connect(backwards, options()).await;
    let paged_tags = tool_page_tags(&paged_client).await;
    assert_eq!(paged_tags.len(), 2);
    assert_eq!(paged_tags[0], paged_tags[1], "one tag on every page");
    assert_eq!(tool_page_tags(&whole_client).await, [paged_tags[0].clone()], "neither order nor pages count");
    assert!(paged_tags[0].starts_with("sha256:"), "{}", paged_tags[0]);
    forwards.add_tool(tool("d")).unwrap();
    assert_ne!(tool_page_tags(&paged_client).await[0], paged_tags[0], "a definition added changes it");

    let discovered = paged_client.request(Method::Discover, json!({})).await.unwrap();
    let instructed = Server::builder("tags", "1.0.0").instructions("Be brief").tool(tool("a"));
    let (instructed_client, _instructed) =
        connect(instructed.definition_tags().build().unwrap(), options()).await;
    let other = instructed_client.request(Method::Discover, json!({})).await.unwrap();
    assert!(discovered["tag"].is_string() && other["tag"].is_string());
    assert_ne!(discovered["tag"], other["tag"], "instructions are covered");
    let extensions = paged_client.server().capabilities.extensions.clone().unwrap_or_default();
    assert!(extensions.contains_key(EXTENSION_ID), "{extensions:?}");
}

/// "If a known tag does not match and the server will not honor it, the server rejects the
/// request as stale … A server SHOULD validate the tag before operation-specific validation and
/// execution … the client MUST NOT copy a new tag without also fetching the definitions": the
/// tools change after the client listed them, the call is refused naming `tools/list` and its
/// tool never runs; the client forgot the tag and its cached listing, lists again, and the
/// call goes through.
#[tokio::test]
async fn a_stale_relevant_tag_refuses_the_call_before_it_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = {
        let runs = Arc::clone(&runs);
        ToolDef::new("counted", move || {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(1, Ordering::SeqCst);
                "ran"
            }
        })
    };
    let server = Server::builder("tags", "1.0.0").tool(counted).definition_tags().build().unwrap();
    let (client, _endpoint) = connect(server.clone(), known_tags_options()).await;
    assert_eq!(client.list_tools().await.unwrap().len(), 1);
    server.add_tool(tool("newer")).unwrap();
    let refused = client.call_tool("counted", json!({})).await.unwrap_err();
    assert_eq!(refused.stale_definitions(), Some(vec![Method::ListTools]), "{refused}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "refused before it ran");
    assert_eq!(client.list_tools().await.unwrap().len(), 2, "listed again from the server");
    client.call_tool("counted", json!({})).await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// "A server MUST only reject a request for a tag that is relevant to it. Stale tags that are
/// not relevant MAY be named in staleTags on the result, but never cause a rejection. A stale
/// prompts/list tag does not fail a tools/call": the prompts change, the tool call runs and its
/// result names `prompts/list` in `_meta`; the client forgets that tag, so the next call is
/// clean.
#[tokio::test]
async fn a_stale_tag_that_is_not_relevant_is_signalled_not_refused() {
    let server = tagging();
    let (client, _endpoint) = connect(server.clone(), known_tags_options()).await;
    client.list_tools().await.unwrap();
    client.list_prompts().await.unwrap();
    server.add_prompt(prompt("q")).unwrap();
    let result = client.request(Method::CallTool, json!({"name": "a", "arguments": {}})).await.unwrap();
    assert_eq!(result["_meta"][STALE_TAGS], json!(["prompts/list"]), "{result:?}");
    let again = client.request(Method::CallTool, json!({"name": "a", "arguments": {}})).await.unwrap();
    assert!(again.get("_meta").and_then(|meta| meta.get(STALE_TAGS)).is_none(), "{again:?}");
}

/// "Known tags are hints, not preconditions … Requests are handled normally when hints are
/// absent": a client that sends none is served as before, and a 2025-11-25 session (which has
/// no `CacheableResult`) gets no tags.
#[tokio::test]
async fn without_known_tags_or_in_a_session_nothing_changes() {
    let server = tagging();
    let (client, _endpoint) = connect(server.clone(), options()).await;
    client.list_tools().await.unwrap();
    server.add_tool(tool("b")).unwrap();
    client.call_tool("a", json!({})).await.unwrap();
    let legacy = ClientOptions { mode: EraMode::Legacy, ..known_tags_options() };
    let (session, _legacy) = connect(server, legacy).await;
    let page = session.request(Method::ListTools, json!({})).await.unwrap();
    assert!(page.get("tag").is_none(), "{page:?}");
}
