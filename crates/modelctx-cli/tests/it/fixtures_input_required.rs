//! Multi round-trip requests (SEP-2322, 2026-07-28): the input-required-result-* scenarios
//! against their fixtures — `inputRequests` under the suite's keys, `requestState` carried and
//! guarded, answers validated — and, for every asking fixture, a run to completion in both
//! eras (live requests in a 2025-11-25 session). `docs/conformance.md` maps scenarios to tests.

use crate::support::conformance::{
    Client, Era, call_tool_params, client_capabilities, first_text, in_both_eras, mock_answer,
};
use serde_json::{Value, json};

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

/// The first round of the tool `name`, which must ask a single question, under `key`:
/// the round and the question.
fn ask_once(client: &mut Client, name: &str, key: &str) -> (Value, Value) {
    let round = first_round(client, name);
    let (asked, question) = only_question(&round);
    assert_eq!(asked, key, "{name}: inputRequests missing expected key {key:?}");
    (round, question)
}

/// `params` retried after `round`, with `responses` as its `inputResponses`.
fn answering(mut params: Value, round: &Value, responses: Value) -> Value {
    params["inputResponses"] = responses;
    params["requestState"] = round["requestState"].clone();
    params
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

#[test]
fn input_required_result_basic_elicitation() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_elicitation";
    let (round, question) = ask_once(&mut client, name, "user_name");
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "What is your name?");
    assert_eq!(
        question["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    );
    // Round 2 exactly as the scenario sends it.
    let retry = answering(
        call_tool_params(name),
        &round,
        json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}}),
    );
    assert_eq!(first_text(&client.result("tools/call", retry)), "Hello, Alice!");
}

#[test]
fn input_required_result_basic_sampling() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_sampling";
    let (round, question) = ask_once(&mut client, name, "capital_question");
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(
        question["params"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}])
    );
    assert_eq!(question["params"]["maxTokens"], 100);
    let retry = answering(
        call_tool_params(name),
        &round,
        json!({"capital_question": {"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."}, "model": "test-model", "stopReason": "endTurn"}}),
    );
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        "The client's model answered: The capital of France is Paris."
    );
}

#[test]
fn input_required_result_basic_list_roots() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_list_roots";
    let (round, question) = ask_once(&mut client, name, "client_roots");
    assert_eq!(question["method"], "roots/list");
    let retry = answering(
        call_tool_params(name),
        &round,
        json!({"client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}}),
    );
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        "The client has 1 root(s): file:///test/root (Test Root)"
    );
}

#[test]
fn input_required_result_request_state() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_request_state";
    let (round, question) = ask_once(&mut client, name, "confirm");
    assert_eq!(question["params"]["message"], "Please confirm");
    assert_eq!(
        question["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
    );
    let retry = answering(
        call_tool_params(name),
        &round,
        json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
    );
    let done = client.result("tools/call", retry);
    assert!(first_text(&done).contains("state-ok"), "{done}");
}

#[test]
fn input_required_result_multiple_input_requests() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_multiple_inputs";
    let round = first_round(&mut client, name);
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
    let retry = answering(
        call_tool_params(name),
        &round,
        json!({
            "user_name": {"action": "accept", "content": {"name": "Alice"}},
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "Hello there!"}, "model": "test-model", "stopReason": "endTurn"},
            "client_roots": {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}
        }),
    );
    assert_eq!(
        first_text(&client.result("tools/call", retry)),
        r#"All inputs received: name=Alice, greeting="Hello there!", roots=1"#
    );
}

#[test]
fn input_required_result_multi_round() {
    let mut client = Client::start(Era::Modern);
    let name = "test_input_required_result_multi_round";
    let (round1, question) = ask_once(&mut client, name, "step1");
    assert_eq!(question["params"]["message"], "Step 1: What is your name?");
    let retry = answering(
        call_tool_params(name),
        &round1,
        json!({"step1": {"action": "accept", "content": {"name": "Alice"}}}),
    );
    let round2 = client.request("tools/call", retry).result().clone();
    assert_eq!(round2["resultType"], "input_required", "{round2}");
    assert_ne!(round2["requestState"], round1["requestState"], "the state moves on");
    let (key, question) = only_question(&round2);
    assert_eq!(key, "step2", "the answered step1 is not asked again");
    assert_eq!(question["params"]["requestedSchema"]["properties"]["color"]["type"], "string");
    let retry = answering(
        call_tool_params(name),
        &round2,
        json!({"step2": {"action": "accept", "content": {"color": "blue"}}}),
    );
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
    let params = json!({"name": "test_input_required_result_prompt"});
    let round = client.request("prompts/get", params.clone()).result().clone();
    assert_eq!(round["resultType"], "input_required");
    let (key, question) = only_question(&round);
    assert_eq!(key, "user_context");
    assert_eq!(question["params"]["message"], "What context should the prompt use?");
    let retry = answering(
        params,
        &round,
        json!({"user_context": {"action": "accept", "content": {"context": "test context"}}}),
    );
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
    let name = "test_input_required_result_tampered_state";
    let (round, _) = ask_once(&mut client, name, "confirm");
    let mut retry = answering(
        call_tool_params(name),
        &round,
        json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
    );
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

#[test]
fn streaming_elicitation_sends_no_requests_on_the_response_stream() {
    let mut client = Client::declaring(Era::Modern, json!({"elicitation": {}}));
    // `request` fails the test if the server sends the client any request.
    let call = client.call_with_meta("test_streaming_elicitation", json!({"progressToken": "stream-1"}));
    assert_eq!(call.result()["resultType"], "input_required");
    assert_eq!(call.notifications_of("notifications/progress").len(), 1);
    assert!(call.notifications.iter().all(|n| n["method"].as_str().unwrap().starts_with("notifications/")));
}

// ---------------------------------------------------------------------------------------------
// Every asking fixture, in both eras

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
    in_both_eras(|client, era| {
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
    });
}
