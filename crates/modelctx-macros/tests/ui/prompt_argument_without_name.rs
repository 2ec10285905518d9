#[modelctx::prompt(argument(description = "Who", required))]
async fn nameless(
    _request: modelctx::server::PromptRequest,
) -> Result<Vec<modelctx::protocol::types::PromptMessage>, modelctx::server::PromptError> {
    Ok(Vec::new())
}

fn main() {}
