//! The conformance suite's fixtures in `modelctx serve everything`, checked the way the server
//! scenarios of `@modelcontextprotocol/conformance` 0.2.0-alpha.12 check them — over stdio,
//! since the suite itself speaks only Streamable HTTP. Scenarios that exist for both
//! revisions run in both eras: a 2025-11-25 session and 2026-07-28 requests.
//! `docs/conformance.md` maps each scenario to its fixture and to the tests here.

mod support;

use base64::Engine;
use serde_json::{Value, json};
use support::{Exchange, Server, modern_as};

/// The client capabilities the suite's client declares.
fn client_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Era {
    Legacy,
    Modern,
}

const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];

/// A server and the way to phrase requests for one era.
struct Client {
    server: Server,
    era: Era,
    capabilities: Value,
    next_id: i64,
}

impl Client {
    fn start(era: Era) -> Self {
        Self::declaring(era, client_capabilities())
    }

    fn declaring(era: Era, capabilities: Value) -> Self {
        let mut server = Server::start();
        if era == Era::Legacy {
            let init = server.initialize(capabilities.clone());
            assert_eq!(init["protocolVersion"], "2025-11-25");
        }
        Self { server, era, capabilities, next_id: 0 }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn params(&self, params: Value) -> Value {
        match self.era {
            Era::Legacy => params,
            Era::Modern => modern_as(params, self.capabilities.clone()),
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Exchange {
        let (id, params) = (self.id(), self.params(params));
        self.server.request(id, method, params)
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let exchange = self.request(method, params);
        let result = exchange.result().clone();
        match self.era {
            Era::Legacy => assert!(result.get("resultType").is_none(), "{result}"),
            Era::Modern => assert!(result["resultType"] == "complete", "{result}"),
        }
        result
    }

    fn error(&mut self, method: &str, params: Value) -> Value {
        let exchange = self.request(method, params);
        exchange.response.get("error").cloned().unwrap_or_else(|| panic!("expected an error: {exchange:?}"))
    }

    fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// Runs a request that asks the client, answering every question with
    /// `answer(method, params)`: live requests in a legacy session, `inputResponses` on
    /// modern retries (at most five rounds).
    fn asking(&mut self, method: &str, params: Value, answer: impl Fn(&str, &Value) -> Value) -> Asked {
        let mut questions = Vec::new();
        if self.era == Era::Legacy {
            let (id, params) = (self.id(), self.params(params));
            let exchange = self.server.exchange(id, method, params, |request| {
                answer(request["method"].as_str().unwrap_or_default(), &request["params"])
            });
            for request in &exchange.requests {
                questions.push(json!({"method": request["method"], "params": request["params"]}));
            }
            return Asked { questions, keys: Vec::new(), result: exchange.result().clone(), rounds: 1 };
        }
        let (mut responses, mut state, mut keys) = (None::<Value>, None::<Value>, Vec::new());
        for round in 1..=5 {
            let mut retry = params.clone();
            if let Some(responses) = responses.take() {
                retry["inputResponses"] = responses;
            }
            if let Some(state) = state.take() {
                retry["requestState"] = state;
            }
            let result = self.request(method, retry).result().clone();
            if result["resultType"] != "input_required" {
                assert_eq!(result["resultType"], "complete", "{result}");
                return Asked { questions, keys, result, rounds: round };
            }
            let mut answers = serde_json::Map::new();
            for (key, question) in result["inputRequests"].as_object().expect("inputRequests") {
                let method = question["method"].as_str().expect("a method");
                let empty = json!({});
                answers.insert(key.clone(), answer(method, question.get("params").unwrap_or(&empty)));
                questions.push(question.clone());
            }
            let mut round_keys: Vec<String> = answers.keys().cloned().collect();
            round_keys.sort_unstable();
            keys.push(round_keys);
            responses = Some(Value::Object(answers));
            state = result.get("requestState").cloned();
        }
        panic!("{method} did not complete within five rounds");
    }
}

/// A request that asked the client, run to completion.
struct Asked {
    /// Every question, as `{method, params}`, in order.
    questions: Vec<Value>,
    /// The `inputRequests` keys of each modern round, sorted (none in a legacy session).
    keys: Vec<Vec<String>>,
    /// The final result.
    result: Value,
    /// How many requests it took (always 1 in a legacy session).
    rounds: usize,
}

impl Asked {
    fn text(&self) -> &str {
        first_text(&self.result)
    }
}

/// The answers the suite's mock client gives (`mockElicitResponse`, `mockSamplingResponse`,
/// `mockListRootsResponse`); a form is filled from its field names.
fn mock_answer(method: &str, params: &Value) -> Value {
    match method {
        "elicitation/create" => {
            let mut content = serde_json::Map::new();
            for (field, schema) in params["requestedSchema"]["properties"].as_object().expect("a form") {
                let value = match (field.as_str(), schema["type"].as_str()) {
                    (_, Some("boolean")) => json!(true),
                    ("name", _) => json!("Alice"),
                    ("color", _) => json!("blue"),
                    ("context", _) => json!("test context"),
                    _ => json!("a value"),
                };
                content.insert(field.clone(), value);
            }
            json!({"action": "accept", "content": content})
        }
        "sampling/createMessage" => json!({
            "role": "assistant",
            "content": {"type": "text", "text": "This is a test response from the client"},
            "model": "test-model",
            "stopReason": "endTurn"
        }),
        "roots/list" => json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}),
        other => panic!("the server asked the client something unexpected: {other}"),
    }
}

fn first_text(result: &Value) -> &str {
    result["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "text"))
        .and_then(|b| b["text"].as_str())
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

fn decode(data: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data.as_str().expect("base64 text"))
        .expect("valid base64")
}

fn names(list: &Value, member: &str) -> Vec<String> {
    list[member]
        .as_array()
        .expect(member)
        .iter()
        .map(|item| item["name"].as_str().expect("a name").to_owned())
        .collect()
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

// ---------------------------------------------------------------------------------------------
// Tools: tools-list, tools-call-*, json-schema-2020-12, http-custom-header-server-validation

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
    for era in ERAS {
        let mut client = Client::start(era);
        let listed = client.result("tools/list", Value::Null);
        let tools = names(&listed, "tools");
        for fixture in FIXTURE_TOOLS {
            assert!(tools.iter().any(|t| t == fixture), "{era:?}: {fixture} missing from {tools:?}");
        }
        for tool in listed["tools"].as_array().unwrap() {
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
    }
}

#[test]
fn tools_call_simple_text() {
    for era in ERAS {
        let mut client = Client::start(era);
        // The suite omits `arguments`: none are required.
        let result = client.result("tools/call", json!({"name": "test_simple_text"}));
        assert_eq!(
            result["content"],
            json!([{"type": "text", "text": "This is a simple text response for testing."}]),
            "{era:?}"
        );
    }
}

#[test]
fn tools_call_image() {
    for era in ERAS {
        let mut client = Client::start(era);
        let result = client.call_tool("test_image_content", json!({}));
        let image = &result["content"][0];
        assert_eq!(
            (image["type"].as_str(), image["mimeType"].as_str()),
            (Some("image"), Some("image/png")),
            "{era:?}"
        );
        assert!(decode(&image["data"]).starts_with(PNG_SIGNATURE), "{era:?}: a PNG");
    }
}

#[test]
fn tools_call_audio() {
    for era in ERAS {
        let mut client = Client::start(era);
        let result = client.call_tool("test_audio_content", json!({}));
        let audio = &result["content"][0];
        assert_eq!(
            (audio["type"].as_str(), audio["mimeType"].as_str()),
            (Some("audio"), Some("audio/wav")),
            "{era:?}"
        );
        let wav = decode(&audio["data"]);
        assert!(wav.starts_with(b"RIFF") && &wav[8..16] == b"WAVEfmt ", "{era:?}: a WAV file");
        assert_eq!(
            wav.len(),
            44 + u32::from_le_bytes(wav[40..44].try_into().unwrap()) as usize,
            "{era:?}: complete"
        );
    }
}

#[test]
fn tools_call_embedded_resource() {
    for era in ERAS {
        let mut client = Client::start(era);
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
    }
}

#[test]
fn tools_call_mixed_content() {
    for era in ERAS {
        let mut client = Client::start(era);
        let result = client.call_tool("test_multiple_content_types", json!({}));
        let kinds: Vec<&str> =
            result["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["text", "image", "resource"], "{era:?}");
        assert_eq!(result["content"][0]["text"], "Multiple content types test:");
        let resource = &result["content"][2]["resource"];
        assert_eq!(
            (resource["uri"].as_str(), resource["mimeType"].as_str()),
            (Some("test://mixed-content-resource"), Some("application/json"))
        );
        let data: Value = serde_json::from_str(resource["text"].as_str().unwrap()).unwrap();
        assert_eq!(data, json!({"test": "data", "value": 123}));
    }
}

const LOG_MESSAGES: [&str; 3] =
    ["Tool execution started", "Tool processing data", "Tool execution completed"];

#[test]
fn tools_call_with_logging_in_a_session() {
    let mut client = Client::start(Era::Legacy);
    assert_eq!(client.result("logging/setLevel", json!({"level": "debug"})), json!({}), "logging-set-level");
    let call = client.request("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    assert_eq!(first_text(call.result()), "Tool with logging executed successfully");
    let logs = call.notifications_of("notifications/message");
    let data: Vec<Value> = logs.iter().map(|n| n["params"]["data"].clone()).collect();
    assert_eq!(data, LOG_MESSAGES.map(Value::from), "three logs, in order, before the result");
    assert!(logs.iter().all(|n| n["params"]["level"] == "info"));
}

#[test]
fn tools_call_with_logging_follows_the_modern_log_level() {
    let mut client = Client::start(Era::Modern);
    let params = json!({"name": "test_tool_with_logging", "arguments": {}, "_meta": {"io.modelcontextprotocol/logLevel": "debug"}});
    let call = client.request("tools/call", params);
    assert_eq!(call.notifications_of("notifications/message").len(), 3);
    let quiet = client.request("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}}));
    assert!(quiet.notifications_of("notifications/message").is_empty(), "LOG-02: no logLevel, no logs");
    assert_eq!(first_text(quiet.result()), "Tool with logging executed successfully");
}

#[test]
fn tools_call_with_progress() {
    for era in ERAS {
        let mut client = Client::start(era);
        let params = json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "progress-test-1"}});
        let call = client.request("tools/call", params);
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
    }
}

#[test]
fn tools_call_error() {
    for era in ERAS {
        let mut client = Client::start(era);
        let result = client.call_tool("test_error_handling", json!({}));
        assert_eq!(result["isError"], true, "{era:?}: a tool error, not a protocol error");
        assert_eq!(first_text(&result), "This tool intentionally returns an error for testing");
    }
}

#[test]
fn json_schema_2020_12_keywords_survive_tools_list() {
    for era in ERAS {
        let mut client = Client::start(era);
        let listed = client.result("tools/list", Value::Null);
        let tool = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "json_schema_2020_12_tool")
            .expect("listed");
        let schema = &tool["inputSchema"];
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
    }
}

#[test]
fn custom_header_parameter_is_annotated() {
    for era in ERAS {
        let mut client = Client::start(era);
        let listed = client.result("tools/list", Value::Null);
        let tool = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "test_custom_header")
            .expect("listed");
        let region = &tool["inputSchema"]["properties"]["region"];
        assert_eq!(
            (region["type"].as_str(), region["x-mcp-header"].as_str()),
            (Some("string"), Some("Region")),
            "{era:?}"
        );
        let called = client.call_tool("test_custom_header", json!({"region": "eu-west"}));
        assert_eq!(first_text(&called), "Routed to region eu-west");
    }
}

// ---------------------------------------------------------------------------------------------
// Asking the client: tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults,
// elicitation-sep1330-enums (2025-11-25 scenarios; the fixtures answer modern requests too)

#[test]
fn tools_call_sampling() {
    for era in ERAS {
        let mut client = Client::start(era);
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
    }
}

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
fn tools_call_elicitation() {
    for era in ERAS {
        let mut client = Client::start(era);
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
    }
}

#[test]
fn elicitation_sep1034_defaults() {
    for era in ERAS {
        let mut client = Client::start(era);
        let params = json!({"name": "test_elicitation_sep1034_defaults", "arguments": {}});
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
    }
}

#[test]
fn elicitation_sep1330_enums() {
    for era in ERAS {
        let mut client = Client::start(era);
        let params = json!({"name": "test_elicitation_sep1330_enums", "arguments": {}});
        let asked = client.asking("tools/call", params, |_, _| {
            json!({"action": "accept", "content": {
                "untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
                "untitledMulti": ["option1", "option2"], "titledMulti": ["value1", "value2"]
            }})
        });
        let fields = &asked.questions[0]["params"]["requestedSchema"]["properties"];
        let titled = |options: &Value| {
            options.as_array().is_some_and(|o| {
                !o.is_empty() && o.iter().all(|o| o["const"].is_string() && o["title"].is_string())
            })
        };

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
    }
}

// ---------------------------------------------------------------------------------------------
// Resources: resources-list, resources-read-*, resources-templates-read,
// sep-2164-resource-not-found, resources-subscribe, resources-unsubscribe, caching

#[test]
fn resources_list_and_templates() {
    for era in ERAS {
        let mut client = Client::start(era);
        let listed = client.result("resources/list", Value::Null);
        let resources = listed["resources"].as_array().unwrap();
        for uri in ["test://static-text", "test://static-binary", "test://watched-resource"] {
            let resource = resources
                .iter()
                .find(|r| r["uri"] == uri)
                .unwrap_or_else(|| panic!("{era:?}: {uri} not listed"));
            assert!(
                resource["name"].as_str().is_some_and(|n| !n.is_empty())
                    && resource["description"].is_string(),
                "{resource}"
            );
        }
        let templates = client.result("resources/templates/list", Value::Null);
        let template = templates["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["uriTemplate"] == "test://template/{id}/data");
        assert_eq!(template.expect("the template is listed")["mimeType"], "application/json", "{era:?}");
    }
}

#[test]
fn resources_read_text_binary_and_template() {
    for era in ERAS {
        let mut client = Client::start(era);
        let text = client.result("resources/read", json!({"uri": "test://static-text"}));
        assert_eq!(
            text["contents"],
            json!([{"uri": "test://static-text", "mimeType": "text/plain", "text": "This is the content of the static text resource."}]),
            "{era:?}"
        );

        let binary = client.result("resources/read", json!({"uri": "test://static-binary"}));
        let blob = &binary["contents"][0];
        assert_eq!(
            (blob["uri"].as_str(), blob["mimeType"].as_str()),
            (Some("test://static-binary"), Some("image/png"))
        );
        assert!(decode(&blob["blob"]).starts_with(PNG_SIGNATURE));

        let data = client.result("resources/read", json!({"uri": "test://template/123/data"}));
        let content = &data["contents"][0];
        assert_eq!(
            (content["uri"].as_str(), content["mimeType"].as_str()),
            (Some("test://template/123/data"), Some("application/json"))
        );
        let parsed: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
        assert_eq!(parsed, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}), "{era:?}");
    }
}

