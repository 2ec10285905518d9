//! Prompts, resources and completers take extractors as tools do, and an extractor's
//! refusal is a typed rejection each kind of handler answers as its clients expect.

use crate::common::{ERAS, Era, builder};
use modelctx::server::{
    Args, CompletionRequest, PromptDef, RequestContext, ResourceTemplateDef, State, ToolDef, text_contents,
};
use modelctx_protocol::jsonrpc::ErrorCode;
use modelctx_protocol::types::{ContentBlock, PromptMessage, Role};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// A prompt's arguments, typed: their schema declares the prompt's arguments.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The language of the code.
    language: String,
    /// How strict to be.
    strictness: Option<String>,
}

async fn review(Args(review): Args<Review>, ctx: RequestContext) -> Vec<PromptMessage> {
    let strictness = review.strictness.unwrap_or_else(|| "normal".into());
    let text = format!("Review this {} code ({strictness}); era {:?}", review.language, ctx.era());
    vec![PromptMessage { role: Role::User, content: ContentBlock::text(text) }]
}

/// A template's variables, typed.
#[derive(Deserialize)]
struct Item {
    id: u32,
}

#[derive(Clone)]
struct Catalogue(&'static str);

#[tokio::test]
async fn a_prompt_takes_typed_arguments_that_declare_themselves() {
    let prompt = PromptDef::new("review", review);
    let declared = prompt.prompt().arguments.clone().expect("arguments from the schema");
    let names: Vec<(&str, Option<bool>)> = declared.iter().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(names, [("language", Some(true)), ("strictness", Some(false))]);
    assert_eq!(declared[0].description.as_deref(), Some("The language of the code."));
    let server = builder().prompt(prompt).build().unwrap();
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let got = era
            .ok(&client, "prompts/get", json!({"name": "review", "arguments": {"language": "Rust"}}))
            .await;
        let text = got["messages"][0]["content"]["text"].as_str().unwrap();
        assert!(text.starts_with("Review this Rust code (normal)"), "{era:?}: {text}");
        // A required argument missing is refused before the handler runs (PROMPT-06).
        let missing = era.err(&client, "prompts/get", json!({"name": "review", "arguments": {}})).await;
        assert_eq!(missing.code, ErrorCode::INVALID_PARAMS, "{era:?}");
    }
}

#[tokio::test]
async fn a_template_takes_its_variables_typed_and_a_misfit_names_no_resource() {
    let item = |Args(Item { id }): Args<Item>, State(Catalogue(name)): State<Catalogue>| async move {
        vec![text_contents(format!("items://{id}"), None, format!("item {id} of {name}"))]
    };
    let server = builder()
        .state(Catalogue("the shop"))
        .resource_template(ResourceTemplateDef::new("items://{id}", "item", item))
        .build()
        .unwrap();
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let read = era.ok(&client, "resources/read", json!({"uri": "items://7"})).await;
        assert_eq!(read["contents"][0]["text"], "item 7 of the shop", "{era:?}");
        let error = era.err(&client, "resources/read", json!({"uri": "items://seven"})).await;
        let not_found =
            if era == Era::Modern { ErrorCode::INVALID_PARAMS } else { ErrorCode::RESOURCE_NOT_FOUND };
        assert_eq!(error.code, not_found, "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn missing_state_is_the_servers_fault_for_every_kind_of_handler() {
    #[derive(Clone)]
    struct Unregistered;
    let server = builder()
        .tool(ToolDef::new("tool", |State(Unregistered): State<Unregistered>| async { "never" }))
        .prompt(PromptDef::new("prompt", |State(Unregistered): State<Unregistered>| async { Vec::new() }))
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    for (method, params) in
        [("tools/call", json!({"name": "tool"})), ("prompts/get", json!({"name": "prompt"}))]
    {
        let error = Era::Modern.err(&client, method, params).await;
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR, "{method}");
        assert!(error.message.contains("no state of type"), "{method}: {}", error.message);
    }
}

#[tokio::test]
async fn a_completer_takes_extractors_too() {
    let languages = |request: CompletionRequest, State(Catalogue(name)): State<Catalogue>| async move {
        ["rust", "ruby"]
            .iter()
            .filter(|l| l.starts_with(&request.value))
            .map(|l| format!("{l} ({name})"))
            .collect()
    };
    let server = builder()
        .state(Catalogue("known"))
        .prompt(PromptDef::new("review", review).complete("language", languages))
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    let params = json!({"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "language", "value": "ru"}});
    let completed = Era::Modern.ok(&client, "completion/complete", params).await;
    assert_eq!(completed["completion"]["values"], json!(["rust (known)", "ruby (known)"]));
}
