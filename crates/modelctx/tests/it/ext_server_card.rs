//! Server cards (SEP-2127, `io.modelcontextprotocol/server-card`, experimental), over real
//! HTTP on 127.0.0.1: each test is named after the draft's rule it proves (docs/extensions.md).

use std::sync::Arc;
use std::time::Duration;

use modelctx::client::Client;
use modelctx::client::cards::{CardFetchError, CardFetcher, CardLimits, Freshness, card_url};
use modelctx::client::egress::Egress;
use modelctx::server::{CardSettings, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, McpEndpoints, serve_http_at};
use modelctx_protocol::server_card::{
    CATALOG_MEDIA_TYPE, EXTENSION_ID, Input, KeyValueInput, MEDIA_TYPE, SCHEMA_URL, ServerCard,
};
use modelctx_protocol::types::Implementation;
use reqwest::header::{self, HeaderMap};
use tokio::sync::oneshot;

use crate::common::client::options;
use crate::common::within;
use crate::http_streams::Names;

fn weather(version: &str) -> modelctx::server::ServerBuilder {
    let mut info = Implementation::new("weather", version);
    info.title = Some("Weather".into());
    info.website_url = Some("https://example.com/weather".into());
    Server::with_info(info).tool(ToolDef::new("forecast", || async { "sunny" }))
}

fn card_of(name: &str) -> CardSettings {
    CardSettings::new(name).description("Forecasts for any city").max_age(Duration::from_secs(60))
}

/// `endpoints` served on a fresh loopback port until the returned sender drops; its origin.
async fn serve(endpoints: McpEndpoints, options: HttpOptions) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http_at(endpoints, listener, options, async move {
        let _ = stopped.await;
    }));
    (origin, stop)
}

fn fetcher() -> CardFetcher {
    CardFetcher::new(Egress::Any).unwrap()
}

/// "MCP Servers MAY host their Server Card at `GET <streamable-http-url>/server-card` … SHOULD
/// respect the `application/mcp-server-card+json` media type": the card is there, of that
/// type, names the v1 schema, the endpoint it was asked under and every version served, and
/// the server declares the extension in `server/discover`.
#[tokio::test]
async fn the_card_is_served_at_the_endpoint_url_plus_server_card_with_its_media_type() {
    let server = weather("1.0.0").card(card_of("com.example/weather")).build().unwrap();
    let (origin, _stop) = serve(McpEndpoints::new(server), HttpOptions::default()).await;
    let endpoint = format!("{origin}/mcp");
    let response = reqwest::Client::new()
        .get(card_url(&endpoint))
        .header(header::ACCEPT, MEDIA_TYPE)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[header::CONTENT_TYPE], MEDIA_TYPE);
    let card: ServerCard = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(card.validate(), Ok(()));
    assert_eq!(card.schema, SCHEMA_URL);
    assert_eq!((card.name.as_str(), card.version.as_str()), ("com.example/weather", "1.0.0"));
    assert_eq!(card.title.as_deref(), Some("Weather"));
    let remote = card.streamable_http().expect("a Streamable HTTP remote");
    assert_eq!(remote.url, endpoint);
    let versions = remote.supported_protocol_versions.clone().unwrap();
    assert_eq!(versions[..2], ["2026-07-28".to_owned(), "2025-11-25".to_owned()]);

    let client = within(Client::connect_http(&endpoint, HeaderMap::new(), options())).await.unwrap();
    let extensions = client.server().capabilities.extensions.clone().unwrap_or_default();
    assert!(extensions.contains_key(EXTENSION_ID), "{extensions:?}");
}

/// "Hosted Server Card endpoints MUST include appropriate CORS headers": the draft's four on
/// the card and on the answer to a preflight; and a card is public and read-only — served to
/// a caller with no token, from any origin, while the endpoint itself refuses that caller, and
/// a POST to it is refused (`405`).
#[tokio::test]
async fn card_endpoints_must_send_the_cors_headers_and_are_public() {
    let server = weather("1.0.0").card(card_of("com.example/weather")).build().unwrap();
    let options = HttpOptions { authenticator: Some(Arc::new(Names)), ..HttpOptions::default() };
    let (origin, _stop) = serve(McpEndpoints::new(server), options).await;
    let http = reqwest::Client::new();
    let url = format!("{origin}/mcp/server-card");
    let card = http.get(&url).header(header::ORIGIN, "https://elsewhere.example").send().await.unwrap();
    let preflight = http
        .request(reqwest::Method::OPTIONS, &url)
        .header(header::ORIGIN, "https://elsewhere.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "GET")
        .send()
        .await
        .unwrap();
    assert_eq!((card.status().as_u16(), preflight.status().as_u16()), (200, 204));
    for response in [&card, &preflight] {
        let headers = response.headers();
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_METHODS], "GET");
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_HEADERS], "Content-Type, If-None-Match");
        assert_eq!(headers[header::ACCESS_CONTROL_EXPOSE_HEADERS], "ETag");
    }
    let refused = http.post(format!("{origin}/mcp")).body("{}").send().await.unwrap();
    assert_eq!(refused.status(), 401, "the endpoint still wants a token");
    let posted = http.post(&url).body("{}").send().await.unwrap();
    assert_eq!(posted.status(), 405);
}