#[test]
fn reading_an_unknown_resource_is_an_error_naming_the_uri() {
    let uri = "test://nonexistent-resource-for-conformance-testing";
    for (era, code) in [(Era::Modern, -32602), (Era::Legacy, -32002)] {
        let mut client = Client::start(era);
        let error = client.error("resources/read", json!({"uri": uri}));
        assert_eq!(error["code"], code, "{era:?}: SEP-2164 standardises -32602 from 2026-07-28 on");
        assert_eq!(error["data"]["uri"], uri, "{era:?}");
    }
}

#[test]
fn resources_subscribe_and_unsubscribe() {
    let mut client = Client::start(Era::Legacy);
    let watched = json!({"uri": "test://watched-resource"});
    assert_eq!(
        client.result("resources/read", watched.clone())["contents"][0]["text"],
        "Watched resource content"
    );
    assert_eq!(client.result("resources/subscribe", watched.clone()), json!({}), "resources-subscribe");

    let update =
        client.request("tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    update.result();
    if update.notifications_of("notifications/resources/updated").is_empty() {
        let (updated, _) = client.server.wait_for(|m| m["method"] == "notifications/resources/updated");
        assert_eq!(updated["params"]["uri"], "test://watched-resource");
    }
    let read = client.result("resources/read", watched.clone());
    assert_eq!(read["contents"][0]["text"], "Watched resource content (revision 1)");

    assert_eq!(client.result("resources/unsubscribe", watched), json!({}), "resources-unsubscribe");
    // Two changes in a row: the resource's (now unsubscribed) and the tool list's. The server
    // forwards its changes in order, so once the tool-list notification is here, an update
    // notification would have come before it.
    let update =
        client.request("tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    let tools = client.request("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}));
    let mut seen: Vec<Value> = update.notifications.into_iter().chain(tools.notifications).collect();
    if !seen.iter().any(|m| m["method"] == "notifications/tools/list_changed") {
        let (changed, before) = client.server.wait_for(|m| m["method"] == "notifications/tools/list_changed");
        seen.extend(before);
        seen.push(changed);
    }
    assert!(
        seen.iter().all(|m| m["method"] != "notifications/resources/updated"),
        "no updates after unsubscribing: {seen:?}"
    );
}

