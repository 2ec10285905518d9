//! MCP Apps (`io.modelcontextprotocol/ui`) on the server, in process: UI resources, the
//! tools that link to them, and what a client that shows no apps sees.

use crate::common::{builder, within};
use modelctx::protocol::apps::{self, UiCsp, UiResourceMeta, Visibility};
use modelctx::server::apps::AppResource;
use modelctx::server::{BuildError, ToolDef};
use modelctx::testing::{TestClient, with_modern_meta};
use serde_json::{Value, json};

const HTML: &str = "<!DOCTYPE html>\n<html><body><p id=time></p></body></html>\n";
const URI: &str = "ui://clock/app.html";

fn app() -> AppResource {
    AppResource::new(URI, "Clock", HTML).ui(UiResourceMeta {
        csp: Some(UiCsp { connect_domains: vec!["https://time.example".into()], ..UiCsp::default() }),
        prefers_border: Some(true),
        ..UiResourceMeta::default()
    })
}

fn clock() -> TestClient {
    let now = ToolDef::new("now", || async { "12:00" }).ui(URI);
    let tick = ToolDef::new("tick", || async { "ticked" }).ui(URI).visibility(&[Visibility::App]);
    let plain = ToolDef::new("plain", || async { "plain" });
    TestClient::start(builder().app(app()).tool(now).tool(tick).tool(plain).build().unwrap())
}

/// A 2026-07-28 request from a client with `capabilities`.
async fn modern(client: &TestClient, method: &str, params: Value, capabilities: Value) -> Value {
    Value::Object(within(client.request(method, with_modern_meta(params, capabilities))).await.unwrap())
}

fn names(listed: &Value) -> Vec<&str> {
    listed["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn apps_01_a_ui_resource_is_a_ui_uri_of_the_app_mime_type_holding_html5() {
    let client = clock();
    let listed = modern(&client, "resources/list", json!({}), json!({})).await;
    let resource = &listed["resources"][0];
    assert_eq!((resource["uri"].as_str(), resource["mimeType"].as_str()), (Some(URI), Some(apps::MIME_TYPE)));
    assert_eq!(resource["_meta"]["ui"]["csp"]["connectDomains"], json!(["https://time.example"]));
    let read = modern(&client, "resources/read", json!({"uri": URI}), json!({})).await;
    let contents = &read["contents"][0];
    assert_eq!(contents["text"], HTML);
    assert_eq!(contents["mimeType"], apps::MIME_TYPE);
    assert_eq!(contents["_meta"]["ui"]["prefersBorder"], true, "the settings travel with the contents");
    let discovered = modern(&client, "server/discover", json!({}), json!({})).await;
    assert!(discovered["capabilities"]["extensions"][apps::EXTENSION_ID].is_object());

    // What building refuses: another scheme, a document that is not HTML5, an origin that
    // would inject a directive, a tool linking to no registered app.
    let refused = |server: Result<_, BuildError>| server.err().map(|e| e.to_string()).unwrap_or_default();
    let scheme = refused(builder().app(AppResource::new("https://clock/app.html", "x", HTML)).build());
    assert!(scheme.contains("ui://"), "{scheme}");
    let html = refused(builder().app(AppResource::new(URI, "x", "<p>hi</p>")).build());
    assert!(html.contains("HTML5"), "{html}");
    let csp = UiCsp { connect_domains: vec!["https://a.example; script-src *".into()], ..UiCsp::default() };
    let injected = refused(
        builder()
            .app(AppResource::new(URI, "x", HTML).ui(UiResourceMeta { csp: Some(csp), ..Default::default() }))
            .build(),
    );
    assert!(injected.contains("_meta.ui.csp"), "{injected}");
    let dangling = refused(builder().tool(ToolDef::new("now", || async { "12:00" }).ui(URI)).build());
    assert!(dangling.contains("names no app"), "{dangling}");
}

#[tokio::test]
async fn apps_02_a_client_that_shows_no_apps_never_sees_app_only_tools_and_ui_tools_answer_with_content() {
    let client = clock();
    let shows_apps = json!({"extensions": {apps::EXTENSION_ID: {"mimeTypes": [apps::MIME_TYPE]}}});
    let with_apps = modern(&client, "tools/list", json!({}), shows_apps).await;
    assert_eq!(names(&with_apps), ["now", "plain", "tick"]);
    let now = &with_apps["tools"][0];
    assert_eq!(now["_meta"]["ui"], json!({"resourceUri": URI}));
    let without = modern(&client, "tools/list", json!({}), json!({})).await;
    assert_eq!(names(&without), ["now", "plain"], "tick is for the app alone");
    let other_types = json!({"extensions": {apps::EXTENSION_ID: {"mimeTypes": ["text/uri-list"]}}});
    let other = modern(&client, "tools/list", json!({}), other_types).await;
    assert_eq!(names(&other), ["now", "plain"]);
    let legacy = TestClient::start(
        builder()
            .app(app())
            .tool(ToolDef::new("tick", || async { "t" }).ui(URI).visibility(&[Visibility::App]))
            .tool(ToolDef::new("plain", || async { "p" }))
            .build()
            .unwrap(),
    );
    within(legacy.initialize(modelctx::protocol::ProtocolVersion::V2025_11_25)).await.unwrap();
    let listed = Value::Object(within(legacy.request("tools/list", json!({}))).await.unwrap());
    assert_eq!(names(&listed), ["plain"], "a 2025-11-25 client cannot declare the extension");

    // A tool with a UI still answers with content; one that answers without is the server's
    // error, never an empty answer.
    let called = modern(&client, "tools/call", json!({"name": "now", "arguments": {}}), json!({})).await;
    assert_eq!(called["content"][0]["text"], "12:00");
    let mute =
        ToolDef::new("mute", || async { modelctx::protocol::model::CallToolResult::default() }).ui(URI);
    let server = builder().app(app()).tool(mute).build().unwrap();
    let client = TestClient::start(server);
    let error =
        within(client.modern("tools/call", json!({"name": "mute", "arguments": {}}))).await.unwrap_err();
    assert_eq!(error.code.0, -32603);
    assert!(error.message.contains("has a UI but returned no content"), "{}", error.message);
}
