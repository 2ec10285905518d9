//! Asking the client from a handler, in both eras: modern multi-round-trip requests with a
//! sealed `requestState` (MRTR-*), and live server-to-client requests on legacy sessions.

use modelctx_protocol::Method;
use std::time::Duration;

use modelctx::server::{
    Args, InputError, Limits, RequestContext, ResourceDef, ResourceError, ResourceRequest, Server,
    ServerOptions, ToolDef, text_contents,
};
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::jsonrpc::{Message, RequestId};
use modelctx_protocol::model::ElicitRequest;
use modelctx_protocol::types::{ElicitAction, RequestedSchema, SamplingContent};
use modelctx_protocol::v2026::CreateMessageRequestParams;
use modelctx_protocol::{JsonObject, ProtocolVersion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

fn name_form() -> ElicitRequest {
    ElicitRequest::Form {
        message: "What is your name?".into(),
        requested_schema: serde_json::from_value::<RequestedSchema>(json!({
            "type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}, "required": ["name"]
        }))
        .unwrap(),
    }
}

fn question(text: &str) -> CreateMessageRequestParams {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 50
    }))
    .unwrap()
}

/// Greets the user by the name the form returns.
async fn greet(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.elicit(name_form()).await?;
    match answer.action {
        ElicitAction::Accept => {
            let name = answer.content.and_then(|c| c.get("name").cloned());
            Ok(format!("Hello, {}!", serde_json::to_value(name).unwrap().as_str().unwrap_or("stranger")))
        }
        other => Ok(format!("No greeting ({other:?})")),
    }
}

/// Asks for a name, then asks the model for a poem about it: two rounds.
async fn poem(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.elicit(name_form()).await?;
    let name = answer.content.and_then(|c| c.get("name").cloned()).map(|v| serde_json::to_value(v).unwrap());
    let name = name.as_ref().and_then(Value::as_str).unwrap_or("nobody").to_owned();
    let sampled = ctx.sample(question(&format!("A poem about {name}"))).await?;
    let SamplingContent::One(modelctx_protocol::types::SamplingMessageContentBlock::Text(text)) =
        sampled.content
    else {
        return Ok("unexpected content".into());
    };
    Ok(format!("{name}: {}", text.text))
}

/// Asks two questions at once.
async fn both(ctx: RequestContext) -> Result<String, InputError> {
    let (roots, answer) = tokio::join!(ctx.list_roots(), ctx.elicit(name_form()));
    Ok(format!("{} roots, {:?}", roots?.len(), answer?.action))
}

#[derive(Deserialize, JsonSchema)]
struct Topic {
    topic: String,
}

fn server(options: ServerOptions) -> Server {
    builder(options).build().unwrap()
}

fn builder(options: ServerOptions) -> modelctx::server::ServerBuilder {
    Server::builder("input-test", "1")
        .options(options)
        .resource(ResourceDef::new("input://greeting", "greeting", |request: ResourceRequest| async move {
            let greeting = greet(request.ctx).await.map_err(|e| ResourceError::Failed(e.to_string()))?;
            Ok(vec![text_contents("input://greeting", None, greeting)])
        }))
        .tool(ToolDef::new("greet", greet))
        .tool(ToolDef::new("poem", poem))
        .tool(ToolDef::new("both", both))
        .tool(ToolDef::new("visit", |ctx: RequestContext| async move {
            let request = ElicitRequest::Url {
                message: "Sign in to the calendar".into(),
                url: "https://calendar.example.com/connect".into(),
                elicitation_id: Some("connect-1".into()),
            };
            ctx.elicit(request).await.map(|answer| format!("{:?}", answer.action))
        }))
        .tool(ToolDef::new("about", |ctx: RequestContext, Args(Topic { topic }): Args<Topic>| async move {
            ctx.sample(question(&topic)).await.map(|_| topic)
        }))
}

fn caps() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

async fn call(
    client: &TestClient,
    params: Value,
    capabilities: Value,
) -> Result<JsonObject, modelctx_protocol::jsonrpc::ErrorObject> {
    tokio::time::timeout(WAIT, client.request("tools/call", with_modern_meta(params, capabilities)))
        .await
        .expect("answered in time")
}