#[test]
fn modern_listeners_hear_of_watched_resource_and_tool_list_changes() {
    let mut client = Client::start(Era::Modern);
    let listen = json!({"notifications": {"resourceSubscriptions": ["test://watched-resource"], "toolsListChanged": true}});
    let params = client.params(listen);
    client.server.send_request(100, "subscriptions/listen", params);
    let first = client.server.next();
    assert_eq!(
        first["method"], "notifications/subscriptions/acknowledged",
        "the acknowledgement comes first"
    );
    let tagged =
        |message: &Value| message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 100;
    assert!(tagged(&first));

    for (tool, expected) in [
        ("test_trigger_resource_update", "notifications/resources/updated"),
        ("test_trigger_tool_change", "notifications/tools/list_changed"),
    ] {
        let call = client.request("tools/call", json!({"name": tool, "arguments": {}}));
        call.result();
        let heard = match call.notifications_of(expected).first() {
            Some(heard) => (*heard).clone(),
            None => client.server.wait_for(|m| m["method"] == expected).0,
        };
        assert!(tagged(&heard), "{heard}");
    }
    // The dynamic tool came with the change.
    let tools = client.result("tools/list", Value::Null);
    assert!(names(&tools, "tools").contains(&"test_dynamic_tool".to_owned()));
    client.server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}"#);
}

