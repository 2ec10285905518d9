//! The guide's tour of what a server offers (docs/guide/src/primitives.md): a tool with
//! structured output, a resource, a resource template with completion, and a prompt, each
//! then used by modelctx's client over an in-memory connection.
//!
//! Run it with `cargo run -p modelctx --example guide_primitives`.

use modelctx::client::{Client, ClientOptions};
use modelctx::server::{
    Args, CompletionRequest, Json, PromptDef, PromptError, PromptRequest, ResourceDef, ResourceError,
    ResourceRequest, ResourceTemplateDef, Server, ToolDef, text_contents,
};
use modelctx::transport::serve_connection;
use modelctx_protocol::types::{ContentBlock, Implementation, PromptMessage, Role, TextOrBlob};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

// ANCHOR: tool
#[derive(Deserialize, JsonSchema)]
struct ConvertArgs {
    /// Degrees Celsius.
    celsius: f64,
}

/// The answer, as structured content with its own output schema.
#[derive(Serialize, JsonSchema)]
struct Fahrenheit {
    fahrenheit: f64,
}

fn convert() -> ToolDef {
    ToolDef::new("to_fahrenheit", |Args(ConvertArgs { celsius }): Args<ConvertArgs>| async move {
        Json(Fahrenheit { fahrenheit: celsius * 9.0 / 5.0 + 32.0 })
    })
    .description("Converts a temperature from Celsius to Fahrenheit")
}
// ANCHOR_END: tool

// ANCHOR: resources
/// The cities the template knows.
const CITIES: [&str; 3] = ["lisbon", "lima", "oslo"];

async fn forecast(request: ResourceRequest) -> Result<Vec<TextOrBlob>, ResourceError> {
    let city = request.uri.rsplit('/').next().unwrap_or_default().to_owned();
    if !CITIES.contains(&city.as_str()) {
        return Err(ResourceError::NotFound);
    }
    Ok(vec![text_contents(request.uri, Some("text/plain"), format!("{city}: sunny, 21 °C"))])
}

fn resources(builder: modelctx::server::ServerBuilder) -> modelctx::server::ServerBuilder {
    builder
        .resource(
            ResourceDef::text("weather://about", "about", "Forecasts for three cities.")
                .mime_type("text/plain"),
        )
        .resource_template(
            ResourceTemplateDef::new("weather://forecast/{city}", "forecast", forecast)
                .description("Tomorrow's forecast for a city")
                .complete("city", |request: CompletionRequest| async move {
                    CITIES.iter().filter(|c| c.starts_with(&request.value)).map(|c| (*c).to_owned()).collect()
                }),
        )
}
// ANCHOR_END: resources

// ANCHOR: prompt
async fn packing(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let city = &request.arguments["city"];
    Ok(vec![PromptMessage {
        role: Role::User,
        content: ContentBlock::text(format!("What should I pack for a trip to {city}?")),
    }])
}

fn prompt() -> PromptDef {
    PromptDef::new("packing_list", packing)
        .description("Asks what to pack")
        .argument("city", "Where to", true)
}
// ANCHOR_END: prompt

#[tokio::main]
async fn main() {
    let builder = Server::builder("weather", "1.0.0").tool(convert()).prompt(prompt());
    let server = resources(builder).build().expect("the definitions are valid");

    // ANCHOR: client
    // An in-memory connection: the server on one end, modelctx's client on the other.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_reads, server_writes) = tokio::io::split(server_end);
    tokio::spawn(serve_connection(server, server_reads, server_writes, std::future::pending()));
    let (client_reads, client_writes) = tokio::io::split(client_end);
    let options = ClientOptions::new(Implementation::new("guide", "1.0.0"));
    let client = Client::connect(client_reads, client_writes, options).await.expect("connected");

    let converted = client.call_tool("to_fahrenheit", json!({"celsius": 100})).await.expect("called");
    assert_eq!(converted.structured_content, Some(json!({"fahrenheit": 212.0})));
    let forecast = client.read_resource("weather://forecast/oslo").await.expect("read");
    println!("{}", serde_json::to_value(&forecast).unwrap()[0]["text"]);
    let reference = json!({"type": "ref/resource", "uri": "weather://forecast/{city}"});
    let completed = client.complete(reference, json!({"name": "city", "value": "li"}), None).await;
    println!("cities starting with li: {:?}", completed.expect("completed").values);
    let messages = client.get_prompt("packing_list", json!({"city": "Lima"})).await.expect("got");
    println!("{}", serde_json::to_value(&messages).unwrap()[0]["content"]["text"]);
    // ANCHOR_END: client
}
