//! The fixture tools that ask the client — tools-call-sampling, tools-call-elicitation,
//! elicitation-sep1034-defaults, elicitation-sep1330-enums (2025-11-25 scenarios; the fixtures
//! answer modern requests too, as `InputRequiredResult`) — and what happens when the client
//! has not declared the capability asked for (server-stateless's -32021).
//! `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{Client, Era, call_tool_params, in_both_eras, mock_answer};
use serde_json::{Value, json};

#[test]
fn tools_call_sampling() {
    in_both_eras(|client, era| {
        let prompt = "Test prompt for sampling";
        let asked = client.asking(
            "tools/call",
            json!({"name": "test_sampling", "arguments": {"prompt": prompt}}),
            mock_answer,
        );
        assert_eq!(asked.questions.len(), 1, "{era:?}");
        let question = &asked.questions[0];
        assert_eq!(question["method"], "sampling/createMessage");
        assert_eq!(
            question["params"]["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": prompt}}])
        );
        assert_eq!(question["params"]["maxTokens"], 100);
        assert_eq!(asked.text(), "LLM response: This is a test response from the client", "{era:?}");
    });
}

#[test]
fn tools_call_elicitation() {
    in_both_eras(|client, era| {
        let params =
            json!({"name": "test_elicitation", "arguments": {"message": "Please provide your information"}});
        let asked = client.asking("tools/call", params, |method, _| {
            assert_eq!(method, "elicitation/create");
            json!({"action": "accept", "content": {"username": "testuser", "email": "test@example.com"}})
        });
        let question = &asked.questions[0]["params"];
        assert_eq!(question["message"], "Please provide your information", "{era:?}");
        let schema = &question["requestedSchema"];
        assert_eq!(
            (
                schema["properties"]["username"]["type"].as_str(),
                schema["properties"]["email"]["type"].as_str()
            ),
            (Some("string"), Some("string"))
        );
        assert_eq!(schema["required"], json!(["username", "email"]));
        assert_eq!(
            asked.text(),
            r#"User response: action=accept, content={"email":"test@example.com","username":"testuser"}"#,
            "{era:?}"
        );
    });
}

#[test]
fn elicitation_sep1034_defaults() {
    in_both_eras(|client, era| {
        let params = call_tool_params("test_elicitation_sep1034_defaults");
        let asked = client.asking("tools/call", params, |_, _| {
            json!({"action": "accept", "content": {"name": "Jane Smith", "age": 25, "score": 88.0, "status": "inactive", "verified": false}})
        });
        let fields = &asked.questions[0]["params"]["requestedSchema"]["properties"];
        assert_eq!(
            (fields["name"]["type"].as_str(), fields["name"]["default"].as_str()),
            (Some("string"), Some("John Doe")),
            "{era:?}"
        );
        assert_eq!(
            (fields["age"]["type"].as_str(), fields["age"]["default"].as_f64()),
            (Some("integer"), Some(30.0))
        );
        assert_eq!(
            (fields["score"]["type"].as_str(), fields["score"]["default"].as_f64()),
            (Some("number"), Some(95.5))
        );
        assert_eq!(fields["status"]["type"], "string");
        assert_eq!(fields["status"]["default"], "active");
        assert!(
            fields["status"]["enum"].as_array().unwrap().contains(&json!("active")),
            "the default is a member"
        );
        assert_eq!(
            (fields["verified"]["type"].as_str(), fields["verified"]["default"].as_bool()),
            (Some("boolean"), Some(true))
        );
        assert!(
            asked.text().starts_with("Elicitation completed: action=accept, content={"),
            "{}",
            asked.text()
        );
        assert!(asked.text().contains("Jane Smith"));
    });
}

/// Whether `options` is a non-empty list of `{const, title}` choices (SEP-1330's titled enums).
fn titled(options: &Value) -> bool {
    options
        .as_array()
        .is_some_and(|o| !o.is_empty() && o.iter().all(|o| o["const"].is_string() && o["title"].is_string()))
}

#[test]
fn elicitation_sep1330_enums() {
    in_both_eras(|client, era| {
        let params = call_tool_params("test_elicitation_sep1330_enums");
        let asked = client.asking("tools/call", params, |_, _| {
            json!({"action": "accept", "content": {
                "untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
                "untitledMulti": ["option1", "option2"], "titledMulti": ["value1", "value2"]
            }})
        });
        let fields = &asked.questions[0]["params"]["requestedSchema"]["properties"];

        let untitled_single = &fields["untitledSingle"];
        assert_eq!(untitled_single["type"], "string", "{era:?}");
        assert!(
            untitled_single["enum"].is_array()
                && untitled_single.get("oneOf").is_none()
                && untitled_single.get("enumNames").is_none()
        );
        let titled_single = &fields["titledSingle"];
        assert!(
            titled_single["type"] == "string"
                && titled(&titled_single["oneOf"])
                && titled_single.get("enum").is_none()
        );
        let legacy = &fields["legacyEnum"];
        assert_eq!(legacy["type"], "string");
        assert_eq!(legacy["enum"].as_array().unwrap().len(), legacy["enumNames"].as_array().unwrap().len());
        let untitled_multi = &fields["untitledMulti"];
        assert!(untitled_multi["type"] == "array" && untitled_multi["items"]["type"] == "string");
        assert!(untitled_multi["items"]["enum"].is_array() && untitled_multi["items"].get("anyOf").is_none());
        let titled_multi = &fields["titledMulti"];
        assert!(
            titled_multi["type"] == "array"
                && titled(&titled_multi["items"]["anyOf"])
                && titled_multi["items"].get("enum").is_none()
        );
        assert!(asked.text().starts_with("Elicitation completed: action=accept"), "{}", asked.text());
    });
}

// ---------------------------------------------------------------------------------------------
// An undeclared capability: a tool error in a session, -32021 for a modern request

#[test]
fn tools_call_sampling_without_the_capability_is_an_error() {
    let mut legacy = Client::declaring(Era::Legacy, json!({}));
    let result = legacy.call_tool("test_sampling", json!({"prompt": "hi"}));
    assert_eq!(result["isError"], true, "a tool error, and no request to the client: {result}");
    let mut modern = Client::declaring(Era::Modern, json!({}));
    let error = modern.error("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    assert_eq!(error["code"], -32021);
    assert_eq!(error["data"]["requiredCapabilities"], json!({"sampling": {}}));
}

#[test]
fn missing_capability_is_refused_with_32021() {
    let mut client = Client::declaring(Era::Modern, json!({}));
    let error = client.error("tools/call", call_tool_params("test_missing_capability"));
    assert_eq!(error["code"], -32021);
    assert!(
        error["data"]["requiredCapabilities"]["sampling"].is_object(),
        "a ClientCapabilities object: {error}"
    );
    let mut sampling = Client::declaring(Era::Modern, json!({"sampling": {}}));
    let asked = sampling.asking("tools/call", call_tool_params("test_missing_capability"), mock_answer);
    assert!(asked.text().starts_with("Success"), "{}", asked.text());
}
