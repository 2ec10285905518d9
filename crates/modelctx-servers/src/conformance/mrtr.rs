//! Tools for the 2026-07-28 multi-round-trip scenarios (`input-required-result-*`, SEP-2322)
//! and the diagnostic tools of `server-stateless`. Each asks through `ctx.question(key)`
//! (`.elicit`, `.sample`, `.list_roots`): a modern request gets an `InputRequiredResult` whose
//! `inputRequests` are keyed the way the suite's scenario texts show them (`user_name`,
//! `capital_question`, …), and its retry re-runs the handler with the answers; a legacy session
//! gets live requests, where the keys play no part.
//!
//! The suite names no key for `test_input_required_result_tampered_state` and
//! `test_input_required_result_capabilities`; they use the keys of the suite's reference
//! server (`examples/servers/typescript/everything-server.ts`). The `server-stateless`
//! diagnostics never get an answer from the suite and keep the runtime's keys (`sample-0`, …).

use modelctx::protocol::types::{ElicitValue, LoggingLevel};
use modelctx::server::{InputError, RequestContext, ServerBuilder, ToolDef};
use serde_json::json;

use super::{LOGGER, describe_elicitation, form, form_text, sampled_text, sampling_request};

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("test_input_required_result_elicitation", elicitation)
                .description("Asks the user's name, then greets them (input-required-result-basic-elicitation)"),
        )
        .tool(
            ToolDef::new("test_input_required_result_sampling", sampling)
                .description("Asks the client's model a question (input-required-result-basic-sampling)"),
        )
        .tool(
            ToolDef::new("test_input_required_result_list_roots", list_roots)
                .description("Asks the client for its roots (input-required-result-basic-list-roots)"),
        )
        .tool(
            ToolDef::new("test_input_required_result_request_state", request_state).description(
                "Asks for a confirmation; the retry's requestState is verified (input-required-result-request-state)",
            ),
        )
        .tool(ToolDef::new("test_input_required_result_multiple_inputs", multiple_inputs).description(
            "Asks for an elicitation, a sampling and the roots in one round \
             (input-required-result-multiple-input-requests)",
        ))
        .tool(
            ToolDef::new("test_input_required_result_multi_round", multi_round)
                .description("Asks two questions in two rounds (input-required-result-multi-round)"),
        )
        .tool(ToolDef::new("test_input_required_result_tampered_state", tampered_state).description(
            "Asks for a confirmation; a tampered requestState is refused (input-required-result-tampered-state)",
        ))
        .tool(ToolDef::new("test_input_required_result_capabilities", capabilities).description(
            "Asks only what the client declared it can answer (input-required-result-capability-check)",
        ))
        .tool(
            ToolDef::new("test_missing_capability", missing_capability)
                .description("Needs the client's sampling capability (server-stateless)"),
        )
        .tool(
            ToolDef::new("test_streaming_elicitation", streaming_elicitation)
                .description("Reports progress, then asks the user to confirm (server-stateless)"),
        )
        .tool(
            ToolDef::new("test_logging_tool", logging)
                .description("Sends one info log message, if the request asked for logs (server-stateless)"),
        )
}

/// A one-field form of a string.
fn text_form(message: &str, field: &str) -> modelctx::protocol::model::ElicitRequest {
    form(message, json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}))
}

/// The `{ok: boolean}` confirmation form.
fn confirm_form() -> modelctx::protocol::model::ElicitRequest {
    form(
        "Please confirm",
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    )
}

async fn elicitation(ctx: RequestContext) -> Result<String, InputError> {
    // input-required-result-basic-elicitation requires this key; -ignore-extra-params and
    // -validate-input answer it without asking first.
    let answer = ctx.question("user_name").elicit(text_form("What is your name?", "name")).await?;
    Ok(match form_text(&answer, "name") {
        Some(name) => format!("Hello, {name}!"),
        None => format!("No name given ({})", describe_elicitation(&answer)),
    })
}

async fn sampling(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx
        .question("capital_question")
        .sample(sampling_request("What is the capital of France?", 100))
        .await?;
    Ok(format!("The client's model answered: {}", sampled_text(&answer)))
}

