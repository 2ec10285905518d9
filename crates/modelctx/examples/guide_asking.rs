//! The guide's chapter on asking the client (docs/guide/src/asking-the-client.md): a tool
//! that asks the user a question in the middle of its work. One handler serves both eras:
//! a 2026-07-28 client gets `input_required` and retries with the answer; a 2025-11-25 client
//! gets a live `elicitation/create` request. The client side answers through
//! `ClientHandlers::on_elicit`. Both run over Streamable HTTP on 127.0.0.1.
//!
//! Run it with `cargo run -p modelctx --example guide_asking`.

use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode};
use modelctx::server::{InputError, RequestContext, Server, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::model;
use modelctx_protocol::types::{ElicitAction, ElicitValue, Implementation};
use modelctx_protocol::v2026::ElicitResult;
use serde_json::json;

// ANCHOR: server
/// Asks for a name, then greets whoever answered.
async fn greet_someone(ctx: RequestContext) -> Result<String, InputError> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let question = model::ElicitRequest::Form {
        message: "Who should be greeted?".into(),
        requested_schema: serde_json::from_value(schema).expect("a valid form schema"),
    };
    let answer = ctx.elicit(question).await?;
    Ok(match (answer.action, answer.content.as_ref().and_then(|form| form.get("name"))) {
        (ElicitAction::Accept, Some(ElicitValue::String(name))) => format!("Hello, {name}!"),
        _ => "Nobody to greet.".to_owned(),
    })
}
// ANCHOR_END: server

// ANCHOR: client
/// A client that answers every form with the name Ada, as a person at a prompt would.
fn answering_client(mode: EraMode) -> ClientOptions {
    let handlers = ClientHandlers::default().on_elicit(|_question: model::ElicitRequest| async {
        let content = [("name".to_owned(), ElicitValue::String("Ada".into()))].into_iter().collect();
        ElicitResult { action: ElicitAction::Accept, content: Some(content) }
    });
    ClientOptions { mode, handlers, ..ClientOptions::new(Implementation::new("guide", "1.0.0")) }
}
// ANCHOR_END: client

#[tokio::main]
async fn main() {
    let server = Server::builder("asking", "1.0.0")
        .tool(ToolDef::new("greet_someone", greet_someone).description("Asks who to greet, then greets them"))
        .build()
        .expect("the definitions are valid");
    // ANCHOR: serve
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    // Serves until the future completes: here never; `modelctx::transport::terminated()`
    // completes on SIGTERM or Ctrl-C, then in-flight requests get the grace period.
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), std::future::pending()));
    // ANCHOR_END: serve

    for mode in [EraMode::Modern, EraMode::Legacy] {
        let client =
            Client::connect_http(&url, Default::default(), answering_client(mode)).await.expect("connected");
        let result = client.call_tool("greet_someone", json!({})).await.expect("called");
        let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
        println!("{mode:?} ({}): {text}", client.server().version);
        assert_eq!(text, "Hello, Ada!");
    }
}
