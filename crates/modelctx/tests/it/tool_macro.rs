//! `#[tool]`, `#[tools]`, `#[prompt]` and `#[resource]` expand to the public builders: the
//! same definitions as written by hand (the compile errors that say what to fix are pinned in
//! modelctx-macros, `tests/ui`).

use std::sync::{Arc, Mutex};

use modelctx::server::{
    Args, Json, PromptDef, PromptError, PromptRequest, RequestContext, ResourceDef, ResourceError,
    ResourceRequest, ResourceTemplateDef, Server, State, ToolDef, text_contents,
};
use modelctx::testing::TestClient;
use modelctx_protocol::types::{ContentBlock, PromptMessage, Role, TextOrBlob};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::common::{ERAS, builder, first_text};

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

/// Greets someone.
#[modelctx::tool(read_only)]
async fn welcome(
    /// Who to greet.
    name: String,
    /// How many exclamation marks (one when left out).
    excitement: Option<usize>,
    /// Greet in capitals.
    #[serde(default)]
    shout: bool,
) -> String {
    let greeting = format!("Hello, {name}{}", "!".repeat(excitement.unwrap_or(1)));
    if shout { greeting.to_uppercase() } else { greeting }
}

// The struct a person would write for `welcome`'s parameters (a doc comment would be its
// schema's description).
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct WelcomeArgs {
    /// Who to greet.
    name: String,
    /// How many exclamation marks (one when left out).
    excitement: Option<usize>,
    /// Greet in capitals.
    #[serde(default)]
    shout: bool,
}

/// What `scale` multiplies by, registered as server state.
#[derive(Clone)]
struct Factor(f64);

#[derive(Serialize, JsonSchema)]
struct Scaled {
    product: f64,
    version: String,
}

/// Multiplies the sum of two numbers by the server's factor.
#[modelctx::tool]
async fn scale(a: f64, ctx: RequestContext, b: f64, State(Factor(factor)): State<Factor>) -> Json<Scaled> {
    Json(Scaled { product: (a + b) * factor, version: ctx.protocol_version().to_string() })
}

/// A tool whose name is a keyword.
#[modelctx::tool]
async fn r#loop(r#times: u32) -> String {
    "again ".repeat(r#times as usize)
}

#[test]
fn plain_parameters_give_the_schema_of_the_struct_a_person_would_write() {
    let welcome = welcome_tool();
    let schema = &welcome.tool().input_schema;
    let by_hand = ToolDef::new("welcome", |Args(_): Args<WelcomeArgs>| async { "" });
    assert_eq!(schema, &by_hand.tool().input_schema);
    assert_eq!(schema["title"], "WelcomeArgs");
    assert_eq!(schema["required"], json!(["name"]), "an Option or a #[serde(default)] may be left out");
    assert_eq!(schema["properties"]["name"]["type"], "string");
    assert_eq!(schema["properties"]["name"]["description"], "Who to greet.");
    assert_eq!(
        schema["properties"]["excitement"]["description"],
        "How many exclamation marks (one when left out)."
    );
    assert_eq!(welcome.tool().description.as_deref(), Some("Greets someone."));
    assert_eq!(welcome.tool().annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));

    let scale = scale_tool();
    let schema = &scale.tool().input_schema;
    let properties: Vec<&String> = schema["properties"].as_object().expect("properties").keys().collect();
    assert_eq!(properties, ["a", "b"], "the extractors are not arguments");
    assert_eq!(schema["required"], json!(["a", "b"]));

    assert_eq!(loop_tool().tool().name, "loop");
    assert!(loop_tool().tool().input_schema["properties"].get("times").is_some());
}

#[tokio::test]
async fn plain_parameters_are_the_arguments_of_calls_in_both_eras() {
    let server = builder()
        .state(Factor(10.0))
        .tool(welcome_tool())
        .tool(scale_tool())
        .tool(loop_tool())
        .build()
        .unwrap();
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
        let result = era.ok(&client, "tools/call", call("welcome", json!({"name": "Ada"}))).await;
        assert_eq!(first_text(&result), "Hello, Ada!", "{era:?}");
        let result = era
            .ok(
                &client,
                "tools/call",
                call("welcome", json!({"name": "Ada", "excitement": 3, "shout": true})),
            )
            .await;
        assert_eq!(first_text(&result), "HELLO, ADA!!!", "{era:?}");
        let result = era.ok(&client, "tools/call", call("loop", json!({"times": 2}))).await;
        assert_eq!(first_text(&result), "again again ", "{era:?}");

        let result = era.ok(&client, "tools/call", call("scale", json!({"a": 1, "b": 2}))).await;
        let version = if era == crate::common::Era::Modern { "2026-07-28" } else { "2025-11-25" };
        assert_eq!(result["structuredContent"], json!({"product": 30.0, "version": version}), "{era:?}");

        for invalid in [json!({}), json!({"name": 7}), json!({"name": "Ada", "excitement": -1})] {
            let result = era.ok(&client, "tools/call", call("welcome", invalid.clone())).await;
            assert_eq!(result["isError"], true, "{era:?}: {invalid} is refused to the model");
        }
    }
}

