//! The experimental extensions through the binary: `modelctx serve --experimental` and
//! `modelctx gateway --experimental` serve server cards (SEP-2127; the gateway one for itself
//! and one for each virtual server, all in its AI Catalog) and their lists over GET,
//! `modelctx discover --card` and `--catalog` read the cards; without `--experimental`
//! nothing of it is served or declared.

use std::process::{Command, Stdio};

use modelctx::client::Client;
use modelctx::client::EraMode;
use modelctx::client::cards::CardFetcher;
use modelctx::client::egress::Egress;
use modelctx::protocol::http_lists::ListKind;
use modelctx::protocol::server_card::EXTENSION_ID;
use serde_json::{Value, json};

use crate::gateway::{bin, connect, gateway_with, options};
use crate::support::http::HttpServer;

fn serve_everything(extra: &[&str]) -> HttpServer {
    let mut command = Command::new(bin());
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]).args(extra).stdin(Stdio::null());
    HttpServer::start(command)
}

/// `modelctx ARGS --json`'s output, as JSON; the command must succeed.
fn modelctx_json(args: &[&str]) -> Value {
    let output = Command::new(bin()).args(args).arg("--json").stdin(Stdio::null()).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// "Clients SHOULD verify a Server Card's claims against the live connection": `discover
/// --card` reads the card, connects to the endpoint it names and finds nothing to disagree
/// about (the card is made from the server's own info); `--catalog` lists the card.
#[tokio::test]
async fn modelctx_discover_reads_a_card_and_checks_it_against_the_live_server() {
    let server = serve_everything(&["--experimental"]);
    let origin = format!("http://{}", server.address);
    let report = modelctx_json(&["discover", "--card", &format!("{origin}/mcp/server-card")]);
    assert_eq!(report["card"]["name"], "io.github.modelctx/everything");
    assert_eq!(report["card"]["remotes"][0]["url"], server.url());
    assert_eq!(report["server"]["serverInfo"]["name"], "modelctx-everything");
    assert!(report["server"]["capabilities"]["extensions"].get(EXTENSION_ID).is_some(), "{report}");
    assert_eq!(report["disagreements"], json!([]), "{report}");
    let by_url = modelctx_json(&["discover", "--url", &server.url(), "--card"]);
    assert_eq!(by_url["card"], report["card"]);
    let catalog = modelctx_json(&["discover", "--catalog", &origin]);
    assert_eq!(catalog["entries"][0]["card"]["name"], "io.github.modelctx/everything", "{catalog}");
    // --experimental also serves the lists over GET.
    let listed = reqwest::Client::new()
        .get(format!("{}?mcp_list=tools", server.url()))
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    assert!(listed.headers().contains_key("etag"));
    // And tags its definitions (definition tags, experimental too).
    let listed: Value = serde_json::from_str(&listed.text().await.unwrap()).unwrap();
    assert!(listed["tag"].as_str().is_some_and(|tag| tag.starts_with("sha256:")), "{listed}");
}

/// Nothing changes without `--experimental`: no card, no catalog, no lists over GET, no
/// extension declared.
#[tokio::test]
async fn without_experimental_no_card_is_served_or_declared() {
    let server = serve_everything(&[]);
    let http = reqwest::Client::new();
    for path in ["/mcp/server-card", "/.well-known/ai-catalog.json"] {
        let response = http.get(format!("http://{}{path}", server.address)).send().await.unwrap();
        assert_eq!(response.status(), 404, "{path}");
    }
    let list =
        http.get(format!("{}?mcp_list=tools", server.url())).header("mcp-protocol-version", "2026-07-28");
    assert_ne!(list.send().await.unwrap().status(), 200, "a list GET is a plain GET of the endpoint");
    let discovered = modelctx_json(&["discover", "--url", &server.url()]);
    assert!(discovered["capabilities"]["extensions"].get(EXTENSION_ID).is_none(), "{discovered}");
    let lists = modelctx::protocol::http_lists::EXTENSION_ID;
    assert!(discovered["capabilities"]["extensions"].get(lists).is_none(), "{discovered}");
}

/// Through the gateway: a card for the gateway and one for each virtual server, public (no
/// run token needed), all listed in its catalog; a client follows the virtual server's card
/// to its endpoint and gets the selection.
#[tokio::test]
async fn the_gateway_serves_a_card_for_itself_and_each_virtual_server() {
    let everything = json!({"command": "${BIN}", "args": ["serve", "everything"]});
    let config = json!({
        "mcpServers": {"a": everything},
        "virtualServers": {"sums": {"tools": ["a__add"]}}
    });
    let (gateway, _dir) = gateway_with(&config.to_string(), &["--experimental"]);
    let origin = format!("http://{}", gateway.address);
    let found = CardFetcher::new(Egress::Any).unwrap().catalog(&origin).await.unwrap();
    let cards: Vec<_> = found.into_iter().map(|entry| entry.card.unwrap()).collect();
    let names: Vec<&str> = cards.iter().map(|card| card.name.as_str()).collect();
    assert_eq!(names, ["io.github.modelctx/gateway", "io.github.modelctx/gateway-sums"]);
    let sums = cards[1].streamable_http().unwrap().resolve_url(&Default::default()).unwrap();
    assert_eq!(sums, format!("{}/sums", gateway.url()));
    let client = Client::connect_http(&sums, Default::default(), options(EraMode::Auto)).await.unwrap();
    let tools: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|tool| tool.name).collect();
    assert_eq!(tools, ["a__add"]);
    let described = client.server();
    assert!(described.capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(EXTENSION_ID)));
    // The virtual server's list over GET (lists over GET, experimental too), revalidated,
    // tagged (definition tags) as this caller sees it: its one tool.
    let page = client.list_over_get(ListKind::Tools, None).await.unwrap();
    assert_eq!(page.result["tools"][0]["name"], "a__add");
    let whole = connect(&gateway, options(EraMode::Auto)).await;
    let whole_page = whole.request(modelctx::protocol::Method::ListTools, json!({})).await.unwrap();
    assert!(page.result["tag"].is_string() && whole_page["tag"].is_string());
    assert_ne!(page.result["tag"], whole_page["tag"], "each tag covers what its server shows");
    assert!(client.list_over_get(ListKind::Tools, None).await.unwrap().revalidated);
}
