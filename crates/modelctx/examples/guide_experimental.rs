//! The guide's chapter on the experimental extensions (docs/guide/src/experimental.md): a
//! server that serves its card (server cards, SEP-2127) and its lists over GET, and a client
//! that finds it through the AI Catalog, connects where the card says, checks the card against
//! what the server says, lists the tools over GET twice (the second time revalidated), and
//! sees a call built on changed definitions refused (definition tags); then the same server
//! over HTTP over stdio (`stdio-v2`), on a pipe pair.
//!
//! Run it with `cargo run -p modelctx --features stdio-v2,http-server,http-client --example guide_experimental`.

use modelctx::client::cards::CardFetcher;
use modelctx::client::egress::Egress;
use modelctx::client::{Client, ClientOptions, StdioCommand};
use modelctx::protocol::interceptors::{Hook, Phase, Severity, ValidationResult};
use modelctx::server::interceptors::{Chain, ChainEntry, InterceptorDef, InterceptorLayer, Invocation};
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

// ANCHOR: stdio_v2_main
/// A server's `main` for HTTP over stdio: Streamable HTTP as HTTP/2 on stdin and stdout, for a
/// client that starts it with `Client::spawn_stdio_v2` (or `"type": "stdio-v2"` in a host's
/// config). This example runs it when started as `guide_experimental serve-stdio-v2`, as it
/// starts itself below.
async fn serve_over_stdio() -> std::io::Result<()> {
    modelctx::transport::stdio_v2::serve_stdio_v2(weather(), HttpOptions::default()).await
}
// ANCHOR_END: stdio_v2_main

#[tokio::main]
async fn main() {
    if std::env::args().nth(1).as_deref() == Some("serve-stdio-v2") {
        return serve_over_stdio().await.expect("served");
    }
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

    // ANCHOR: stdio_v2
    // This example started again as the server of HTTP over stdio: the same HTTP endpoint,
    // both eras, no port.
    let program = std::env::current_exe().expect("this program");
    let command = StdioCommand::new(program).args(["serve-stdio-v2"]);
    let options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
    let client = Client::spawn_stdio_v2(&command, options).await.expect("connected");
    let forecast = client.call_tool("forecast", serde_json::json!({})).await.expect("called");
    println!("over {}: {:?}", client.transport(), forecast.content);
    // ANCHOR_END: stdio_v2

    // ANCHOR: interceptors
    // A validator: no tool call may mention a password.
    let hooks = vec![Hook { events: vec!["tools/call".into()], phase: Phase::Request }];
    let no_passwords =
        InterceptorDef::validator("no-passwords", hooks, |invocation: Invocation| async move {
            Ok(if invocation.payload.to_string().to_lowercase().contains("password") {
                ValidationResult::finding(Severity::Error, "mentions a password", None)
            } else {
                ValidationResult::pass()
            })
        });
    // Run around every request of a server (a gateway does this with its backends' ones).
    let chain = Chain::new(vec![ChainEntry::local(no_passwords)]);
    let guarded = Server::builder("guarded", "1.0.0")
        .tool(ToolDef::new("forecast", || async { "sunny" }))
        .layer(InterceptorLayer::new(chain))
        .build()
        .expect("valid");
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(modelctx::transport::serve_connection(guarded, read, write, std::future::pending()));
    let (read, write) = tokio::io::split(client_end);
    let options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
    let client = Client::connect(read, write, options).await.expect("connected");
    let refused = client.call_tool("forecast", serde_json::json!({"note": "my password is 1234"})).await;
    println!("refused by the interceptor: {}", refused.expect_err("refused"));
    // ANCHOR_END: interceptors
}
