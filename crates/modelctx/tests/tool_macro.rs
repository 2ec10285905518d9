//! `#[tool]` expands to the public `ToolDef` builder: the same tool as written by hand, and
//! compile errors that say what to fix (pinned with trybuild).

use modelctx::server::{Args, Json, Server, ToolDef};
use modelctx::testing::TestClient;
use modelctx_protocol::types::Implementation;
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
    let server =
        Server::builder(Implementation::new("t", "1")).tool(add_tool()).tool(greet_tool()).build().unwrap();
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