#[tokio::test]
async fn mrtr_01_a_modern_request_gets_input_required_then_completes_on_retry() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first = call(&client, json!({"name": "greet"}), caps()).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    let request = &first["inputRequests"]["elicit-0"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["requestedSchema"]["properties"]["name"]["default"], "Ada");
    assert!(request.get("id").is_none(), "input requests carry no JSON-RPC id");
    let state = first["requestState"].as_str().expect("a sealed state").to_owned();

    let retry = json!({"name": "greet", "requestState": state,
        "inputResponses": {"elicit-0": {"action": "accept", "content": {"name": "Grace"}}}});
    let done = call(&client, retry, caps()).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "Hello, Grace!");
}

/// MRTR-07: a request answered `input_required` leaves nothing waiting for its retry: its
/// handler is dropped at once (the retry runs it again from the sealed answers), so a client
/// that never retries costs the server nothing.
#[tokio::test]
async fn mrtr_07_a_request_that_asks_leaves_nothing_waiting_for_a_retry() {
    struct Dropped(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = dropped.clone();
    let asking = ToolDef::new("asking", move |ctx: RequestContext| {
        let guard = Dropped(flag.clone());
        async move {
            let _guard = guard;
            ctx.elicit(name_form()).await.map(|answer| format!("{:?}", answer.action))
        }
    });
    let client = TestClient::start(builder(ServerOptions::default()).tool(asking).build().unwrap());
    let first = call(&client, json!({"name": "asking"}), caps()).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    assert!(
        dropped.load(std::sync::atomic::Ordering::SeqCst),
        "the handler is gone once the round is answered"
    );
}

/// MRTR-10: a server that requires it redeems each sealed state once; by default a retry
/// with the same state (its answer was lost, say) is served again.
#[tokio::test]
async fn mrtr_10_a_request_state_is_redeemed_at_most_once_when_the_server_requires_it() {
    let once = std::sync::Arc::new(modelctx::store::MemoryOnceStore::default());
    let strict =
        TestClient::start(builder(ServerOptions::default()).request_state_once(once).build().unwrap());
    let lenient = TestClient::start(server(ServerOptions::default()));
    for (client, again_ok) in [(&strict, false), (&lenient, true)] {
        let first = call(client, json!({"name": "greet"}), caps()).await.unwrap();
        let retry = json!({"name": "greet", "requestState": first["requestState"],
            "inputResponses": {"elicit-0": {"action": "accept", "content": {"name": "Grace"}}}});
        assert_eq!(call(client, retry.clone(), caps()).await.unwrap()["content"][0]["text"], "Hello, Grace!");
        let again = call(client, retry, caps()).await;
        assert_eq!(again.is_ok(), again_ok, "{again:?}");
        if let Err(refused) = again {
            assert_eq!(refused.code.0, -32602);
            assert!(refused.message.contains("used before"), "{}", refused.message);
        }
    }
}

#[tokio::test]
async fn mrtr_05_later_rounds_carry_earlier_answers_in_the_sealed_state() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first = call(&client, json!({"name": "poem"}), caps()).await.unwrap();
    assert!(first["inputRequests"]["elicit-0"].is_object());
    let second = call(
        &client,
        json!({"name": "poem", "requestState": first["requestState"],
               "inputResponses": {"elicit-0": {"action": "accept", "content": {"name": "Ada"}}}}),
        caps(),
    )
    .await
    .unwrap();
    assert_eq!(second["resultType"], "input_required");
    assert_eq!(second["inputRequests"]["sample-0"]["method"], "sampling/createMessage");
    assert!(second["inputRequests"].get("elicit-0").is_none(), "answered questions are not asked again");
    // The last round brings only the new answer; the name comes from the state.
    let third = call(
        &client,
        json!({"name": "poem", "requestState": second["requestState"],
               "inputResponses": {"sample-0": {"role": "assistant", "model": "m",
                   "content": {"type": "text", "text": "Counting engines hum."}}}}),
        caps(),
    )
    .await
    .unwrap();
    assert_eq!(third["content"][0]["text"], "Ada: Counting engines hum.");
}