#[test]
fn a_listener_hears_only_what_it_asked_for() {
    let mut client = Client::start(Era::Modern);
    let listen = json!({"notifications": {"promptsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}});
    let params = client.params(listen);
    client.server.send_request(100, "subscriptions/listen", params);
    assert_eq!(client.server.next()["method"], "notifications/subscriptions/acknowledged");
    // A tool-list change, then a resource change: the listener gets changes in order, so by
    // the resource update any tool-list notification would have come.
    client.request("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).result();
    let update =
        client.request("tools/call", json!({"name": "test_trigger_resource_update", "arguments": {}}));
    let mut seen = update.notifications.clone();
    if update.notifications_of("notifications/resources/updated").is_empty() {
        let (updated, before) = client.server.wait_for(|m| m["method"] == "notifications/resources/updated");
        seen.extend(before);
        seen.push(updated);
    }
    assert!(seen.iter().all(|m| m["method"] != "notifications/tools/list_changed"), "filtered out: {seen:?}");
}

/// Each list a trigger tool changes: the trigger, its notification, the list method and
/// member, and the definition it adds and removes.
const LIST_TRIGGERS: [(&str, &str, &str, &str, &str); 2] = [
    (
        "test_trigger_tool_change",
        "notifications/tools/list_changed",
        "tools/list",
        "tools",
        "test_dynamic_tool",
    ),
    (
        "test_trigger_prompt_change",
        "notifications/prompts/list_changed",
        "prompts/list",
        "prompts",
        "test_dynamic_prompt",
    ),
];

#[test]
fn legacy_sessions_hear_of_tool_and_prompt_list_changes() {
    let mut client = Client::start(Era::Legacy);
    for (trigger, notification, list, member, dynamic) in LIST_TRIGGERS {
        for (expected, listed) in [("Added", true), ("Removed", false)] {
            let call = client.request("tools/call", json!({"name": trigger, "arguments": {}}));
            assert_eq!(first_text(call.result()), format!("{expected} {dynamic}"));
            if call.notifications_of(notification).is_empty() {
                client.server.wait_for(|m| m["method"] == notification);
            }
            let names = names(&client.result(list, Value::Null), member);
            assert_eq!(names.contains(&dynamic.to_owned()), listed, "{trigger} toggles {dynamic}");
            if listed && member == "prompts" {
                let prompt = client.result("prompts/get", json!({"name": dynamic}));
                assert_eq!(prompt["messages"][0]["role"], "user");
            }
        }
    }
}

#[test]
fn modern_listeners_hear_of_prompt_list_changes() {
    // sep-2575-server-sends-prompts-list-changed-on-subscription: a server that declares
    // prompts.listChanged is asked to change its prompts through test_trigger_prompt_change.
    let mut client = Client::start(Era::Modern);
    let discover = client.result("server/discover", Value::Null);
    assert_eq!(discover["capabilities"]["prompts"]["listChanged"], true, "{discover}");
    let params = client.params(json!({"notifications": {"promptsListChanged": true}}));
    client.server.send_request(100, "subscriptions/listen", params);
    assert_eq!(client.server.next()["method"], "notifications/subscriptions/acknowledged");
    for (expected, listed) in [("Added", true), ("Removed", false)] {
        let call =
            client.request("tools/call", json!({"name": "test_trigger_prompt_change", "arguments": {}}));
        assert_eq!(first_text(call.result()), format!("{expected} test_dynamic_prompt"));
        let heard = match call.notifications_of("notifications/prompts/list_changed").first() {
            Some(heard) => (*heard).clone(),
            None => client.server.wait_for(|m| m["method"] == "notifications/prompts/list_changed").0,
        };
        assert_eq!(heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 100, "{heard}");
        let prompts = names(&client.result("prompts/list", Value::Null), "prompts");
        assert_eq!(prompts.contains(&"test_dynamic_prompt".to_owned()), listed);
        if listed {
            let prompt = client.result("prompts/get", json!({"name": "test_dynamic_prompt"}));
            assert_eq!(
                prompt["messages"][0]["content"]["text"],
                "This prompt comes and goes with test_trigger_prompt_change."
            );
        }
    }
    client.server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}"#);
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

// ---------------------------------------------------------------------------------------------
// Prompts and completion: prompts-list, prompts-get-*, completion-complete

#[test]
fn prompts_list_describes_every_fixture() {
    for era in ERAS {
        let mut client = Client::start(era);
        let listed = client.result("prompts/list", Value::Null);
        let prompts = listed["prompts"].as_array().unwrap();
        for name in [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt",
        ] {
            let prompt = prompts
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{era:?}: {name} not listed"));
            assert!(prompt["description"].as_str().is_some_and(|d| !d.is_empty()), "{prompt}");
        }
        let with_arguments = prompts.iter().find(|p| p["name"] == "test_prompt_with_arguments").unwrap();
        let required: Vec<(&str, bool)> = with_arguments["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["name"].as_str().unwrap(), a["required"] == true))
            .collect();
        assert_eq!(required, [("arg1", true), ("arg2", true)], "{era:?}");
    }
}

#[test]
fn prompts_get_each_fixture() {
    for era in ERAS {
        let mut client = Client::start(era);
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

        let embedded = client.result("prompts/get", json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}}));
        assert_eq!(
            embedded["messages"][0]["content"],
            json!({"type": "resource", "resource": {
                "uri": "test://example-resource", "mimeType": "text/plain", "text": "Embedded resource content for testing."
            }})
        );
        assert_eq!(embedded["messages"][1]["content"]["text"], "Please process the embedded resource above.");

        let image = client.result("prompts/get", json!({"name": "test_prompt_with_image"}));
        let content = &image["messages"][0]["content"];
        assert_eq!(
            (content["type"].as_str(), content["mimeType"].as_str()),
            (Some("image"), Some("image/png")),
            "{era:?}"
        );
        assert!(decode(&content["data"]).starts_with(PNG_SIGNATURE));
        assert_eq!(image["messages"][1]["content"]["text"], "Please analyze the image above.");
    }
}

#[test]
fn completion_complete() {
    for era in ERAS {
        let mut client = Client::start(era);
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
    }
}

// ---------------------------------------------------------------------------------------------
// input-required-result-* (2026-07-28, SEP-2322)

fn call_tool_params(name: &str) -> Value {
    json!({"name": name, "arguments": {}})
}

/// The first round of a modern tool call: an `InputRequiredResult`.
fn first_round(client: &mut Client, name: &str) -> Value {
    let result = client.request("tools/call", call_tool_params(name)).result().clone();
    assert_eq!(result["resultType"], "input_required", "sep-2322-result-type-included: {result}");
    assert!(result["requestState"].is_string(), "{result}");
    result
}

/// The single question of a round, as `(key, question)`.
fn only_question(result: &Value) -> (String, Value) {
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{result}");
    let (key, question) = requests.iter().next().unwrap();
    (key.clone(), question.clone())
}

/// The `inputRequests` of a round as `(key, method)`, sorted by key.
fn keyed_methods(result: &Value) -> Vec<(String, String)> {
    let mut keyed: Vec<(String, String)> = result["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .iter()
        .map(|(key, question)| (key.clone(), question["method"].as_str().expect("a method").to_owned()))
        .collect();
    keyed.sort_unstable();
    keyed
}

/// The text a completed fixture answered: a tool's first text block, or a prompt's first message.
fn answer_text(result: &Value) -> &str {
    match result["messages"][0]["content"]["text"].as_str() {
        Some(text) => text,
        None => first_text(result),
    }
}

/// A fixture that asks the client, run with the suite's mock answers.
struct AskingFixture {
    method: &'static str,
    name: &'static str,
    /// The `inputRequests` keys of each modern round, sorted: those of the suite's scenario
    /// texts, or of its reference server where the scenario names none.
    keys: &'static [&'static [&'static str]],
    /// The methods of every question, sorted.
    methods: &'static [&'static str],
    /// The text of the completed result.
    text: &'static str,
}

const ASKING_FIXTURES: [AskingFixture; 9] = [
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_elicitation",
        keys: &[&["user_name"]],
        methods: &["elicitation/create"],
        text: "Hello, Alice!",
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_sampling",
        keys: &[&["capital_question"]],
        methods: &["sampling/createMessage"],
        text: "The client's model answered: This is a test response from the client",
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_list_roots",
        keys: &[&["client_roots"]],
        methods: &["roots/list"],
        text: "The client has 1 root(s): file:///test/root (Test Root)",
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_request_state",
        keys: &[&["confirm"]],
        methods: &["elicitation/create"],
        text: r#"state-ok: action=accept, content={"ok":true}"#,
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_multiple_inputs",
        keys: &[&["client_roots", "greeting", "user_name"]],
        methods: &["elicitation/create", "roots/list", "sampling/createMessage"],
        text: r#"All inputs received: name=Alice, greeting="This is a test response from the client", roots=1"#,
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_multi_round",
        keys: &[&["step1"], &["step2"]],
        methods: &["elicitation/create", "elicitation/create"],
        text: "Multi-round complete for Alice who likes blue",
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_tampered_state",
        keys: &[&["confirm"]],
        methods: &["elicitation/create"],
        text: r#"integrity-ok: action=accept, content={"ok":true}"#,
    },
    AskingFixture {
        method: "tools/call",
        name: "test_input_required_result_capabilities",
        keys: &[&["elicit_input", "sample_input"]],
        methods: &["elicitation/create", "sampling/createMessage"],
        text: "capabilities-ok: received elicitation,sampling",
    },
    AskingFixture {
        method: "prompts/get",
        name: "test_input_required_result_prompt",
        keys: &[&["user_context"]],
        methods: &["elicitation/create"],
        text: "Answer the next question with this context in mind: test context",
    },
];

#[test]
fn asking_fixtures_use_the_suites_keys_and_complete_in_both_eras() {
    for era in ERAS {
        let mut client = Client::start(era);
        for fixture in &ASKING_FIXTURES {
            let params = match fixture.method {
                "tools/call" => call_tool_params(fixture.name),
                _ => json!({"name": fixture.name}),
            };
            let asked = client.asking(fixture.method, params, mock_answer);
            let what = format!("{era:?} {}", fixture.name);
            let mut methods: Vec<&str> =
                asked.questions.iter().map(|q| q["method"].as_str().unwrap()).collect();
            methods.sort_unstable();
            assert_eq!(methods, fixture.methods, "{what}");
            match era {
                // The keys are the modern rounds'; a legacy session asks live, in one request.
                Era::Legacy => assert!(asked.keys.is_empty() && asked.rounds == 1, "{what}"),
                Era::Modern => {
                    assert_eq!(asked.keys, fixture.keys, "{what}");
                    assert_eq!(asked.rounds, fixture.keys.len() + 1, "{what}");
                }
            }
            assert_eq!(answer_text(&asked.result), fixture.text, "{what}");
        }
    }
}

#[test]
fn input_required_result_basic_elicitation() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_elicitation");
    let (key, question) = only_question(&round);
    assert_eq!(key, "user_name", "inputRequests missing expected key \"user_name\"");
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "What is your name?");
    assert_eq!(
        question["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    );
    // Round 2 exactly as the scenario sends it.
    let mut retry = call_tool_params("test_input_required_result_elicitation");
    retry["inputResponses"] = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    retry["requestState"] = round["requestState"].clone();
    assert_eq!(first_text(&client.result("tools/call", retry)), "Hello, Alice!");
}

#[test]
fn input_required_result_basic_sampling() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_sampling");
    let (key, question) = only_question(&round);
    assert_eq!(key, "capital_question");
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(
        question["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}])
    );
    assert_eq!(question["params"]["maxTokens"], 100);
    let mut retry = call_tool_params("test_input_required_result_sampling");
    retry["inputResponses"] = json!({key: {"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."}, "model": "test-model", "stopReason": "endTurn"}});
    retry["requestState"] = round["requestState"].clone();
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        "The client's model answered: The capital of France is Paris."
    );
}