async fn list_roots(ctx: RequestContext) -> Result<String, InputError> {
    let roots = ctx.question("client_roots").list_roots().await?;
    let listed: Vec<String> = roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => format!("{} ({name})", root.uri),
            None => root.uri.clone(),
        })
        .collect();
    Ok(format!("The client has {} root(s): {}", roots.len(), listed.join(", ")))
}

async fn request_state(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.question("confirm").elicit(confirm_form()).await?;
    // The runtime verified the sealed requestState (tag, expiry, method, params) before this
    // run; an answer carried by a tampered or foreign state never reaches the handler.
    Ok(format!("state-ok: {}", describe_elicitation(&answer)))
}

async fn multiple_inputs(ctx: RequestContext) -> Result<String, InputError> {
    // Asked together, so one round carries all three questions.
    let (name, greeting, roots) = tokio::join!(
        ctx.question("user_name").elicit(text_form("What is your name?", "name")),
        ctx.question("greeting").sample(sampling_request("Generate a greeting", 50)),
        ctx.question("client_roots").list_roots(),
    );
    let name = form_text(&name?, "name").unwrap_or_else(|| "stranger".into());
    Ok(format!(
        "All inputs received: name={name}, greeting={:?}, roots={}",
        sampled_text(&greeting?),
        roots?.len()
    ))
}

async fn multi_round(ctx: RequestContext) -> Result<String, InputError> {
    // Asked one after the other: the second question needs the first answer, so it comes in
    // a second round with a new requestState.
    let name = ctx.question("step1").elicit(text_form("Step 1: What is your name?", "name")).await?;
    let name = form_text(&name, "name").unwrap_or_else(|| "someone".into());
    let color = ctx
        .question("step2")
        .elicit(text_form(&format!("Step 2: {name}, what is your favorite color?"), "color"))
        .await?;
    let color = form_text(&color, "color").unwrap_or_else(|| "no colour".into());
    Ok(format!("Multi-round complete for {name} who likes {color}"))
}

async fn tampered_state(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.question("confirm").elicit(confirm_form()).await?;
    Ok(format!("integrity-ok: {}", describe_elicitation(&answer)))
}

async fn capabilities(ctx: RequestContext) -> Result<String, InputError> {
    let declared = ctx.client_capabilities();
    let can_elicit = declared.elicitation.as_ref().is_some_and(|e| e.supports_form());
    let can_sample = declared.sampling.is_some();
    if !can_elicit && !can_sample {
        return Ok("No supported capabilities declared".into());
    }
    // Only what the client declared, asked together in one round.
    let elicit = async {
        if can_elicit {
            Some(ctx.question("elicit_input").elicit(text_form("Elicitation input", "value")).await)
        } else {
            None
        }
    };
    let sample = async {
        if can_sample {
            Some(ctx.question("sample_input").sample(sampling_request("Sample request", 50)).await)
        } else {
            None
        }
    };
    let (elicited, sampled) = tokio::join!(elicit, sample);
    let mut received = Vec::new();
    if elicited.transpose()?.is_some() {
        received.push("elicitation");
    }
    if sampled.transpose()?.is_some() {
        received.push("sampling");
    }
    Ok(format!("capabilities-ok: received {}", received.join(",")))
}

async fn missing_capability(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.sample(sampling_request("Reply with one word", 10)).await?;
    Ok(format!("Success: {}", sampled_text(&answer)))
}

async fn streaming_elicitation(ctx: RequestContext) -> Result<String, InputError> {
    ctx.progress(50.0, Some(100.0), Some("asking the user".into())).await;
    let answer = ctx.elicit(confirm_form()).await?;
    let confirmed =
        matches!(answer.content.as_ref().and_then(|c| c.get("ok")), Some(ElicitValue::Boolean(true)));
    Ok(format!("Streaming complete (confirmed: {confirmed})"))
}

async fn logging(ctx: RequestContext) -> &'static str {
    ctx.log(LoggingLevel::Info, Some(LOGGER), json!("Diagnostic trace logging activated")).await;
    "Logging evaluated"
}