#[tokio::test]
async fn mrtr_03_04_several_questions_at_once_arrive_in_one_round_under_distinct_keys() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first = call(&client, json!({"name": "both"}), caps()).await.unwrap();
    let keys: Vec<&String> = first["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["elicit-0", "roots-0"]);
    let methods: Vec<&Value> =
        first["inputRequests"].as_object().unwrap().values().map(|r| &r["method"]).collect();
    assert_eq!(
        methods,
        [&json!("elicitation/create"), &json!("roots/list")],
        "only the three kinds of input request"
    );
    let done = call(
        &client,
        json!({"name": "both", "requestState": first["requestState"], "inputResponses": {
            "roots-0": {"roots": [{"uri": "file:///work", "name": "work"}]},
            "elicit-0": {"action": "decline"}}}),
        caps(),
    )
    .await
    .unwrap();
    assert_eq!(done["content"][0]["text"], "1 roots, Decline");
}

#[tokio::test]
async fn a_handler_may_choose_its_question_keys() {
    let server = Server::builder("keys", "1")
        .tool(ToolDef::new("named", |ctx: RequestContext| async move {
            let answer = ctx.question("user_name").elicit(name_form()).await?;
            Ok::<_, InputError>(format!("{:?}", answer.action))
        }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let first = call(&client, json!({"name": "named"}), caps()).await.unwrap();
    assert!(first["inputRequests"]["user_name"].is_object(), "{first:?}");
    let done = call(
        &client,
        json!({"name": "named", "requestState": first["requestState"],
               "inputResponses": {"user_name": {"action": "cancel"}}}),
        caps(),
    )
    .await
    .unwrap();
    assert_eq!(done["content"][0]["text"], "Cancel");
}

/// META-04 and META-05: the capabilities of this request count, not those an earlier request
/// on the same connection declared; one that is missing is `-32021` naming it.
#[tokio::test]
async fn meta_04_05_mrtr_06_a_missing_client_capability_is_32021() {
    let client = TestClient::start(server(ServerOptions::default()));
    let asked = call(&client, json!({"name": "greet"}), caps()).await.unwrap();
    assert_eq!(asked["resultType"], "input_required", "declared in this request: asked");
    let error = call(&client, json!({"name": "greet"}), json!({"sampling": {}})).await.unwrap_err();
    assert_eq!(error.code.0, -32021);
    assert_eq!(error.data.unwrap()["requiredCapabilities"], json!({"elicitation": {"form": {}}}));
    // Tool-enabled sampling needs sampling.tools, not just sampling (MRTR-06).
    let error = call(&client, json!({"name": "greet"}), json!({})).await.unwrap_err();
    assert_eq!(error.code.0, -32021);
}

/// ELIC-05, ELIC-06, ELIC-08: a form question carries its message and schema (and no mode
/// but `form`); a URL question carries `mode: "url"`, its message and URL; and neither is
/// asked of a client that did not declare its mode (`{}` declares form only).
#[tokio::test]
async fn elic_05_06_08_questions_carry_their_mode_and_only_declared_modes_are_asked() {
    let client = TestClient::start(server(ServerOptions::default()));
    let form = call(&client, json!({"name": "greet"}), json!({"elicitation": {}})).await.unwrap();
    let params = &form["inputRequests"]["elicit-0"]["params"];
    assert!(params["message"].is_string() && params["requestedSchema"].is_object(), "{params}");
    assert!(params.get("mode").is_none_or(|mode| mode == "form"), "{params}");

    let url = call(&client, json!({"name": "visit"}), json!({"elicitation": {"url": {}}})).await.unwrap();
    let params = &url["inputRequests"]["elicit-0"]["params"];
    assert_eq!(params["mode"], "url", "{params}");
    assert_eq!(params["url"], "https://calendar.example.com/connect");
    assert_eq!(params["message"], "Sign in to the calendar");

    for form_only in [json!({"elicitation": {}}), json!({"elicitation": {"form": {}}})] {
        let refused = call(&client, json!({"name": "visit"}), form_only.clone()).await.unwrap_err();
        assert_eq!(refused.code.0, -32021, "{form_only}: {}", refused.message);
        assert_eq!(refused.data.unwrap()["requiredCapabilities"], json!({"elicitation": {"url": {}}}));
    }
    let refused =
        call(&client, json!({"name": "greet"}), json!({"elicitation": {"url": {}}})).await.unwrap_err();
    assert_eq!(refused.code.0, -32021, "a URL-only client is not asked a form: {}", refused.message);
}

#[tokio::test]
async fn mrtr_08_tampered_or_foreign_state_is_refused() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first =
        call(&client, json!({"name": "about", "arguments": {"topic": "cats"}}), caps()).await.unwrap();
    let state = first["requestState"].as_str().unwrap().to_owned();
    let mut tampered = state.clone().into_bytes();
    tampered[2] = if tampered[2] == b'A' { b'B' } else { b'A' };
    let answer =
        json!({"sample-0": {"role": "assistant", "model": "m", "content": {"type": "text", "text": "x"}}});
    let error = call(
        &client,
        json!({"name": "about", "arguments": {"topic": "cats"}, "requestState": String::from_utf8(tampered).unwrap(),
               "inputResponses": answer}),
        caps(),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.0, -32602);
    // The same state on a request with other arguments (MRTR-09: bound to the params).
    let error = call(
        &client,
        json!({"name": "about", "arguments": {"topic": "dogs"}, "requestState": state, "inputResponses": answer}),
        caps(),
    )
    .await
    .unwrap_err();
    assert!(error.message.contains("another request"), "{error}");
    // A state from another server (another key) fails verification.
    let other = TestClient::start(server(ServerOptions::default()));
    let error = call(
        &other,
        json!({"name": "about", "arguments": {"topic": "cats"}, "requestState": state, "inputResponses": answer}),
        caps(),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.0, -32602);
}

#[tokio::test]
async fn mrtr_15_a_malformed_answer_is_invalid_params() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first = call(&client, json!({"name": "greet"}), caps()).await.unwrap();
    let error = call(
        &client,
        json!({"name": "greet", "requestState": first["requestState"],
               "inputResponses": {"elicit-0": {"action": "maybe"}}}),
        caps(),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code.0, -32602);
    assert!(error.message.contains("maybe"), "the message names the bad value: {error}");
}