/// A count the tools of one value share, as an rmcp server keeps state in `self`.
#[derive(Default)]
struct Counter {
    count: Mutex<i64>,
}

/// What `set` takes: the `Args<T>` form works in a method too.
#[derive(Deserialize, JsonSchema)]
struct SetTo {
    /// The new count.
    value: i64,
}

#[derive(Serialize, JsonSchema)]
struct Count {
    count: i64,
}

#[modelctx::tools]
impl Counter {
    /// Adds `by` to the count and returns the new count.
    #[tool(idempotent = false)]
    async fn increment(
        &self,
        /// How much to add (one when left out).
        by: Option<i64>,
    ) -> String {
        let mut count = self.count.lock().unwrap();
        *count += by.unwrap_or(1);
        count.to_string()
    }

    /// The count.
    #[modelctx::tool(name = "count", read_only)]
    async fn current(&self) -> Json<Count> {
        Json(Count { count: self.value() })
    }

    /// Sets the count.
    #[tool]
    async fn set(&self, Args(SetTo { value }): Args<SetTo>, ctx: RequestContext) -> String {
        *self.count.lock().unwrap() = value;
        format!("set under {}", ctx.protocol_version())
    }

    /// Not a tool: the macro leaves it alone.
    fn value(&self) -> i64 {
        *self.count.lock().unwrap()
    }
}

#[test]
fn the_tools_of_an_impl_block_are_its_tool_methods() {
    let tools = Arc::new(Counter::default()).tools();
    let names: Vec<&str> = tools.iter().map(|def| def.tool().name.as_str()).collect();
    assert_eq!(names, ["increment", "count", "set"]);
    let increment = tools[0].tool();
    assert_eq!(increment.description.as_deref(), Some("Adds `by` to the count and returns the new count."));
    assert_eq!(increment.annotations.as_ref().and_then(|a| a.idempotent_hint), Some(false));
    assert_eq!(
        increment.input_schema["properties"]["by"]["description"],
        "How much to add (one when left out)."
    );
    assert!(increment.input_schema.get("required").is_none(), "an Option may be left out");
    assert_eq!(tools[1].tool().annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
    assert_eq!(tools[2].tool().input_schema["required"], json!(["value"]));
}

#[tokio::test]
async fn the_tools_of_an_impl_block_share_its_value_in_both_eras() {
    let counter = Arc::new(Counter::default());
    let server = builder().tools(Arc::clone(&counter).tools()).build().unwrap();
    let mut expected = 0;
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let result =
            era.ok(&client, "tools/call", json!({"name": "increment", "arguments": {"by": 2}})).await;
        expected += 2;
        assert_eq!(first_text(&result), expected.to_string(), "{era:?}");
        let result = era.ok(&client, "tools/call", json!({"name": "increment"})).await;
        expected += 1;
        assert_eq!(first_text(&result), expected.to_string(), "{era:?}");
        let result = era.ok(&client, "tools/call", json!({"name": "count"})).await;
        assert_eq!(result["structuredContent"], json!({"count": expected}), "{era:?}");
        let result =
            era.ok(&client, "tools/call", json!({"name": "increment", "arguments": {"by": "two"}})).await;
        assert_eq!(result["isError"], true, "{era:?}: invalid arguments are refused to the model");
        assert_eq!(counter.value(), expected, "{era:?}: a refused call changes nothing");
    }
    let result = crate::common::Era::Modern
        .ok(&TestClient::start(server), "tools/call", json!({"name": "set", "arguments": {"value": 40}}))
        .await;
    assert_eq!(first_text(&result), "set under 2026-07-28");
    assert_eq!(counter.value(), 40, "the tools change the value the caller holds");
}
