//! The client's cache of results (CHECKLIST §CACHE, client rows), against servers scripted
//! line by line: kept for each result's own `ttlMs`, invalidated by change notifications,
//! keyed by method and params, never a result reached through rounds of input.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::client::{options, scripted, scripted_with};
use modelctx::client::{ClientHandlers, ClientOptions};
use serde_json::json;

#[tokio::test]
async fn cache_01_listings_are_kept_for_their_ttl_until_a_change_notification() {
    let listed = Arc::new(AtomicUsize::new(0));
    let counter = listed.clone();
    // Lists with a one-minute ttlMs; a call announces a list change before it answers.
    let client = scripted(json!({"tools": {"listChanged": true}}), move |method, _| match method {
        "tools/list" => {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            let tools = json!([{"name": format!("tool{n}"), "inputSchema": {"type": "object"}}]);
            (
                Vec::new(),
                json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "private", "tools": tools}),
            )
        }
        _ => (
            vec![json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})],
            json!({"resultType": "complete", "content": []}),
        ),
    })
    .await;
    let names =
        |tools: Vec<modelctx::protocol::model::Tool>| tools.into_iter().map(|t| t.name).collect::<Vec<_>>();
    assert_eq!(names(client.list_tools().await.unwrap()), ["tool0"]);
    assert_eq!(names(client.list_tools().await.unwrap()), ["tool0"], "served from the cache");
    assert_eq!(listed.load(Ordering::SeqCst), 1);
    client.call_tool("tool0", json!({})).await.unwrap();
    assert_eq!(names(client.list_tools().await.unwrap()), ["tool1"], "the list change made it stale");
    assert_eq!(listed.load(Ordering::SeqCst), 2);
}

/// Each page of a listing is kept for its own `ttlMs` (a server's per-definition hints give
/// pages different ones): the page fresh for a minute comes from the cache, the page after
/// it, stale at once, from the server every time.
#[tokio::test]
async fn cache_09_each_page_of_a_listing_is_kept_for_its_own_ttl() {
    let fetched = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = fetched.clone();
    let client = scripted(json!({"tools": {}}), move |_, params| {
        let cursor = params.get("cursor").and_then(serde_json::Value::as_str).map(str::to_owned);
        record.lock().unwrap().push(cursor.clone());
        let (tool, ttl) = if cursor.is_none() { ("first", 60_000) } else { ("second", 0) };
        let mut page = json!({"resultType": "complete", "ttlMs": ttl, "cacheScope": "public",
            "tools": [{"name": tool, "inputSchema": {"type": "object"}}]});
        if cursor.is_none() {
            page["nextCursor"] = json!("page-2");
        }
        (Vec::new(), page)
    })
    .await;
    for _ in 0..2 {
        let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["first", "second"]);
    }
    let fetched = fetched.lock().unwrap().clone();
    assert_eq!(fetched, [None, Some("page-2".to_owned()), Some("page-2".to_owned())]);
}

/// CACHE-04: a cached read answers only the same method with the same params: another URI is
/// read from the server.
#[tokio::test]
async fn cache_04_a_cached_result_answers_only_the_same_request() {
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let client = scripted(json!({"resources": {}}), move |_, params| {
        counter.fetch_add(1, Ordering::SeqCst);
        let uri = params["uri"].as_str().unwrap_or_default().to_owned();
        let result = json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "private",
            "contents": [{"uri": uri, "text": format!("contents of {uri}")}]});
        (Vec::new(), result)
    })
    .await;
    let text = |contents: Vec<modelctx::protocol::types::TextOrBlob>| {
        serde_json::to_value(&contents).unwrap()[0]["text"].as_str().unwrap().to_owned()
    };
    assert_eq!(text(client.read_resource("test://a").await.unwrap()), "contents of test://a");
    assert_eq!(text(client.read_resource("test://a").await.unwrap()), "contents of test://a");
    assert_eq!(reads.load(Ordering::SeqCst), 1, "the second read of test://a came from the cache");
    assert_eq!(text(client.read_resource("test://b").await.unwrap()), "contents of test://b");
    assert_eq!(reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn cache_05_a_result_reached_through_input_rounds_is_never_cached() {
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = reads.clone();
    let handlers = ClientHandlers::default().on_roots(|| async { Vec::new() });
    let client_options = ClientOptions { handlers, ..options() };
    // Every read first asks for the roots, then answers with a one-minute ttlMs.
    let client = scripted_with(json!({"resources": {}}), client_options, move |_, _| {
        let result = if counter.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            json!({"resultType": "input_required", "requestState": "s",
                   "inputRequests": {"roots-0": {"method": "roots/list"}}})
        } else {
            json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "private",
                   "contents": [{"uri": "test://r", "text": "r"}]})
        };
        (Vec::new(), result)
    })
    .await;
    for _ in 0..2 {
        let contents = client.read_resource("test://r").await.unwrap();
        assert_eq!(contents.len(), 1);
    }
    assert_eq!(reads.load(Ordering::SeqCst), 4, "both reads went to the server, each in two rounds");
}