#[test]
fn input_required_result_basic_list_roots() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_list_roots");
    let (key, question) = only_question(&round);
    assert_eq!((key.as_str(), question["method"].as_str()), ("client_roots", Some("roots/list")));
    let mut retry = call_tool_params("test_input_required_result_list_roots");
    retry["inputResponses"] = json!({key: {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}});
    retry["requestState"] = round["requestState"].clone();
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        "The client has 1 root(s): file:///test/root (Test Root)"
    );
}

#[test]
fn input_required_result_request_state() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_request_state");
    let (key, question) = only_question(&round);
    assert_eq!(key, "confirm");
    assert_eq!(question["params"]["message"], "Please confirm");
    assert_eq!(
        question["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
    );
    let mut retry = call_tool_params("test_input_required_result_request_state");
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"ok": true}}});
    retry["requestState"] = round["requestState"].clone();
    let done = client.result("tools/call", retry);
    assert!(first_text(&done).contains("state-ok"), "{done}");
}

#[test]
fn input_required_result_multiple_input_requests() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_multiple_inputs");
    assert_eq!(
        keyed_methods(&round),
        [
            ("client_roots".to_owned(), "roots/list".to_owned()),
            ("greeting".to_owned(), "sampling/createMessage".to_owned()),
            ("user_name".to_owned(), "elicitation/create".to_owned()),
        ],
        "one round, three kinds, under the scenario's keys"
    );
    let greeting = &round["inputRequests"]["greeting"]["params"];
    assert_eq!(greeting["messages"][0]["content"]["text"], "Generate a greeting");
    assert_eq!(greeting["maxTokens"], 50);
    // Round 2 with the scenario's answers.
    let mut retry = call_tool_params("test_input_required_result_multiple_inputs");
    retry["inputResponses"] = json!({
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hello there!"}, "model": "test-model", "stopReason": "endTurn"},
        "client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}
    });
    retry["requestState"] = round["requestState"].clone();
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        r#"All inputs received: name=Alice, greeting="Hello there!", roots=1"#
    );
}

