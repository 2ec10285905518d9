//! Tools that ask the client during the call, as the 2025-11-25 scenarios exercise them:
//! sampling, a form elicitation, SEP-1034 defaults and SEP-1330 enum fields. A client that
//! lacks the capability gets a tool error (legacy) or `-32021` (modern).

use modelctx::server::{Args, InputError, RequestContext, ServerBuilder, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{describe_elicitation, form, sampled_text, sampling_request};

pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            ToolDef::new("test_sampling", sampling)
                .description("Asks the client's model to answer the prompt (tools-call-sampling)"),
        )
        .tool(
            ToolDef::new("test_elicitation", elicitation)
                .description("Asks the user for a username and an email address (tools-call-elicitation)"),
        )
        .tool(ToolDef::new("test_elicitation_sep1034_defaults", defaults).description(
            "Asks the user to fill a form whose every field has a default (elicitation-sep1034-defaults)",
        ))
        .tool(ToolDef::new("test_elicitation_sep1330_enums", enums).description(
            "Asks the user to pick from all five kinds of choice field (elicitation-sep1330-enums)",
        ))
}

/// `test_sampling` arguments.
#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the LLM.
    prompt: String,
}

async fn sampling(ctx: RequestContext, Args(args): Args<SamplingArgs>) -> Result<String, InputError> {
    let answer = ctx.sample(sampling_request(&args.prompt, 100)).await?;
    Ok(format!("LLM response: {}", sampled_text(&answer)))
}

/// `test_elicitation` arguments.
#[derive(Deserialize, JsonSchema)]
struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

async fn elicitation(ctx: RequestContext, Args(args): Args<ElicitationArgs>) -> Result<String, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    let answer = ctx.elicit(form(&args.message, schema)).await?;
    Ok(format!("User response: {}", describe_elicitation(&answer)))
}

async fn defaults(ctx: RequestContext) -> Result<String, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    let answer = ctx.elicit(form("Please review and update the form fields with defaults", schema)).await?;
    Ok(format!("Elicitation completed: {}", describe_elicitation(&answer)))
}

async fn enums(ctx: RequestContext) -> Result<String, InputError> {
    let titled = |values: [(&str, &str); 3]| {
        values.map(|(value, title)| json!({"const": value, "title": title})).to_vec()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Untitled single-select",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Titled single-select",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])
            },
            "legacyEnum": {
                "type": "string",
                "description": "Legacy titled enum (enumNames, deprecated)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Untitled multi-select",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
            },
            "titledMulti": {
                "type": "array",
                "description": "Titled multi-select",
                "items": {
                    "anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])
                }
            }
        },
        "required": []
    });
    let answer = ctx.elicit(form("Please choose from each kind of list", schema)).await?;
    Ok(format!("Elicitation completed: {}", describe_elicitation(&answer)))
}