/// Reads the next message the server sent that is a request (a server-to-client request).
async fn next_server_request(client: &TestClient) -> (RequestId, String, Value) {
    loop {
        match client.next_notification(WAIT).await.expect("a server request in time") {
            Message::Request(request) => {
                return (
                    request.id,
                    request.method.to_string(),
                    Value::Object(request.params.unwrap_or_default()),
                );
            }
            _ => continue,
        }
    }
}

async fn legacy_client(options: ServerOptions, capabilities: Value) -> TestClient {
    let client = TestClient::start(server(options));
    tokio::time::timeout(
        WAIT,
        client.request(
            "initialize",
            json!({"protocolVersion": ProtocolVersion::V2025_11_25.to_string(), "capabilities": capabilities,
                   "clientInfo": {"name": "legacy", "version": "1"}}),
        ),
    )
    .await
    .unwrap()
    .unwrap();
    client.notify("notifications/initialized", Value::Null).await;
    client
}

/// ELIC-13: a handler learns of a declined or cancelled question as an answer, and of a client
/// that failed to answer as an error, in both eras; the call is answered either way.
#[tokio::test]
async fn elic_13_declines_cancels_and_client_failures_reach_the_handler() {
    let client = TestClient::start(server(ServerOptions::default()));
    let first = call(&client, json!({"name": "greet"}), caps()).await.unwrap();
    for (action, expected) in [("decline", "No greeting (Decline)"), ("cancel", "No greeting (Cancel)")] {
        let retry = json!({"name": "greet", "requestState": first["requestState"],
            "inputResponses": {"elicit-0": {"action": action}}});
        let done = call(&client, retry, caps()).await.unwrap();
        assert_eq!(done["content"][0]["text"], expected, "modern {action}");
    }

    let legacy = legacy_client(ServerOptions::default(), caps()).await;
    for action in ["decline", "cancel"] {
        let pending = legacy.send_request("tools/call", json!({"name": "greet"})).await;
        let (id, _, _) = next_server_request(&legacy).await;
        legacy
            .send_line(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": action}}).to_string())
            .await;
        let done = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
        assert!(
            done["content"][0]["text"].as_str().unwrap().starts_with("No greeting"),
            "legacy {action}: {done:?}"
        );
    }
    let pending = legacy.send_request("tools/call", json!({"name": "greet"})).await;
    let (id, _, _) = next_server_request(&legacy).await;
    let failure = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "the user's terminal closed"}});
    legacy.send_line(&failure.to_string()).await;
    let answered = tokio::time::timeout(WAIT, pending.response()).await.expect("answered, not hung");
    let failed = match answered {
        Ok(result) => result["isError"] == true,
        Err(_) => true,
    };
    assert!(failed, "a client's failure to answer is an error of the call");
}

