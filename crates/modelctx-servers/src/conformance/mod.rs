//! The fixtures of the MCP conformance suite (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12): the tools, resources, templates, prompts and completions its server
//! scenarios call by name, for the 2025-11-25 and 2026-07-28 revisions. `docs/conformance.md`
//! maps every scenario to its fixture, or says why there is none.
//!
//! Every fixture answers in both eras. Where a scenario exists for one revision only, the other
//! era still gets the natural answer: a question to the client is a live request on a legacy
//! session and an `InputRequiredResult` for a modern request; a log message needs
//! `logging/setLevel` (legacy) or `_meta` `logLevel` (modern).

mod content;
mod input;
mod mrtr;
mod prompts;
mod resources;
mod skills;
mod tasks;
mod triggers;

use base64::Engine;
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::{
    AudioContent, AudioType, ContentBlock, ElicitAction, ElicitValue, ImageContent, ImageType, Role,
    SamplingContent, SamplingMessage, SamplingMessageContentBlock,
};
use modelctx::protocol::v2026::{CreateMessageRequestParams, CreateMessageResult, ElicitResult};
use modelctx::server::ServerBuilder;

/// The logger name of the fixtures' log messages.
const LOGGER: &str = "conformance";

/// Adds every conformance fixture to `builder`, with the state they share.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    let builder = content::register(builder);
    let builder = input::register(builder);
    let builder = mrtr::register(builder);
    let builder = resources::register(builder);
    let builder = prompts::register(builder);
    let builder = tasks::register(builder);
    let builder = skills::register(builder);
    triggers::register(builder)
}

/// A 1×1 red PNG.
const RED_PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00,
    0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01,
    0x01, 0x00, 0xf7, 0x03, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60,
    0x82,
];

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The red pixel as image content.
fn image_block() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        kind: ImageType,
        data: base64(RED_PIXEL_PNG),
        mime_type: "image/png".into(),
        annotations: None,
        meta: None,
    })
}

/// Ten milliseconds of silence as audio content (`audio/wav`).
fn audio_block() -> ContentBlock {
    ContentBlock::Audio(AudioContent {
        kind: AudioType,
        data: base64(&silent_wav()),
        mime_type: "audio/wav".into(),
        annotations: None,
        meta: None,
    })
}

/// A WAV file of 80 silent samples: 8 kHz, mono, 8-bit PCM (where silence is 0x80).
fn silent_wav() -> Vec<u8> {
    const RATE: u32 = 8_000;
    const SAMPLES: u32 = 80;
    let mut wav = Vec::with_capacity(44 + SAMPLES as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + SAMPLES).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // size of the fmt chunk
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // one channel
    wav.extend_from_slice(&RATE.to_le_bytes()); // samples per second
    wav.extend_from_slice(&RATE.to_le_bytes()); // bytes per second: one byte per sample
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&SAMPLES.to_le_bytes());
    wav.resize(44 + SAMPLES as usize, 0x80);
    wav
}

/// A sampling request of one user message.
fn sampling_request(prompt: &str, max_tokens: u64) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::text(Role::User, prompt)], max_tokens)
}

/// The text the client's model answered (its text blocks, joined).
fn sampled_text(result: &CreateMessageResult) -> String {
    let text = |block: &SamplingMessageContentBlock| match block {
        SamplingMessageContentBlock::Text(text) => Some(text.text.clone()),
        _ => None,
    };
    match &result.content {
        SamplingContent::One(block) => text(block).unwrap_or_default(),
        SamplingContent::Many(blocks) => blocks.iter().filter_map(text).collect::<Vec<_>>().join(" "),
    }
}

/// A form-mode elicitation. `schema` is the fixture's `requestedSchema` as the suite documents
/// it; every fixture's schema is exercised by the tests, so the `expect` cannot fire in use.
fn form(message: &str, schema: serde_json::Value) -> ElicitRequest {
    let requested_schema =
        serde_json::from_value(schema).expect("a fixture's form schema is a valid requestedSchema");
    ElicitRequest::Form { message: message.to_owned(), requested_schema }
}

/// `accept`, `decline` or `cancel`.
fn action_name(action: ElicitAction) -> &'static str {
    match action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
    }
}

/// `action=…, content={…}`, the way the suite's fixtures report an elicitation.
fn describe_elicitation(result: &ElicitResult) -> String {
    let content = serde_json::to_string(&result.content.clone().unwrap_or_default())
        .unwrap_or_else(|_| "{}".to_owned());
    format!("action={}, content={content}", action_name(result.action))
}

/// The text the user entered in the form field `field`, if they accepted.
fn form_text(result: &ElicitResult, field: &str) -> Option<String> {
    match result.content.as_ref()?.get(field)? {
        ElicitValue::String(text) if result.action == ElicitAction::Accept => Some(text.clone()),
        _ => None,
    }
}
