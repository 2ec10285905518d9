//! `#[tool]`, `#[prompt]` and `#[resource]` expand to the public builders: the same
//! definitions as written by hand, and compile errors that say what to fix (pinned with
//! trybuild).

use modelctx::server::{
    Args, Json, PromptDef, PromptError, PromptRequest, ResourceDef, ResourceError, ResourceRequest,
    ResourceTemplateDef, Server, ToolDef, text_contents,
};
use modelctx::testing::TestClient;
use modelctx_protocol::types::{ContentBlock, PromptMessage, Role, TextOrBlob};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

/// Adds two numbers.
///
/// Both may be fractions.
#[modelctx::tool(title = "Add", read_only, open_world = false)]
async fn add(Args(AddArgs { a, b }): Args<AddArgs>) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// Says hello.
#[modelctx::tool(name = "hello", description = "Greets the world")]
async fn greet() -> &'static str {
    "hello"
}

/// Asks the model to greet someone.
#[modelctx::prompt(
    title = "Greeting",
    argument(name = "name", description = "Who to greet", required),
    argument(name = "tone", description = "How")
)]
async fn greeting(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let name = request.arguments.get("name").cloned().unwrap_or_default();
    Ok(vec![PromptMessage { role: Role::User, content: ContentBlock::text(format!("Greet {name}")) }])
}

/// The read-me.
#[modelctx::resource(uri = "docs://readme", mime_type = "text/plain")]
async fn readme(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    Ok(vec![text_contents(request.uri, Some("text/plain"), "read me")])
}

/// One item.
#[modelctx::resource(uri = "items://{id}", name = "item")]
async fn item(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    let id: u32 = request.variable("id")?;
    Ok(vec![text_contents(request.uri, None, id.to_string())])
}

#[test]
fn prompt_and_resource_macros_build_the_definitions_a_person_would_write() {
    let by_hand = PromptDef::new("greeting", greeting)
        .description("Asks the model to greet someone.")
        .title("Greeting")
        .argument("name", "Who to greet", true)
        .argument("tone", "How", false);
    assert_eq!(greeting_prompt().prompt(), by_hand.prompt());
    let by_hand = ResourceDef::new("docs://readme", "readme", readme)
        .description("The read-me.")
        .mime_type("text/plain");
    assert_eq!(readme_resource().resource(), by_hand.resource());
    let by_hand = ResourceTemplateDef::new("items://{id}", "item", item).description("One item.");
    assert_eq!(item_resource().template(), by_hand.template());
}

#[tokio::test]
async fn macro_prompts_and_resources_serve_requests() {
    let server = Server::builder("t", "1")
        .prompt(greeting_prompt())
        .resource(readme_resource())
        .resource_template(item_resource())
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let prompt = client
        .modern("prompts/get", json!({"name": "greeting", "arguments": {"name": "Ada"}}))
        .await
        .unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "Greet Ada");
    let read = client.modern("resources/read", json!({"uri": "items://42"})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "42");
    let missing = client.modern("resources/read", json!({"uri": "items://forty-two"})).await.unwrap_err();
    assert_eq!(missing.code.0, -32602, "an unparsable variable is not found");
}

#[test]
fn the_macro_builds_the_tool_a_person_would_write() {
    let by_hand = ToolDef::new("add", add)
        .description("Adds two numbers.\n\nBoth may be fractions.")
        .title("Add")
        .annotations(modelctx_protocol::types::ToolAnnotations {
            read_only_hint: Some(true),
            open_world_hint: Some(false),
            ..Default::default()
        });
    assert_eq!(add_tool().tool(), by_hand.tool());
    assert_eq!(greet_tool().tool().name, "hello");
    assert_eq!(greet_tool().tool().description.as_deref(), Some("Greets the world"));
}

#[tokio::test]
async fn a_macro_tool_serves_calls() {
    let server = Server::builder("t", "1").tool(add_tool()).tool(greet_tool()).build().unwrap();
    let client = TestClient::start(server);
    let result =
        client.modern("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await.unwrap();
    assert_eq!(result["structuredContent"], json!({"sum": 3.0}));
}

#[test]
fn misuse_fails_to_compile_with_a_message_that_says_why() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