/// "Hosts SHOULD include caching headers … SHOULD also return an `ETag` … clients SHOULD send
/// its value in `If-None-Match` … Hosts SHOULD … return `304 Not Modified`": the fetcher keeps
/// a fresh card without asking, revalidates a stale one (the server answers `304` and the copy
/// is kept), and a changed card is fetched whole.
#[tokio::test]
async fn a_card_is_kept_while_fresh_then_revalidated_with_its_etag() {
    let fresh = weather("1.0.0").card(card_of("com.example/weather")).build().unwrap();
    let stale =
        weather("1.0.0").card(card_of("com.example/weather").max_age(Duration::ZERO)).build().unwrap();
    let endpoints = McpEndpoints::new(fresh).at("/mcp/stale", stale.clone());
    let (origin, _stop) = serve(endpoints, HttpOptions::default()).await;
    let cards = fetcher();
    let url = format!("{origin}/mcp/server-card");
    let first = within(cards.card(&url)).await.unwrap();
    let again = within(cards.card(&url)).await.unwrap();
    assert_eq!((first.freshness, again.freshness), (Freshness::Fetched, Freshness::Kept));

    let stale_url = format!("{origin}/mcp/stale/server-card");
    let response = reqwest::get(&stale_url).await.unwrap();
    assert_eq!(response.headers()[header::CACHE_CONTROL], "public, max-age=0");
    let etag = response.headers()[header::ETAG].to_str().unwrap().to_owned();
    let unchanged =
        reqwest::Client::new().get(&stale_url).header(header::IF_NONE_MATCH, &etag).send().await.unwrap();
    assert_eq!(unchanged.status(), 304);
    assert_eq!(within(cards.card(&stale_url)).await.unwrap().freshness, Freshness::Fetched);
    let revalidated = within(cards.card(&stale_url)).await.unwrap();
    assert_eq!(revalidated.freshness, Freshness::Revalidated);
    assert_eq!(revalidated.document.name, "com.example/weather");
}