#[test]
fn input_required_result_multi_round() {
    let mut client = Client::start(Era::Modern);
    let round1 = first_round(&mut client, "test_input_required_result_multi_round");
    let (key, question) = only_question(&round1);
    assert_eq!(key, "step1");
    assert_eq!(question["params"]["message"], "Step 1: What is your name?");
    let mut retry = call_tool_params("test_input_required_result_multi_round");
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"name": "Alice"}}});
    retry["requestState"] = round1["requestState"].clone();
    let round2 = client.request("tools/call", retry).result().clone();
    assert_eq!(round2["resultType"], "input_required", "{round2}");
    assert_ne!(round2["requestState"], round1["requestState"], "the state moves on");
    let (key, question) = only_question(&round2);
    assert_eq!(key, "step2", "the answered step1 is not asked again");
    assert_eq!(question["params"]["requestedSchema"]["properties"]["color"]["type"], "string");
    let mut retry = call_tool_params("test_input_required_result_multi_round");
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"color": "blue"}}});
    retry["requestState"] = round2["requestState"].clone();
    let done = client.result("tools/call", retry);
    assert_eq!(first_text(&done), "Multi-round complete for Alice who likes blue");
}

#[test]
fn input_required_result_missing_input_response_asks_again() {
    let mut client = Client::start(Era::Modern);
    let mut params = call_tool_params("test_input_required_result_elicitation");
    params["inputResponses"] = json!({"wrong_key": {"action": "accept", "content": {"data": "wrong"}}});
    let again = client.request("tools/call", params).result().clone();
    assert_eq!(again["resultType"], "input_required", "re-requested, not an error: {again}");
    assert_eq!(only_question(&again).0, "user_name");
}

