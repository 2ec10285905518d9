//! The guide's chapter on the experimental extensions (docs/guide/src/experimental.md): a
//! server that serves its card (server cards, SEP-2127) and its lists over GET, and a client
//! that finds it through the AI Catalog, connects where the card says, checks the card against
//! what the server says, lists the tools over GET twice (the second time revalidated), and
//! sees a call built on changed definitions refused (definition tags).
//!
//! Run it with `cargo run -p modelctx --features experimental --example guide_experimental`.

use modelctx::client::cards::CardFetcher;
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientOptions};
use modelctx::server::{CardSettings, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::http_lists::ListKind;
use modelctx_protocol::types::Implementation;

// ANCHOR: server
/// A server with a card: served at `/mcp/server-card`, listed at
/// `/.well-known/ai-catalog.json`, declared in its capabilities.
fn weather() -> Server {
    let info = Implementation {
        title: Some("Weather".into()),
        description: Some("Forecasts for any city".into()),
        ..Implementation::new("weather", "1.4.0")
    };
    Server::with_info(info)
        .tool(ToolDef::new("forecast", || async { "sunny" }).description("Tomorrow's weather"))
        // The name is reverse-DNS; the rest comes from the server's info and versions.
        .card(CardSettings::new("com.example/weather"))
        // `GET /mcp?mcp_list=tools`, cacheable by HTTP.
        .lists_over_get()
        // A tag on each list; calls built on changed definitions refused before they run.
        .definition_tags()
        .build()
        .expect("the definitions and the card are valid")
}
// ANCHOR_END: server

#[tokio::main]
async fn main() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let origin = format!("http://{}", listener.local_addr().expect("an address"));
    let server = weather();
    tokio::spawn(serve_http(server.clone(), listener, HttpOptions::default(), std::future::pending()));

    // ANCHOR: client
    // A catalog may name cards anywhere: public addresses only, unless the network is trusted
    // (this example's server is on loopback).
    let cards = CardFetcher::new(Egress::Any).expect("a fetcher");
    for found in cards.catalog(&origin).await.expect("the catalog") {
        let card = found.card.expect("a valid card");
        let endpoint = card.streamable_http().expect("an HTTP endpoint");
        let url = endpoint.resolve_url(&Default::default()).expect("no variables left unfilled");
        let mut options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
        // Send the definition tags of the last listings back with each call.
        options.known_tags = true;
        let client = Client::connect_http(&url, Default::default(), options).await.expect("connected");
        // The card is advisory: what the server says once connected wins.
        let live = client.server();
        let disagreements = card.disagreements(live.info.as_ref(), &live.version.to_string());
        println!("{} at {url}: {} disagreement(s)", card.name, disagreements.len());
        assert!(disagreements.is_empty(), "{disagreements:?}");
        // ANCHOR_END: client

        // ANCHOR: lists
        let first = client.list_over_get(ListKind::Tools, None).await.expect("the tools");
        let again = client.list_over_get(ListKind::Tools, None).await.expect("the tools again");
        // The second time the client sent the page's ETag back and the server said 304.
        println!("tools over GET: {}, then revalidated: {}", first.result["tools"], again.revalidated);
        // ANCHOR_END: lists
        assert!(again.revalidated);

        // ANCHOR: tags
        client.list_tools().await.expect("the tools");
        // The server's tools change after the client listed them…
        server.add_tool(ToolDef::new("alerts", || async { "none" })).expect("a valid tool");
        // …so a call built on the old listing is refused before it runs, naming the list.
        let refused = client.call_tool("forecast", serde_json::json!({})).await.expect_err("stale");
        println!("refused: {refused}; stale: {:?}", refused.stale_definitions());
        // List again (the client forgot its cached listing), then call.
        assert_eq!(client.list_tools().await.expect("the tools").len(), 2);
        client.call_tool("forecast", serde_json::json!({})).await.expect("called");
        // ANCHOR_END: tags
    }
}
