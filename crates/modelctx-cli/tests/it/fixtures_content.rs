//! The fixtures' tool results: text, image, audio, embedded and mixed content, tool errors,
//! logging and progress (tools-call-*, and server-stateless's logging check), over stdio in
//! both eras where the scenario has both. `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{
    Client, Era, PNG_SIGNATURE, first_text, in_both_eras, media, uri_and_mime_type,
};
use serde_json::{Value, json};

#[test]
fn tools_call_simple_text() {
    in_both_eras(|client, era| {
        // The suite omits `arguments`: none are required.
        let result = client.result("tools/call", json!({"name": "test_simple_text"}));
        assert_eq!(
            result["content"],
            json!([{"type": "text", "text": "This is a simple text response for testing."}]),
            "{era:?}"
        );
    });
}

#[test]
fn tools_call_image() {
    in_both_eras(|client, era| {
        let result = client.call_tool("test_image_content", json!({}));
        let png = media(&result["content"][0], "image", "image/png", era);
        assert!(png.starts_with(PNG_SIGNATURE), "{era:?}: a PNG");
    });
}

#[test]
fn tools_call_audio() {
    in_both_eras(|client, era| {
        let result = client.call_tool("test_audio_content", json!({}));
        let wav = media(&result["content"][0], "audio", "audio/wav", era);
        assert!(wav.starts_with(b"RIFF") && &wav[8..16] == b"WAVEfmt ", "{era:?}: a WAV file");
        assert_eq!(
            wav.len(),
            44 + u32::from_le_bytes(wav[40..44].try_into().unwrap()) as usize,
            "{era:?}: complete"
        );
    });
}

#[test]
fn tools_call_embedded_resource() {
    in_both_eras(|client, era| {
        let result = client.call_tool("test_embedded_resource", json!({}));
        assert_eq!(
            result["content"][0],
            json!({"type": "resource", "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }}),
            "{era:?}"
        );
    });
}

#[test]
fn tools_call_mixed_content() {
    in_both_eras(|client, era| {
        let result = client.call_tool("test_multiple_content_types", json!({}));
        let kinds: Vec<&str> =
            result["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["text", "image", "resource"], "{era:?}");
        assert_eq!(result["content"][0]["text"], "Multiple content types test:");
        let resource = &result["content"][2]["resource"];
        assert_eq!(
            uri_and_mime_type(resource),
            (Some("test://mixed-content-resource"), Some("application/json"))
        );
        let data: Value = serde_json::from_str(resource["text"].as_str().unwrap()).unwrap();
        assert_eq!(data, json!({"test": "data", "value": 123}));
    });
}

#[test]
fn tools_call_error() {
    in_both_eras(|client, era| {
        let result = client.call_tool("test_error_handling", json!({}));
        assert_eq!(result["isError"], true, "{era:?}: a tool error, not a protocol error");
        assert_eq!(first_text(&result), "This tool intentionally returns an error for testing");
    });
}

// ---------------------------------------------------------------------------------------------
// Logging: tools-call-with-logging, logging-set-level, server-stateless

const LOG_MESSAGES: [&str; 3] =
    ["Tool execution started", "Tool processing data", "Tool execution completed"];

/// The `_meta` of a modern request asking for logs from `level` up.
fn log_level(level: &str) -> Value {
    json!({"io.modelcontextprotocol/logLevel": level})
}

#[test]
fn tools_call_with_logging_in_a_session() {
    let mut client = Client::start(Era::Legacy);
    assert_eq!(client.result("logging/setLevel", json!({"level": "debug"})), json!({}), "logging-set-level");
    let call = client.call("test_tool_with_logging");
    assert_eq!(first_text(call.result()), "Tool with logging executed successfully");
    let logs = call.notifications_of("notifications/message");
    let data: Vec<Value> = logs.iter().map(|n| n["params"]["data"].clone()).collect();
    assert_eq!(data, LOG_MESSAGES.map(Value::from), "three logs, in order, before the result");
    assert!(logs.iter().all(|n| n["params"]["level"] == "info"));
}

#[test]
fn tools_call_with_logging_follows_the_modern_log_level() {
    let mut client = Client::start(Era::Modern);
    let call = client.call_with_meta("test_tool_with_logging", log_level("debug"));
    assert_eq!(call.notifications_of("notifications/message").len(), 3);
    let quiet = client.call("test_tool_with_logging");
    assert!(quiet.notifications_of("notifications/message").is_empty(), "LOG-02: no logLevel, no logs");
    assert_eq!(first_text(quiet.result()), "Tool with logging executed successfully");
}

#[test]
fn logging_tool_logs_only_when_asked() {
    let mut client = Client::declaring(Era::Modern, json!({}));
    let quiet = client.call("test_logging_tool");
    assert_eq!(first_text(quiet.result()), "Logging evaluated");
    assert!(
        quiet.notifications_of("notifications/message").is_empty(),
        "sep-2575-server-no-log-without-loglevel"
    );
    let logged = client.call_with_meta("test_logging_tool", log_level("info"));
    assert_eq!(logged.notifications_of("notifications/message").len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Progress: tools-call-with-progress

#[test]
fn tools_call_with_progress() {
    in_both_eras(|client, era| {
        let call =
            client.call_with_meta("test_tool_with_progress", json!({"progressToken": "progress-test-1"}));
        call.result();
        let progress: Vec<(f64, f64)> = call
            .notifications_of("notifications/progress")
            .iter()
            .map(|n| {
                assert_eq!(n["params"]["progressToken"], "progress-test-1", "{era:?}: the request's token");
                (n["params"]["progress"].as_f64().unwrap(), n["params"]["total"].as_f64().unwrap())
            })
            .collect();
        assert_eq!(progress, [(0.0, 100.0), (50.0, 100.0), (100.0, 100.0)], "{era:?}");
    });
}