#[test]
fn input_required_result_non_tool_request() {
    let mut client = Client::start(Era::Modern);
    let round =
        client.request("prompts/get", json!({"name": "test_input_required_result_prompt"})).result().clone();
    assert_eq!(round["resultType"], "input_required");
    let (key, question) = only_question(&round);
    assert_eq!(key, "user_context");
    assert_eq!(question["params"]["message"], "What context should the prompt use?");
    let mut retry = json!({"name": "test_input_required_result_prompt"});
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"context": "test context"}}});
    retry["requestState"] = round["requestState"].clone();
    assert_eq!(
        client.result("prompts/get", retry)["messages"][0]["content"]["text"],
        "Answer the next question with this context in mind: test context"
    );
}

#[test]
fn input_required_result_not_on_unsupported_methods() {
    let mut client = Client::start(Era::Modern);
    for method in ["tools/list", "prompts/list"] {
        assert_eq!(client.result(method, Value::Null)["resultType"], "complete", "{method}");
    }
}

#[test]
fn input_required_result_tampered_state_is_refused() {
    let mut client = Client::start(Era::Modern);
    let round = first_round(&mut client, "test_input_required_result_tampered_state");
    let (key, _) = only_question(&round);
    assert_eq!(key, "confirm");
    let mut retry = call_tool_params("test_input_required_result_tampered_state");
    retry["inputResponses"] = json!({key: {"action": "accept", "content": {"ok": true}}});
    retry["requestState"] = json!(format!("{}-TAMPERED", round["requestState"].as_str().unwrap()));
    assert_eq!(client.error("tools/call", retry.clone())["code"], -32602);
    retry["requestState"] = round["requestState"].clone();
    assert!(first_text(&client.result("tools/call", retry)).starts_with("integrity-ok"));
}