/// ELIC-08 in a 2025-11-25 session: a URL question is a live `elicitation/create` with
/// `mode: "url"`, its message, its URL and its `elicitationId`.
#[tokio::test]
async fn elic_08_a_legacy_url_question_names_its_elicitation_id() {
    let client = legacy_client(ServerOptions::default(), json!({"elicitation": {"url": {}}})).await;
    let pending = client.send_request("tools/call", json!({"name": "visit"})).await;
    let (id, method, params) = next_server_request(&client).await;
    assert_eq!(method, "elicitation/create");
    assert_eq!((&params["mode"], &params["elicitationId"]), (&json!("url"), &json!("connect-1")), "{params}");
    assert_eq!(params["url"], "https://calendar.example.com/connect");
    client.send_line(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept"}}).to_string()).await;
    let result = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
    assert_eq!(result["content"][0]["text"], "Accept");
}

#[tokio::test]
async fn legacy_sessions_get_live_server_to_client_requests() {
    let client = legacy_client(ServerOptions::default(), caps()).await;
    let pending = client.send_request("tools/call", json!({"name": "poem"})).await;
    let (id, method, params) = next_server_request(&client).await;
    assert_eq!(method, "elicitation/create");
    assert_eq!(params["requestedSchema"]["required"], json!(["name"]));
    client
        .send_line(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {"name": "Linus"}}}).to_string())
        .await;
    let (id, method, params) = next_server_request(&client).await;
    assert_eq!(method, "sampling/createMessage");
    assert_eq!(params["messages"][0]["content"]["text"], "A poem about Linus");
    client
        .send_line(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"role": "assistant", "model": "m",
                    "content": {"type": "text", "text": "Kernels compile."}}})
            .to_string(),
        )
        .await;
    let result = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
    assert_eq!(result["content"][0]["text"], "Linus: Kernels compile.");
    assert!(result.get("resultType").is_none());
}

