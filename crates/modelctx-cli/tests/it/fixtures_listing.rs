//! What the fixtures' lists say: every fixture tool listed and well-formed (tools-list), schemas
//! that keep their JSON Schema 2020-12 keywords (json-schema-2020-12) and `x-mcp-header`
//! annotations (http-custom-header-server-validation), and caching hints on cacheable results
//! (caching). `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{Client, Era, first_text, in_both_eras, listed, names};
use serde_json::{Value, json};

const FIXTURE_TOOLS: [&str; 31] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
    "test_custom_header",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_trigger_resource_update",
    // modelctx's own tools stay next to the fixtures.
    "echo",
    "add",
    "long_running_operation",
];

#[test]
fn tools_list_describes_every_fixture() {
    in_both_eras(|client, era| {
        let list = client.result("tools/list", Value::Null);
        let tools = names(&list, "tools");
        for fixture in FIXTURE_TOOLS {
            assert!(tools.iter().any(|t| t == fixture), "{era:?}: {fixture} missing from {tools:?}");
        }
        for tool in list["tools"].as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            assert!(
                (1..=128).contains(&name.len())
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)),
                "tools-name-format: {name}"
            );
            assert!(
                tool["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{era:?}: {name} has no description"
            );
            assert_eq!(tool["inputSchema"]["type"], "object", "{era:?}: {name}");
        }
        if era == Era::Modern {
            let again = client.result("tools/list", Value::Null);
            assert_eq!(names(&again, "tools"), tools, "tools-list-deterministic-order");
        }
    });
}

#[test]
fn json_schema_2020_12_keywords_survive_tools_list() {
    in_both_eras(|client, era| {
        let tools = client.result("tools/list", Value::Null);
        let schema = &listed(&tools, "tools", "name", "json_schema_2020_12_tool")["inputSchema"];
        assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "{era:?}");
        assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
        assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
        assert_eq!(schema["additionalProperties"], false);
        assert!(schema["allOf"][0]["anyOf"].is_array(), "composition keywords");
        assert!(
            schema["if"].is_object() && schema["then"].is_object() && schema["else"].is_object(),
            "conditional keywords"
        );

        let called = client.call_tool(
            "json_schema_2020_12_tool",
            json!({"contactMethod": "email", "email": "a@example.com"}),
        );
        assert!(first_text(&called).starts_with("JSON Schema 2020-12 tool called with: "), "{called}");
        let invalid = client.call_tool(
            "json_schema_2020_12_tool",
            json!({"contactMethod": "phone", "email": "a@example.com"}),
        );
        assert_eq!(invalid["isError"], true, "{era:?}: if/then requires a phone: {invalid}");
    });
}

#[test]
fn custom_header_parameter_is_annotated() {
    in_both_eras(|client, era| {
        let tools = client.result("tools/list", Value::Null);
        let region =
            &listed(&tools, "tools", "name", "test_custom_header")["inputSchema"]["properties"]["region"];
        assert_eq!(
            (region["type"].as_str(), region["x-mcp-header"].as_str()),
            (Some("string"), Some("Region")),
            "{era:?}"
        );
        let called = client.call_tool("test_custom_header", json!({"region": "eu-west"}));
        assert_eq!(first_text(&called), "Routed to region eu-west");
    });
}

#[test]
fn caching_hints_on_cacheable_results() {
    let mut client = Client::start(Era::Modern);
    for (method, params) in [
        ("tools/list", Value::Null),
        ("prompts/list", Value::Null),
        ("resources/list", Value::Null),
        ("resources/templates/list", Value::Null),
        ("resources/read", json!({"uri": "test://static-text"})),
    ] {
        let result = client.result(method, params);
        assert!(result["ttlMs"].as_u64().is_some(), "{method}: ttlMs is a non-negative integer: {result}");
        assert!(
            ["public", "private"].contains(&result["cacheScope"].as_str().unwrap_or_default()),
            "{method}"
        );
    }
}
