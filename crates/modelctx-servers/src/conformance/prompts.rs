//! Prompts the suite gets: a simple one, one with arguments (and their completion), one with
//! an embedded resource, one with an image, and one that asks the user first.

use modelctx::protocol::types::{ContentBlock, EmbeddedResource, EmbeddedResourceType, PromptMessage, Role};
use modelctx::server::{
    CompletionRequest, PromptDef, PromptError, PromptRequest, ServerBuilder, text_contents,
};
use serde_json::json;

use super::{form, form_text, image_block};

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .prompt(
            PromptDef::new("test_simple_prompt", |_: PromptRequest| async {
                Ok(vec![user(ContentBlock::text("This is a simple prompt for testing."))])
            })
            .title("Simple Test Prompt")
            .description("A prompt without arguments (prompts-get-simple)"),
        )
        .prompt(
            PromptDef::new("test_prompt_with_arguments", with_arguments)
                .title("Prompt With Arguments")
                .description("A prompt with two required arguments (prompts-get-with-args, completion-complete)")
                .argument("arg1", "First test argument", true)
                .argument("arg2", "Second test argument", true)
                .complete("arg1", complete_argument)
                .complete("arg2", complete_argument),
        )
        .prompt(
            PromptDef::new("test_prompt_with_embedded_resource", with_embedded_resource)
                .title("Prompt With Embedded Resource")
                .description("A prompt that embeds the resource it is given (prompts-get-embedded-resource)")
                .argument("resourceUri", "URI of the resource to embed", true),
        )
        .prompt(
            PromptDef::new("test_prompt_with_image", |_: PromptRequest| async {
                Ok(vec![user(image_block()), user(ContentBlock::text("Please analyze the image above."))])
            })
            .title("Prompt With Image")
            .description("A prompt with image content (prompts-get-with-image)"),
        )
        .prompt(
            PromptDef::new("test_input_required_result_prompt", asks_first)
                .title("Prompt That Asks First")
                .description("Asks the user for context before it is produced (input-required-result-non-tool-request)"),
        )
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage { role: Role::User, content }
}

/// An argument value, which `PromptDef` has already checked is present when required.
fn argument<'a>(request: &'a PromptRequest, name: &str) -> &'a str {
    request.arguments.get(name).map_or("", String::as_str)
}

async fn with_arguments(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let (arg1, arg2) = (argument(&request, "arg1"), argument(&request, "arg2"));
    Ok(vec![user(ContentBlock::text(format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")))])
}

async fn complete_argument(request: CompletionRequest) -> Vec<String> {
    ["test", "testValue1", "testValue2", "hello", "world"]
        .into_iter()
        .filter(|value| value.starts_with(&request.value))
        .map(str::to_owned)
        .collect()
}

async fn with_embedded_resource(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let uri = argument(&request, "resourceUri");
    if uri.is_empty() {
        return Err(PromptError::InvalidArguments("resourceUri must not be empty".into()));
    }
    let resource = ContentBlock::Resource(EmbeddedResource {
        kind: EmbeddedResourceType,
        resource: text_contents(uri, Some("text/plain"), "Embedded resource content for testing."),
        annotations: None,
        meta: None,
    });
    Ok(vec![user(resource), user(ContentBlock::text("Please process the embedded resource above."))])
}

async fn asks_first(request: PromptRequest) -> Result<Vec<PromptMessage>, PromptError> {
    let schema =
        json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]});
    // The key of input-required-result-non-tool-request's scenario text.
    let answer = request
        .ctx
        .question("user_context")
        .elicit(form("What context should the prompt use?", schema))
        .await
        .map_err(|e| PromptError::Failed(e.to_string()))?;
    let context = form_text(&answer, "context").unwrap_or_else(|| "no particular context".into());
    Ok(vec![user(ContentBlock::text(format!(
        "Answer the next question with this context in mind: {context}"
    )))])
}