/// "Clients performing domain-level discovery SHOULD attempt to retrieve this well-known URL
/// … the `application/ai-catalog+json` media type"; an entry's "`type` MUST be
/// `application/mcp-server-card+json`" and it gives "exactly one of `url` or `data`": every
/// endpoint that has a card is listed (one without a card is not), and the fetcher follows
/// each entry to a valid card.
#[tokio::test]
async fn the_catalog_at_the_well_known_uri_lists_each_endpoints_card() {
    let main = weather("1.0.0").card(card_of("com.example/weather")).build().unwrap();
    let tides = weather("2.0.0").card(card_of("com.example/tides")).build().unwrap();
    let plain = weather("3.0.0").build().unwrap();
    let endpoints = McpEndpoints::new(main).at("/mcp/tides", tides).at("/mcp/plain", plain);
    let (origin, _stop) = serve(endpoints, HttpOptions::default()).await;
    let response = reqwest::get(format!("{origin}/.well-known/ai-catalog.json")).await.unwrap();
    assert_eq!(response.headers()[header::CONTENT_TYPE], CATALOG_MEDIA_TYPE);
    let catalog: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    let entries = catalog["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "{catalog}");
    for entry in entries {
        assert_eq!(entry["type"], MEDIA_TYPE);
        assert!(entry["url"].is_string() && entry.get("data").is_none(), "{entry}");
    }
    assert_eq!(entries[1]["identifier"], "urn:air:example.com:mcp:tides");
    assert_eq!(entries[1]["url"], format!("{origin}/mcp/tides/server-card"));

    let found = within(fetcher().catalog(&origin)).await.unwrap();
    let names: Vec<String> = found.into_iter().map(|f| f.card.unwrap().name).collect();
    assert_eq!(names, ["com.example/weather", "com.example/tides"]);
    let no_card = reqwest::get(format!("{origin}/mcp/plain/server-card")).await.unwrap();
    assert_eq!(no_card.status(), 404);
}

/// "Clients MUST NOT treat Server Card contents as authoritative … SHOULD verify a Server
/// Card's claims against the live connection, preferring the runtime values": a card that
/// names another server's endpoint (here at version 2.0.0 while the card says 1.0.0) is found
/// out once connected — the client reports the disagreement and speaks to the server as it
/// says it is.
#[tokio::test]
async fn clients_must_not_treat_the_card_as_authoritative() {
    let live = weather("2.0.0").build().unwrap();
    let (live_origin, _live) = serve(McpEndpoints::new(live), HttpOptions::default()).await;
    let stale = weather("1.0.0")
        .card(card_of("com.example/weather").public_url(format!("{live_origin}/mcp")))
        .build()
        .unwrap();
    let (origin, _stop) = serve(McpEndpoints::new(stale), HttpOptions::default()).await;
    let card = within(fetcher().card(&format!("{origin}/mcp/server-card"))).await.unwrap().document;
    let remote = card.streamable_http().unwrap();
    let url = remote.resolve_url(&Default::default()).unwrap();
    assert_eq!(url, format!("{live_origin}/mcp"));
    let client = within(Client::connect_http(&url, HeaderMap::new(), options())).await.unwrap();
    let server = client.server();
    let disagreements = card.disagreements(server.info.as_ref(), &server.version.to_string());
    assert_eq!(disagreements.len(), 1, "{disagreements:?}");
    assert_eq!((disagreements[0].card.as_str(), disagreements[0].live.as_str()), ("1.0.0", "2.0.0"));
    assert_eq!(server.info.as_ref().unwrap().version, "2.0.0", "the live value is used");
}

/// "They MUST NOT include sensitive information such as authentication credentials": a card
/// may describe a secret header for the person to fill, never hold one — a server whose card
/// would publish a secret is not built; an invalid name or description is refused too.
#[tokio::test]
async fn cards_must_not_hold_credentials_and_follow_the_drafts_shapes() {
    let secret = KeyValueInput {
        name: "Authorization".into(),
        input: Input { is_secret: Some(true), value: Some("Bearer sk-live-1234".into()), ..Input::default() },
        variables: None,
    };
    let refused = weather("1.0.0").card(card_of("com.example/weather").header(secret.clone())).build();
    let message = refused.err().expect("a card holding a secret is refused").to_string();
    assert!(message.contains(EXTENSION_ID) && message.contains("never hold one"), "{message}");

    let described = KeyValueInput {
        input: Input { value: Some("Bearer {token}".into()), ..secret.input },
        variables: Some([("token".to_owned(), Input { is_secret: Some(true), ..Input::default() })].into()),
        ..secret
    };
    let server = weather("1.0.0").card(card_of("com.example/weather").header(described)).build().unwrap();
    let card = server.card("https://example.com/mcp").unwrap();
    let header = &card.streamable_http().unwrap().headers.as_ref().unwrap()[0];
    let token = [("token".to_owned(), "abc".to_owned())].into();
    assert_eq!(header.resolve_value(&token).unwrap().as_deref(), Some("Bearer abc"));

    for (name, description) in [("weather", "Forecasts"), ("com.example/weather", "")] {
        let built = weather("1.0.0").card(CardSettings::new(name).description(description)).build();
        assert!(built.is_err(), "{name:?} {description:?}");
    }
    let undescribed = weather("1.0.0").card(CardSettings::new("com.example/weather")).build();
    assert!(undescribed.err().unwrap().to_string().contains("a card needs one"));
    let mut info = Implementation::new("weather", "1.0.0");
    info.description = Some("Forecasts, as serverInfo says".into());
    let described_by_info =
        Server::with_info(info).card(CardSettings::new("com.example/weather")).build().unwrap();
    let card = described_by_info.card("https://example.com/mcp").unwrap();
    assert_eq!(card.description, "Forecasts, as serverInfo says", "the card agrees with serverInfo");
    assert!(weather("1.x").card(card_of("com.example/weather")).build().is_err(), "a version range");
}

/// The fetcher's bounds hold: a card larger than `max_document_bytes` is refused, naming the
/// bound, and a document that is not a card is refused as one.
#[tokio::test]
async fn a_fetch_past_its_bounds_or_of_something_else_is_refused() {
    let server = weather("1.0.0").card(card_of("com.example/weather")).build().unwrap();
    let (origin, _stop) = serve(McpEndpoints::new(server), HttpOptions::default()).await;
    let limits = CardLimits { max_document_bytes: 64, ..CardLimits::default() };
    let small = CardFetcher::with_limits(Egress::Any, limits).unwrap();
    let refused = within(small.card(&format!("{origin}/mcp/server-card"))).await.unwrap_err();
    assert!(matches!(refused, CardFetchError::TooLarge { limit: 64, .. }), "{refused}");
    let catalog_as_card = within(fetcher().card(&format!("{origin}/.well-known/ai-catalog.json"))).await;
    let error = catalog_as_card.unwrap_err().to_string();
    assert!(error.contains("not a server card"), "{error}");
}