/// SAMP-02, MRTR-06: a server asks for tool-enabled sampling only of a client that declared
/// `sampling.tools`; of one that did not, the request is refused `-32021` naming it, and no
/// question carrying `tools` is ever sent.
#[tokio::test]
async fn samp_02_mrtr_06_tools_in_sampling_only_for_a_client_that_declared_them() {
    let with_tools = || {
        serde_json::from_value::<CreateMessageRequestParams>(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "What is the weather?"}}],
            "maxTokens": 50,
            "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
        }))
        .unwrap()
    };
    let server = Server::builder("input-test", "1")
        .tool(ToolDef::new("agent", move |ctx: RequestContext| {
            let params = with_tools();
            async move { ctx.sample(params).await.map(|_| "sampled") }
        }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let refused = call(&client, json!({"name": "agent"}), json!({"sampling": {}})).await.unwrap_err();
    assert_eq!(refused.code.0, -32021);
    assert_eq!(refused.data.unwrap()["requiredCapabilities"], json!({"sampling": {"tools": {}}}));
    let asked = call(&client, json!({"name": "agent"}), json!({"sampling": {"tools": {}}})).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(asked["inputRequests"]["sample-0"]["params"]["tools"][0]["name"], "weather");
}

/// ELIC-14: a request that cannot go on until the user completes URL elicitations answers
/// `-32042` listing them, each in URL mode with its `elicitationId`. ELIC-16: once the user has,
/// the handler tells the client that asked — and only it — with the original id.
#[tokio::test]
async fn elic_14_16_url_elicitation_required_and_its_completion_reach_the_initiating_client() {
    let connect = || modelctx_protocol::v2025::ElicitRequestURLParams {
        meta: None,
        task: None,
        mode: Default::default(),
        message: "Connect the calendar".into(),
        elicitation_id: "connect-7".into(),
        url: "https://calendar.example.com/connect".into(),
    };
    let server = Server::builder("input-test", "1")
        .tool(ToolDef::new("needs_url", move || {
            let required = modelctx_protocol::v2025::url_elicitation_required(&[connect()]);
            async move { modelctx::server::ToolOutcome::<String>(Err(required)) }
        }))
        .tool(ToolDef::new("visit", |ctx: RequestContext| async move {
            let request = ElicitRequest::Url {
                message: "Sign in".into(),
                url: "https://calendar.example.com/connect".into(),
                elicitation_id: Some("connect-1".into()),
            };
            let answer = ctx.elicit(request).await?;
            // The user finished at the URL (known to the server out of band).
            let told = ctx.elicitation_complete("connect-1").await;
            Ok::<_, InputError>(format!("{:?} {told}", answer.action))
        }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"url": {}}},
        "clientInfo": {"name": "legacy", "version": "1"}});
    tokio::time::timeout(WAIT, client.request("initialize", init)).await.unwrap().unwrap();
    client.notify("notifications/initialized", Value::Null).await;
    let required = tokio::time::timeout(WAIT, client.request("tools/call", json!({"name": "needs_url"})))
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(required.code.0, -32042);
    let listed = &required.data.unwrap()["elicitations"];
    assert_eq!(listed[0]["mode"], "url");
    assert_eq!(listed[0]["elicitationId"], "connect-7");

    let pending = client.send_request("tools/call", json!({"name": "visit"})).await;
    let (id, method, params) = next_server_request(&client).await;
    assert_eq!(
        (method.as_str(), params["elicitationId"].as_str()),
        ("elicitation/create", Some("connect-1"))
    );
    client.send_line(&json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept"}}).to_string()).await;
    let complete = loop {
        match client.next_notification(WAIT).await.expect("the completion in time") {
            Message::Notification(n) if n.method == Method::ElicitationComplete => break n,
            _ => continue,
        }
    };
    assert_eq!(complete.params.unwrap()["elicitationId"], "connect-1", "the original id");
    let result = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
    assert_eq!(result["content"][0]["text"], "Accept true");
    // A modern client is sent nothing: it learns by retrying.
    let modern = TestClient::start(
        Server::builder("t", "1")
            .tool(ToolDef::new("told", |ctx: RequestContext| async move {
                ctx.elicitation_complete("x").await.to_string()
            }))
            .build()
            .unwrap(),
    );
    let told = call(&modern, json!({"name": "told"}), caps()).await.unwrap();
    assert_eq!(told["content"][0]["text"], "false");
}

#[tokio::test]
async fn legacy_client_errors_and_missing_capabilities_reach_the_handler() {
    // Without the capability, the handler's question fails and it reports a tool error.
    let client = legacy_client(ServerOptions::default(), json!({})).await;
    let result = tokio::time::timeout(WAIT, client.request("tools/call", json!({"name": "greet"})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(result["isError"], true);
    assert!(result["content"][0]["text"].as_str().unwrap().contains("elicitation"), "{result:?}");
    // A client that refuses with a JSON-RPC error.
    let client = legacy_client(ServerOptions::default(), caps()).await;
    let pending = client.send_request("tools/call", json!({"name": "greet"})).await;
    let (id, _, _) = next_server_request(&client).await;
    client
        .send_line(
            &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "user rejected"}})
                .to_string(),
        )
        .await;
    let result = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
    assert!(result["content"][0]["text"].as_str().unwrap().contains("user rejected"), "{result:?}");
}

#[tokio::test]
async fn legacy_questions_time_out_and_are_cancelled_at_the_client() {
    let limits = Limits { client_request_timeout: Duration::from_millis(50), ..Limits::default() };
    let client = legacy_client(ServerOptions { limits, ..ServerOptions::default() }, caps()).await;
    let pending = client.send_request("tools/call", json!({"name": "greet"})).await;
    let (id, _, _) = next_server_request(&client).await;
    let result = tokio::time::timeout(WAIT, pending.response()).await.unwrap().unwrap();
    assert!(result["content"][0]["text"].as_str().unwrap().contains("in time"), "{result:?}");
    let cancel = loop {
        match client.next_notification(WAIT).await.expect("a cancellation") {
            Message::Notification(n) if n.method == Method::Cancelled => break n,
            _ => continue,
        }
    };
    assert_eq!(cancel.params.unwrap()["requestId"], serde_json::to_value(&id).unwrap());
}

