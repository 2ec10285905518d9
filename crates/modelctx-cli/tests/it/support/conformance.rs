//! A client for the conformance fixtures of `modelctx serve everything`, speaking either era:
//! a 2025-11-25 session or 2026-07-28 requests. Shared by the `fixtures_*` tests, which check
//! the fixtures the way the server scenarios of `@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12 check them; `docs/conformance.md` maps each scenario to its test.

use base64::Engine;
use serde_json::{Value, json};

use super::{Exchange, Server, modern_as};

/// The client capabilities the suite's client declares.
pub fn client_capabilities() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Era {
    Legacy,
    Modern,
}

pub const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];

/// Runs `check` once per era, each time against a fresh server and the suite's client.
pub fn in_both_eras(mut check: impl FnMut(&mut Client, Era)) {
    for era in ERAS {
        // Captured by the harness and shown if `check` fails.
        eprintln!("-- era {era:?}");
        check(&mut Client::start(era), era);
    }
}

/// A server and the way to phrase requests for one era.
pub struct Client {
    pub server: Server,
    pub era: Era,
    capabilities: Value,
    next_id: i64,
}

impl Client {
    /// A client of `era` declaring the suite's capabilities.
    pub fn start(era: Era) -> Self {
        Self::declaring(era, client_capabilities())
    }

    /// A client of `era` declaring `capabilities`.
    pub fn declaring(era: Era, capabilities: Value) -> Self {
        let mut server = Server::start();
        if era == Era::Legacy {
            let init = server.initialize(capabilities.clone());
            assert_eq!(init["protocolVersion"], "2025-11-25");
        }
        Self { server, era, capabilities, next_id: 0 }
    }

    pub fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// `params` as this era sends them.
    pub fn params(&self, params: Value) -> Value {
        match self.era {
            Era::Legacy => params,
            Era::Modern => modern_as(params, self.capabilities.clone()),
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Exchange {
        let (id, params) = (self.id(), self.params(params));
        self.server.request(id, method, params)
    }

    /// The result of a request, which must be complete (a legacy one carries no `resultType`).
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let exchange = self.request(method, params);
        let result = exchange.result().clone();
        match self.era {
            Era::Legacy => assert!(result.get("resultType").is_none(), "{result}"),
            Era::Modern => assert!(result["resultType"] == "complete", "{result}"),
        }
        result
    }

    /// The error a request must get.
    pub fn error(&mut self, method: &str, params: Value) -> Value {
        let exchange = self.request(method, params);
        exchange.response.get("error").cloned().unwrap_or_else(|| panic!("expected an error: {exchange:?}"))
    }

    /// The complete result of calling the tool `name` with `arguments`.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({"name": name, "arguments": arguments}))
    }

    /// The whole exchange of calling the tool `name` with no arguments.
    pub fn call(&mut self, name: &str) -> Exchange {
        self.request("tools/call", call_tool_params(name))
    }

    /// [`Client::call`] with `meta` as the request's `_meta`.
    pub fn call_with_meta(&mut self, name: &str, meta: Value) -> Exchange {
        let mut params = call_tool_params(name);
        params["_meta"] = meta;
        self.request("tools/call", params)
    }

    /// Runs a request that asks the client, answering every question with
    /// `answer(method, params)`: live requests in a legacy session, `inputResponses` on
    /// modern retries (at most five rounds).
    pub fn asking(&mut self, method: &str, params: Value, answer: impl Fn(&str, &Value) -> Value) -> Asked {
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
pub struct Asked {
    /// Every question, as `{method, params}`, in order.
    pub questions: Vec<Value>,
    /// The `inputRequests` keys of each modern round, sorted (none in a legacy session).
    pub keys: Vec<Vec<String>>,
    /// The final result.
    pub result: Value,
    /// How many requests it took (always 1 in a legacy session).
    pub rounds: usize,
}

impl Asked {
    pub fn text(&self) -> &str {
        first_text(&self.result)
    }
}

/// The answers the suite's mock client gives (`mockElicitResponse`, `mockSamplingResponse`,
/// `mockListRootsResponse`); a form is filled from its field names.
pub fn mock_answer(method: &str, params: &Value) -> Value {
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

/// `tools/call` params for the tool `name`, with no arguments.
pub fn call_tool_params(name: &str) -> Value {
    json!({"name": name, "arguments": {}})
}

/// The first text block of a result's `content`.
pub fn first_text(result: &Value) -> &str {
    result["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "text"))
        .and_then(|b| b["text"].as_str())
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

pub fn decode(data: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data.as_str().expect("base64 text"))
        .expect("valid base64")
}

pub const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A binary content block: checks its `type` and `mimeType`, returns its decoded `data`.
pub fn media(block: &Value, kind: &str, mime_type: &str, era: Era) -> Vec<u8> {
    assert_eq!(
        (block["type"].as_str(), block["mimeType"].as_str()),
        (Some(kind), Some(mime_type)),
        "{era:?}"
    );
    decode(&block["data"])
}

/// `(uri, mimeType)` of a resource or its contents.
pub fn uri_and_mime_type(content: &Value) -> (Option<&str>, Option<&str>) {
    (content["uri"].as_str(), content["mimeType"].as_str())
}

/// The `name` of each item of the list result's `member`.
pub fn names(list: &Value, member: &str) -> Vec<String> {
    list[member]
        .as_array()
        .expect(member)
        .iter()
        .map(|item| item["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// The item of the list result's `member` whose `field` is `value`.
pub fn listed<'a>(list: &'a Value, member: &str, field: &str, value: &str) -> &'a Value {
    list[member]
        .as_array()
        .expect(member)
        .iter()
        .find(|item| item[field] == value)
        .unwrap_or_else(|| panic!("{value} not listed in {member}"))
}
