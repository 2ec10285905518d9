//! On a terminal, a server's sampling request is answered by the person at the keyboard, as the
//! model: the conversation is shown (the server's text made inert) and what they type is the
//! model's answer; an empty answer declines, as a user rejecting the request.

use dialoguer::Input;
use dialoguer::theme::ColorfulTheme;
use modelctx::protocol::jsonrpc::{ErrorCode, ErrorObject};
use modelctx::protocol::types::{Role, SamplingMessage, SamplingMessageContentBlock};
use modelctx::protocol::v2026::{CreateMessageRequestParams, CreateMessageResult, StopReason};

use super::output::{BOLD, DIM, shown};

/// The name a person's answer goes by in `model`.
pub const PERSON_AS_MODEL: &str = "a person at the modelctx terminal";

/// The lines that put a sampling request to the person: which server asks, within how many
/// tokens, the system prompt and each message of the conversation.
pub fn conversation(server: &str, request: &CreateMessageRequestParams) -> Vec<String> {
    let mut lines = vec![format!(
        "{BOLD}The server {server} asks for the model's answer{BOLD:#} (at most {} tokens):",
        request.max_tokens
    )];
    if let Some(system) = &request.system_prompt {
        lines.push(format!("  {DIM}system:{DIM:#} {}", shown(system, true)));
    }
    for message in &request.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        lines.push(format!("  {DIM}{role}:{DIM:#} {}", said(message)));
    }
    lines
}

/// What one message says, its non-text blocks named.
pub fn said(message: &SamplingMessage) -> String {
    let blocks = message.blocks().into_iter().map(|block| match block {
        SamplingMessageContentBlock::Text(text) => shown(&text.text, true).into_owned(),
        SamplingMessageContentBlock::Image(image) => {
            format!("[an image, {}]", shown(&image.mime_type, false))
        }
        SamplingMessageContentBlock::Audio(audio) => format!("[audio, {}]", shown(&audio.mime_type, false)),
        SamplingMessageContentBlock::ToolUse(call) => {
            format!("[a call of the tool {}]", shown(&call.name, false))
        }
        SamplingMessageContentBlock::ToolResult(_) => "[a tool's result]".to_owned(),
    });
    blocks.collect::<Vec<_>>().join(" ")
}

/// Asks the person for the model's answer (blocking: run it off the runtime).
pub fn ask(server: &str, request: &CreateMessageRequestParams) -> Result<CreateMessageResult, ErrorObject> {
    for line in conversation(server, request) {
        anstream::eprintln!("{line}");
    }
    let typed = Input::<String>::with_theme(&ColorfulTheme::default())
        .with_prompt("Your answer, as the model (empty to decline)")
        .allow_empty(true)
        .interact_text();
    match typed {
        Ok(text) if !text.trim().is_empty() => Ok(answer(text)),
        _ => Err(declined()),
    }
}

/// The refusal of a sampling request the person declined.
pub fn declined() -> ErrorObject {
    ErrorObject::new(ErrorCode(-1), "User rejected sampling request")
}

/// `text` as the model's answer.
pub fn answer(text: String) -> CreateMessageResult {
    let SamplingMessage { content, .. } = SamplingMessage::text(Role::Assistant, text);
    CreateMessageResult {
        role: Role::Assistant,
        content,
        model: PERSON_AS_MODEL.to_owned(),
        stop_reason: Some(StopReason::EndTurn),
        meta: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelctx::protocol::types::SamplingContent;

    /// The conversation names the server and shows every message, a server's escape
    /// sequences made inert.
    #[test]
    fn the_conversation_is_shown_whole_and_inert() {
        let mut request = CreateMessageRequestParams::new(
            vec![
                SamplingMessage::text(Role::User, "What is 2+2?\u{1b}]52;c;ZXZpbA==\u{7}"),
                SamplingMessage::text(Role::Assistant, "4"),
            ],
            100,
        );
        request.system_prompt = Some("Be brief.".into());
        let text = conversation("\"calc\"", &request).join("\n");
        assert!(text.contains("The server \"calc\" asks") && text.contains("at most 100 tokens"), "{text}");
        assert!(text.contains("system:") && text.contains("Be brief."), "{text}");
        assert!(text.contains("What is 2+2?") && text.contains("assistant:"), "{text}");
        // Our own styling aside, no escape sequence of the server's reaches the terminal.
        assert!(!text.contains("\u{1b}]52") && text.contains("\\u{1b}]52"), "{text}");
        let answered = answer("5".into());
        assert_eq!(answered.model, PERSON_AS_MODEL);
        assert!(matches!(answered.content, SamplingContent::One(SamplingMessageContentBlock::Text(_))));
    }
}