#[tokio::test]
async fn mrtr_02_only_three_methods_may_ask() {
    use modelctx::server::{CompletionRequest, PromptDef};
    let server = Server::builder("t", "1")
        .prompt(PromptDef::new("p", || async { Ok(vec![]) }).argument("a", "an argument", false).complete(
            "a",
            |request: CompletionRequest| async move {
                match request.ctx.elicit(name_form()).await {
                    Err(InputError::NotAllowed) => vec!["not allowed".to_owned()],
                    other => vec![format!("{other:?}")],
                }
            },
        ))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let result = client
        .request(
            "completion/complete",
            with_modern_meta(
                json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
                caps(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(result["completion"]["values"], json!(["not allowed"]));
}

#[tokio::test]
async fn mrtr_02_a_resource_read_that_asks_gets_input_required_then_its_contents() {
    let client = TestClient::start(server(ServerOptions::default()));
    let read = |params: Value| {
        let request = client.request("resources/read", with_modern_meta(params, caps()));
        async move { tokio::time::timeout(WAIT, request).await.expect("answered in time") }
    };
    let first = read(json!({"uri": "input://greeting"})).await.unwrap();
    assert_eq!(first["resultType"], "input_required", "{first:?}");
    assert_eq!(first["inputRequests"]["elicit-0"]["method"], "elicitation/create");
    let state = first["requestState"].as_str().expect("a sealed state").to_owned();

    let retry = json!({"uri": "input://greeting", "requestState": state,
        "inputResponses": {"elicit-0": {"action": "accept", "content": {"name": "Grace"}}}});
    let done = read(retry).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["contents"][0]["text"], "Hello, Grace!");
}

/// SAMP-05, SAMP-09: a server handler that asks to sample a conversation whose tool use is
/// not answered (or answered with something else mixed in, SAMP-04) is refused before
/// anything reaches the client, and the handler learns why.
#[tokio::test]
async fn samp_04_05_09_a_conversation_breaking_the_tool_rules_is_never_sent() {
    let unanswered = || {
        serde_json::from_value::<CreateMessageRequestParams>(json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "What is the weather?"}},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "w1", "name": "weather", "input": {}}]},
                {"role": "user", "content": {"type": "text", "text": "go on"}},
            ],
            "maxTokens": 50,
            "tools": [{"name": "weather", "inputSchema": {"type": "object"}}],
        }))
        .unwrap()
    };
    let server = Server::builder("input-test", "1")
        .tool(ToolDef::new("agent", move |ctx: RequestContext| {
            let params = unanswered();
            async move { ctx.sample(params).await.map(|_| "sampled") }
        }))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let result = serde_json::Value::Object(
        call(&client, json!({"name": "agent"}), json!({"sampling": {"tools": {}}})).await.unwrap(),
    );
    assert_ne!(result["resultType"], "input_required", "nothing was asked: {result}");
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("the question was not sent") && text.contains("must answer exactly those"),
        "{text}"
    );
}

/// BASE-28: a multi-round request's state travels only in the identifier the client passes
/// back (`requestState`): the second round, sent on another connection to the same server,
/// carries the first round's answer; the same round without it starts over, because nothing
/// was kept on the connection or the server.
#[tokio::test]
async fn base_28_multi_round_state_lives_only_in_the_request_state_the_client_passes() {
    let server = server(ServerOptions::default());
    let first_connection = TestClient::start(server.clone());
    let first = call(&first_connection, json!({"name": "poem"}), caps()).await.unwrap();
    drop(first_connection);
    let other_connection = TestClient::start(server);
    let answer = json!({"elicit-0": {"action": "accept", "content": {"name": "Ada"}}});
    let second = call(
        &other_connection,
        json!({"name": "poem", "requestState": first["requestState"], "inputResponses": answer}),
        caps(),
    )
    .await
    .unwrap();
    assert!(
        second["inputRequests"]["sample-0"].is_object(),
        "the first answer came with the state: {second:?}"
    );
    let without = call(&other_connection, json!({"name": "poem"}), caps()).await.unwrap();
    assert!(without["inputRequests"]["elicit-0"].is_object(), "without the state, the first question again");
}