#[test]
fn input_required_result_respects_client_capabilities() {
    let (elicit, sample) =
        (("elicit_input", "elicitation/create"), ("sample_input", "sampling/createMessage"));
    for (capabilities, expected) in [
        (json!({"sampling": {}}), vec![sample]),
        (json!({"elicitation": {}}), vec![elicit]),
        (client_capabilities(), vec![elicit, sample]),
    ] {
        let mut client = Client::declaring(Era::Modern, capabilities.clone());
        let round = first_round(&mut client, "test_input_required_result_capabilities");
        let expected: Vec<(String, String)> =
            expected.into_iter().map(|(key, method)| (key.to_owned(), method.to_owned())).collect();
        assert_eq!(keyed_methods(&round), expected, "declared {capabilities}");
        let asked = client.asking(
            "tools/call",
            call_tool_params("test_input_required_result_capabilities"),
            mock_answer,
        );
        assert!(asked.text().starts_with("capabilities-ok: received "), "{}", asked.text());
    }
    let mut client = Client::declaring(Era::Modern, json!({}));
    assert_eq!(
        first_text(&client.call_tool("test_input_required_result_capabilities", json!({}))),
        "No supported capabilities declared"
    );
}

#[test]
fn input_required_result_ignores_extra_input_responses() {
    let mut client = Client::start(Era::Modern);
    // Exactly as the scenario sends it: no first round, no requestState.
    let mut params = call_tool_params("test_input_required_result_elicitation");
    params["inputResponses"] = json!({
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
        "another_unexpected": {"action": "accept", "content": {"baz": 123}}
    });
    assert_eq!(first_text(&client.result("tools/call", params)), "Hello, Alice!");
}

#[test]
fn input_required_result_validates_input_responses() {
    let mut client = Client::start(Era::Modern);
    let mut params = call_tool_params("test_input_required_result_elicitation");
    params["inputResponses"] = json!({"user_name": 12345});
    assert_eq!(client.error("tools/call", params.clone())["code"], -32602, "a malformed answer");
    // Every answer must have the shape of some input response, whatever its key: a malformed
    // answer to a question never asked is refused too, never completed.
    params["inputResponses"] = json!({
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "unknown_key": 12345
    });
    assert_eq!(
        client.error("tools/call", params.clone())["code"],
        -32602,
        "a malformed answer to no question"
    );
    params["inputResponses"] = Value::Null;
    assert_eq!(client.error("tools/call", params)["code"], -32602, "null inputResponses");
}

// ---------------------------------------------------------------------------------------------
// server-stateless diagnostics (2026-07-28)

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

#[test]
fn streaming_elicitation_sends_no_requests_on_the_response_stream() {
    let mut client = Client::declaring(Era::Modern, json!({"elicitation": {}}));
    let mut params = call_tool_params("test_streaming_elicitation");
    params["_meta"] = json!({"progressToken": "stream-1"});
    // `request` fails the test if the server sends the client any request.
    let call = client.request("tools/call", params);
    assert_eq!(call.result()["resultType"], "input_required");
    assert_eq!(call.notifications_of("notifications/progress").len(), 1);
    assert!(call.notifications.iter().all(|n| n["method"].as_str().unwrap().starts_with("notifications/")));
}

#[test]
fn logging_tool_logs_only_when_asked() {
    let mut client = Client::declaring(Era::Modern, json!({}));
    let quiet = client.request("tools/call", call_tool_params("test_logging_tool"));
    assert_eq!(first_text(quiet.result()), "Logging evaluated");
    assert!(
        quiet.notifications_of("notifications/message").is_empty(),
        "sep-2575-server-no-log-without-loglevel"
    );
    let mut params = call_tool_params("test_logging_tool");
    params["_meta"] = json!({"io.modelcontextprotocol/logLevel": "info"});
    let logged = client.request("tools/call", params);
    assert_eq!(logged.notifications_of("notifications/message").len(), 1);
}
