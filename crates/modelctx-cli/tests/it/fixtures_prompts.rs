//! The fixtures' prompts and completion: every prompt listed with its arguments (prompts-list),
//! each one got (prompts-get-*), and completions for a prompt argument and a template
//! variable (completion-complete), in both eras. `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{PNG_SIGNATURE, in_both_eras, listed, media};
use serde_json::{Value, json};

const FIXTURE_PROMPTS: [&str; 5] = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
];

#[test]
fn prompts_list_describes_every_fixture() {
    in_both_eras(|client, era| {
        let prompts = client.result("prompts/list", Value::Null);
        for name in FIXTURE_PROMPTS {
            let prompt = listed(&prompts, "prompts", "name", name);
            assert!(prompt["description"].as_str().is_some_and(|d| !d.is_empty()), "{era:?}: {prompt}");
        }
        let with_arguments = listed(&prompts, "prompts", "name", "test_prompt_with_arguments");
        let required: Vec<(&str, bool)> = with_arguments["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["name"].as_str().unwrap(), a["required"] == true))
            .collect();
        assert_eq!(required, [("arg1", true), ("arg2", true)], "{era:?}");
    });
}

#[test]
fn prompts_get_each_fixture() {
    in_both_eras(|client, era| {
        let simple = client.result("prompts/get", json!({"name": "test_simple_prompt"}));
        assert_eq!(
            simple["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}]),
            "{era:?}"
        );

        let arguments = json!({"arg1": "testValue1", "arg2": "testValue2"});
        let with_args = client
            .result("prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": arguments}));
        assert_eq!(
            with_args["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
        );
        let missing = client
            .error("prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "x"}}));
        assert_eq!(missing["code"], -32602, "{era:?}: arg2 is required");

        let embedded = client.result(
            "prompts/get",
            json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}}),
        );
        assert_eq!(
            embedded["messages"][0]["content"],
            json!({"type": "resource", "resource": {
                "uri": "test://example-resource", "mimeType": "text/plain", "text": "Embedded resource content for testing."
            }})
        );
        assert_eq!(embedded["messages"][1]["content"]["text"], "Please process the embedded resource above.");

        let image = client.result("prompts/get", json!({"name": "test_prompt_with_image"}));
        let png = media(&image["messages"][0]["content"], "image", "image/png", era);
        assert!(png.starts_with(PNG_SIGNATURE));
        assert_eq!(image["messages"][1]["content"]["text"], "Please analyze the image above.");
    });
}

#[test]
fn completion_complete() {
    in_both_eras(|client, era| {
        let prompt = client.result(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "test"}
            }),
        );
        assert_eq!(prompt["completion"]["values"], json!(["test", "testValue1", "testValue2"]), "{era:?}");
        let template = client.result(
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                "argument": {"name": "id", "value": "12"}
            }),
        );
        assert_eq!(template["completion"]["values"], json!(["123"]), "{era:?}");
    });
}
