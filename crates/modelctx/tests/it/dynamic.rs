//! Definitions that change while the server runs, from outside or from inside a handler
//! (`ctx.server()`), and the notifications listeners hear (TOOL-04, PROMPT-03, RES-03).

use std::time::Duration;

use modelctx::server::{
    PromptDef, RequestContext, ResourceDef, ResourceTemplateDef, Server, ToolDef, text_contents,
};
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::jsonrpc::Message;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

async fn toggle_prompt(ctx: RequestContext) -> String {
    if ctx.server().remove_prompt("extra") {
        "removed".into()
    } else {
        ctx.server().add_prompt(PromptDef::new("extra", || async { Ok(vec![]) })).unwrap();
        "added".into()
    }
}

fn server() -> Server {
    Server::builder("dynamic", "1")
        .tool(ToolDef::new("toggle_prompt", toggle_prompt))
        .prompt(PromptDef::new("base", || async { Ok(vec![]) }))
        .resource(ResourceDef::text("test://a", "a", "A"))
        .build()
        .unwrap()
}

async fn next_method(client: &TestClient) -> String {
    loop {
        match client.next_notification(WAIT).await.expect("a notification in time") {
            Message::Notification(n) => return n.method.to_string(),
            _ => continue,
        }
    }
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key].as_array().unwrap().iter().map(|item| item[field].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn prompt_03_a_handler_changes_the_prompts_and_listeners_hear_it() {
    let client = TestClient::start(server());
    let _listen = client
        .send_request(
            "subscriptions/listen",
            with_modern_meta(json!({"notifications": {"promptsListChanged": true}}), json!({})),
        )
        .await;
    assert_eq!(next_method(&client).await, "notifications/subscriptions/acknowledged");
    let added = client.modern("tools/call", json!({"name": "toggle_prompt"})).await.unwrap();
    assert_eq!(added["content"][0]["text"], "added");
    assert_eq!(next_method(&client).await, "notifications/prompts/list_changed");
    let list = Value::Object(client.modern("prompts/list", json!({})).await.unwrap());
    assert_eq!(names(&list, "prompts", "name"), ["base", "extra"]);
    client.modern("tools/call", json!({"name": "toggle_prompt"})).await.unwrap();
    assert_eq!(next_method(&client).await, "notifications/prompts/list_changed");
    let list = Value::Object(client.modern("prompts/list", json!({})).await.unwrap());
    assert_eq!(names(&list, "prompts", "name"), ["base"]);
}

#[tokio::test]
async fn res_03_resources_and_templates_come_and_go_with_list_changed() {
    let server = server();
    let client = TestClient::start(server.clone());
    client.initialize(modelctx_protocol::ProtocolVersion::V2025_11_25).await.unwrap();
    server.add_resource(ResourceDef::text("test://b", "b", "B")).unwrap();
    assert_eq!(next_method(&client).await, "notifications/resources/list_changed");
    server
        .add_resource_template(ResourceTemplateDef::new(
            "test://t/{x}",
            "t",
            |request: modelctx::server::ResourceRequest| async move {
                Ok(vec![text_contents(request.uri, None, "t")])
            },
        ))
        .unwrap();
    assert_eq!(next_method(&client).await, "notifications/resources/list_changed");
    let list = Value::Object(client.request("resources/list", Value::Null).await.unwrap());
    assert_eq!(names(&list, "resources", "uri"), ["test://a", "test://b"]);
    assert!(server.remove_resource("test://b"));
    assert!(server.remove_resource_template("test://t/{x}"));
    assert!(!server.remove_resource("test://nope"), "removing nothing changes nothing");
    let read = client.request("resources/read", json!({"uri": "test://t/1"})).await.unwrap_err();
    assert_eq!(read.code.0, -32002);
}

#[test]
fn an_invalid_runtime_definition_is_refused() {
    let server = server();
    let bad = ResourceTemplateDef::new("test://{unclosed", "bad", || async { Ok(vec![]) });
    assert!(server.add_resource_template(bad).is_err());
    let bad = PromptDef::new("p", || async { Ok(vec![]) }).complete("missing", || async { vec![] });
    assert!(server.add_prompt(bad).is_err());
}

#[tokio::test]
async fn tool_04_a_listing_kept_as_json_follows_every_change_in_both_eras() {
    let server = server();
    let client = TestClient::start(server.clone());
    let legacy = TestClient::start(server.clone());
    legacy.initialize(modelctx_protocol::ProtocolVersion::V2025_11_25).await.unwrap();
    let listed = async |client: &TestClient, modern: bool| {
        let list = if modern {
            client.modern("tools/list", json!({})).await
        } else {
            client.request("tools/list", json!({})).await
        };
        names(&Value::Object(list.unwrap()), "tools", "name")
    };
    for modern in [true, false] {
        let who = if modern { &client } else { &legacy };
        // Twice: the second answer comes from the page kept as JSON.
        assert_eq!(listed(who, modern).await, ["toggle_prompt"]);
        assert_eq!(listed(who, modern).await, ["toggle_prompt"]);
    }
    server.add_tool(ToolDef::new("added", || async { "new" })).unwrap();
    for modern in [true, false] {
        let who = if modern { &client } else { &legacy };
        assert_eq!(listed(who, modern).await, ["added", "toggle_prompt"], "modern: {modern}");
    }
    assert!(server.remove_tool("added"));
    for modern in [true, false] {
        let who = if modern { &client } else { &legacy };
        assert_eq!(listed(who, modern).await, ["toggle_prompt"], "modern: {modern}");
    }
}
