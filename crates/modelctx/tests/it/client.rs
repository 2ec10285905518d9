//! The client against our own server over an in-memory pipe: era negotiation (CHECKLIST
//! §10.1) with modern, legacy-only and pinned servers, typed calls, timeouts and
//! cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::client::{connect, options, scripted, scripted_with};

use modelctx::client::ClientHandlers;
use modelctx::client::{Client, ClientError, ClientOptions, EraMode};
use modelctx::protocol::era::ServerVersions;
use modelctx::protocol::model::ElicitRequest;
use modelctx::protocol::types::Root;
use modelctx::protocol::{Era, ProtocolVersion};
use modelctx::server::{InputError, RequestContext, Server, ToolDef};
use serde_json::json;

fn server_counting(versions: ServerVersions, abandoned: Arc<AtomicUsize>) -> Server {
    Server::builder("client-test", "1")
        .versions(versions)
        .tool(ToolDef::new("hello", || async { "hello" }))
        .tool(ToolDef::new("ask", ask))
        .tool(crate::common::stall(abandoned))
        .build()
        .unwrap()
}

/// Asks the user for a name, then lists the client's roots.
async fn ask(ctx: RequestContext) -> Result<String, InputError> {
    let answer = ctx.elicit(crate::common::name_form()).await?;
    let roots = ctx.list_roots().await?;
    let name = serde_json::to_value(&answer.content).unwrap()["name"].clone();
    Ok(format!("{:?} {name} with {} root(s)", answer.action, roots.len()))
}

fn server(versions: ServerVersions) -> Server {
    server_counting(versions, Arc::default())
}

/// Waits (bounded) until `counter` reaches `value`.
async fn reaches(counter: &AtomicUsize, value: usize) -> bool {
    for _ in 0..200 {
        if counter.load(Ordering::SeqCst) >= value {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn ver_auto_picks_2026_07_28_from_a_modern_server() {
    let client = connect(server(ServerVersions::default()), options()).await.unwrap();
    assert_eq!(client.server().version, ProtocolVersion::V2026_07_28);
    assert_eq!(client.server().info.as_ref().map(|i| i.name.as_str()), Some("client-test"));
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["ask", "hello", "stall"]);
    let result = client.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "hello");
}

#[tokio::test]
async fn ver_auto_falls_back_to_initialize_when_the_server_is_legacy_only() {
    let legacy_only = ServerVersions::new([ProtocolVersion::V2025_11_25]);
    let client = connect(server(legacy_only), options()).await.unwrap();
    assert_eq!((client.era(), client.server().version), (Era::Legacy, ProtocolVersion::V2025_11_25));
    assert!(client.server().capabilities.tools.is_some());
    client.ping().await.unwrap();
    let result = client.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "hello");
}

#[tokio::test]
async fn a_pinned_era_is_kept_or_refused() {
    let legacy =
        connect(server(ServerVersions::default()), ClientOptions { mode: EraMode::Legacy, ..options() });
    assert_eq!(legacy.await.unwrap().era(), Era::Legacy, "a modern server still serves initialize");
    let legacy_only = server(ServerVersions::new([ProtocolVersion::V2025_11_25]));
    let modern = connect(legacy_only, ClientOptions { mode: EraMode::Modern, ..options() }).await;
    assert!(modern.as_ref().is_err_and(ClientError::is_incompatible), "{:?}", modern.err());
}

#[tokio::test]
async fn a_call_past_its_time_limit_is_cancelled_and_the_connection_goes_on() {
    let options = ClientOptions { request_timeout: Duration::from_millis(100), ..options() };
    let abandoned = Arc::new(AtomicUsize::new(0));
    let client =
        connect(server_counting(ServerVersions::default(), abandoned.clone()), options).await.unwrap();
    let stalled = client.call_tool("stall", json!({})).await;
    assert!(stalled.as_ref().is_err_and(ClientError::is_timeout), "{stalled:?}");
    assert!(reaches(&abandoned, 1).await, "the server heard notifications/cancelled");
    // Dropping a call's future cancels it too.
    let dropped = tokio::time::timeout(Duration::from_millis(20), client.call_tool("stall", json!({}))).await;
    assert!(dropped.is_err());
    assert!(reaches(&abandoned, 2).await, "a dropped call is cancelled on the server");
    client.ping().await.unwrap();
    let error = client.call_tool("no-such-tool", json!({})).await.unwrap_err();
    assert!(error.to_string().contains("no-such-tool"), "{error}");
}

fn answering() -> ClientHandlers {
    ClientHandlers::default()
        .on_elicit(|request| async move {
            assert!(matches!(request, ElicitRequest::Form { ref message, .. } if message == "Name?"));
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap()
        })
        .on_roots(|| async { vec![serde_json::from_value::<Root>(json!({"uri": "file:///work"})).unwrap()] })
}

#[tokio::test]
async fn handlers_answer_the_server_in_both_eras() {
    for (versions, era) in [
        (ServerVersions::default(), Era::Modern),
        (ServerVersions::new([ProtocolVersion::V2025_11_25]), Era::Legacy),
    ] {
        let client =
            connect(server(versions), ClientOptions { handlers: answering(), ..options() }).await.unwrap();
        assert_eq!(client.era(), era);
        // Modern: two rounds of input (MRTR) with requestState echoed; legacy: live requests.
        let result = client.call_tool("ask", json!({})).await.unwrap();
        assert_eq!(
            serde_json::to_value(&result.content).unwrap()[0]["text"],
            "Accept \"Ada\" with 1 root(s)",
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn without_handlers_the_server_is_told_the_client_cannot_answer() {
    for versions in [ServerVersions::default(), ServerVersions::new([ProtocolVersion::V2025_11_25])] {
        let client = connect(server(versions), options()).await.unwrap();
        let outcome = client.call_tool("ask", json!({})).await;
        let text = match outcome {
            Ok(result) => serde_json::to_value(&result.content).unwrap()[0]["text"].to_string(),
            Err(error) => error.to_string(),
        };
        assert!(text.contains("capabilit"), "the missing capability is the reason: {text}");
    }
}

/// PAGE-01, PAGE-02, PAGE-03: the client follows `nextCursor` whatever the page sizes, sends
/// each cursor back exactly as it came (an opaque string, here one with characters a parser
/// might touch), and goes on after an empty-string cursor: only an absent `nextCursor` ends
/// the list.
#[tokio::test]
async fn page_01_page_02_page_03_the_client_follows_any_cursor_to_the_end() {
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = sent.clone();
    let tool = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
    let client = scripted(json!({"tools": {}}), move |_, params| {
        let cursor = params.get("cursor").and_then(serde_json::Value::as_str).map(str::to_owned);
        seen.lock().unwrap().push(cursor.clone());
        let page = match cursor.as_deref() {
            None => json!({"tools": [tool("a")], "nextCursor": ""}),
            Some("") => json!({"tools": [tool("b"), tool("c"), tool("d")], "nextCursor": " +/=%2F?x "}),
            Some(_) => json!({"tools": [tool("e")]}),
        };
        (
            Vec::new(),
            json!({"resultType": "complete", "tools": page["tools"], "nextCursor": page["nextCursor"]}),
        )
    })
    .await;
    let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e"]);
    assert_eq!(*sent.lock().unwrap(), [None, Some(String::new()), Some(" +/=%2F?x ".to_owned())]);
}

/// META-01: every request a 2026-07-28 client sends carries the protocol version and its
/// capabilities in `_meta`.
#[tokio::test]
async fn meta_01_every_modern_request_carries_version_and_capabilities() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let client = scripted(json!({"tools": {}, "resources": {}, "prompts": {}}), move |method, params| {
        record.lock().unwrap().push((method.to_owned(), params["_meta"].clone()));
        let result = match method {
            "tools/list" => json!({"resultType": "complete", "tools": []}),
            "resources/list" => json!({"resultType": "complete", "resources": []}),
            "prompts/list" => json!({"resultType": "complete", "prompts": []}),
            _ => json!({"resultType": "complete", "content": []}),
        };
        (Vec::new(), result)
    })
    .await;
    client.list_tools().await.unwrap();
    client.list_resources().await.unwrap();
    client.list_prompts().await.unwrap();
    client.call_tool("anything", json!({})).await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "{seen:?}");
    for (method, meta) in seen.iter() {
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{method}: {meta}");
        assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object(), "{method}: {meta}");
    }
}

/// The `clientCapabilities` a client with `handlers` sends on its modern requests.
async fn declared_capabilities(handlers: ClientHandlers) -> serde_json::Value {
    let seen = Arc::new(std::sync::Mutex::new(serde_json::Value::Null));
    let record = seen.clone();
    let client_options = ClientOptions { handlers, ..options() };
    let client = scripted_with(json!({"tools": {}}), client_options, move |_, params| {
        *record.lock().unwrap() = params["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone();
        (Vec::new(), json!({"resultType": "complete", "tools": []}))
    })
    .await;
    client.list_tools().await.unwrap();
    seen.lock().unwrap().clone()
}

/// ELIC-03, ELIC-04, SAMP-01, ROOTS-01: a client declares, on each request, exactly what it
/// can answer: elicitation (with at least one mode) only with an elicitation handler,
/// sampling only with a sampling handler, roots only with a roots handler.
#[tokio::test]
async fn elic_03_04_samp_01_roots_01_the_client_declares_what_it_can_answer() {
    let none = declared_capabilities(ClientHandlers::default()).await;
    for absent in ["elicitation", "sampling", "roots"] {
        assert!(none.get(absent).is_none(), "{absent} declared without a handler: {none}");
    }
    let all = ClientHandlers::default()
        .on_elicit(|_| async {
            modelctx::protocol::v2026::ElicitResult {
                action: modelctx::protocol::types::ElicitAction::Decline,
                content: None,
            }
        })
        .on_sample(|_| async { Err(modelctx::protocol::jsonrpc::ErrorObject::internal("no model here")) })
        .on_roots(|| async { Vec::<Root>::new() });
    let declared = declared_capabilities(all).await;
    let elicitation = declared["elicitation"].as_object().expect("elicitation declared");
    assert!(
        elicitation.is_empty() || elicitation.contains_key("form") || elicitation.contains_key("url"),
        "{declared}"
    );
    assert!(declared["sampling"].is_object() && declared["roots"].is_object(), "{declared}");
}

/// ELIC-07: an elicitation without `mode` is a form: the client's handler gets one.
#[tokio::test]
async fn elic_07_an_elicitation_without_a_mode_is_a_form() {
    let asked = Arc::new(std::sync::Mutex::new(None));
    let record = asked.clone();
    let handlers = ClientHandlers::default().on_elicit(move |request: ElicitRequest| {
        *record.lock().unwrap() = Some(request);
        async {
            modelctx::protocol::v2026::ElicitResult {
                action: modelctx::protocol::types::ElicitAction::Decline,
                content: None,
            }
        }
    });
    let rounds = Arc::new(AtomicUsize::new(0));
    let client = scripted_with(json!({"tools": {}}), ClientOptions { handlers, ..options() }, move |_, _| {
        let result = if rounds.fetch_add(1, Ordering::SeqCst) == 0 {
            json!({"resultType": "input_required", "inputRequests": {"q": {"method": "elicitation/create",
                "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}}})
        } else {
            json!({"resultType": "complete", "content": []})
        };
        (Vec::new(), result)
    })
    .await;
    client.call_tool("ask", json!({})).await.unwrap();
    let asked = asked.lock().unwrap().clone().expect("the handler was asked");
    assert!(matches!(asked, ElicitRequest::Form { ref message, .. } if message == "Name?"), "{asked:?}");
}

/// Lists `weather` with an `outputSchema` and answers its calls with `structured`.
async fn lying_server(structured: serde_json::Value) -> Client {
    lying_server_counting(structured, Arc::default()).await
}

/// [`lying_server`], counting its listings in `listed`; a call with `{"change": true}` is
/// answered after `notifications/tools/list_changed`.
async fn lying_server_counting(structured: serde_json::Value, listed: Arc<AtomicUsize>) -> Client {
    scripted(json!({"tools": {"listChanged": true}}), move |method, params| match method {
        "tools/list" => {
            listed.fetch_add(1, Ordering::SeqCst);
            let tools = json!([{"name": "weather", "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}},
                    "required": ["celsius"]}}]);
            (Vec::new(), json!({"resultType": "complete", "tools": tools}))
        }
        _ => {
            let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
            let notes = if params["arguments"]["change"] == true { vec![changed] } else { Vec::new() };
            (notes, json!({"resultType": "complete", "content": [], "structuredContent": structured}))
        }
    })
    .await
}

#[tokio::test]
async fn tool_10_structured_content_is_checked_against_the_output_schema_listed_or_not() {
    let honest = lying_server(json!({"celsius": 21.5})).await;
    honest.list_tools().await.unwrap();
    assert_eq!(
        honest.call_tool("weather", json!({})).await.unwrap().structured_content,
        Some(json!({"celsius": 21.5}))
    );

    // A tool called by name, never listed: the client lists the tools once to know its schema
    // (it used to let the first calls through unchecked).
    let listed = Arc::new(AtomicUsize::new(0));
    let lying = lying_server_counting(json!({"celsius": "warm"}), listed.clone()).await;
    let error = lying.call_tool("weather", json!({})).await.unwrap_err().to_string();
    assert!(error.contains("tool weather: structuredContent breaks its outputSchema: /celsius"), "{error}");
    assert!(lying.call_tool("weather", json!({})).await.is_err());
    assert_eq!(listed.load(Ordering::SeqCst), 1, "listed once, then known");
    // A list change makes the schemas stale: the next check lists again.
    assert!(lying.call_tool("weather", json!({"change": true})).await.is_err());
    assert_eq!(listed.load(Ordering::SeqCst), 2, "listed again after the change");
}

#[tokio::test]
async fn base_08_an_unknown_result_type_is_an_invalid_result() {
    let client =
        scripted(json!({"tools": {}}), |_, _| (Vec::new(), json!({"resultType": "task", "content": []})))
            .await;
    let error = client.call_tool("anything", json!({})).await.unwrap_err();
    assert!(error.is_invalid_result(), "{error}");
    assert!(error.to_string().contains("\"task\""), "{error}");
}

/// BASE-10: the `resultType`s a client accepts are the core ones and those of the extensions
/// it declared: `"task"` is an invalid result for a client without the tasks extension
/// (BASE-08) and a task to follow for one that declared it.
#[tokio::test]
async fn base_10_an_extension_result_type_is_accepted_once_the_extension_is_declared() {
    let respond = |method: &str, _: &serde_json::Value| match method {
        "tools/call" => (
            Vec::new(),
            json!({"resultType": "task", "taskId": "t1", "status": "working", "pollIntervalMs": 10}),
        ),
        _ => (
            Vec::new(),
            json!({"resultType": "complete", "taskId": "t1", "status": "completed",
                   "result": {"content": [{"type": "text", "text": "done later"}]}}),
        ),
    };
    let without = scripted(json!({"tools": {}}), respond).await;
    assert!(without.call_tool("slow", json!({})).await.unwrap_err().is_invalid_result());
    let declared = scripted_with(
        json!({"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
        ClientOptions { tasks: true, ..options() },
        respond,
    )
    .await;
    let result = declared.call_tool("slow", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "done later");
}

/// BASE-09: a result without `resultType` (an older server's) is a complete one.
#[tokio::test]
async fn base_09_an_absent_result_type_is_complete() {
    let client = scripted(json!({"tools": {}}), |_, _| {
        (Vec::new(), json!({"content": [{"type": "text", "text": "done"}]}))
    })
    .await;
    let result = client.call_tool("anything", json!({})).await.unwrap();
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "done");
}

/// PROG-01: concurrent requests get distinct progress tokens.
#[tokio::test]
async fn prog_01_concurrent_requests_have_distinct_progress_tokens() {
    let tokens = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = tokens.clone();
    let client = scripted(json!({"tools": {}}), move |method, params| {
        // The calls' own requests (not the listing the client makes to check their results).
        if method == "tools/call" {
            record.lock().unwrap().push(params["_meta"]["progressToken"].clone());
        }
        (Vec::new(), json!({"resultType": "complete", "content": []}))
    })
    .await;
    let (a, b) = tokio::join!(
        client.call_tool_with_progress("a", json!({}), |_| {}),
        client.call_tool_with_progress("b", json!({}), |_| {})
    );
    a.unwrap();
    b.unwrap();
    let tokens = tokens.lock().unwrap().clone();
    assert_eq!(tokens.len(), 2);
    assert!(tokens.iter().all(|t| t.is_string() || t.is_i64()), "{tokens:?}");
    assert_ne!(tokens[0], tokens[1]);
}

/// MRTR-14: two calls asked for input at once each retry with their own `requestState`.
#[tokio::test]
async fn mrtr_14_parallel_calls_keep_their_own_request_state() {
    let retries = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = retries.clone();
    let handlers = ClientHandlers::default().on_roots(|| async { Vec::<Root>::new() });
    let client = scripted_with(
        json!({"tools": {}}),
        ClientOptions { handlers, ..options() },
        move |method, params| {
            if method == "tools/list" {
                return (Vec::new(), json!({"resultType": "complete", "tools": []}));
            }
            let name = params["name"].as_str().unwrap_or_default().to_owned();
            let result = match params.get("requestState").and_then(serde_json::Value::as_str) {
                None => json!({"resultType": "input_required", "requestState": format!("state-of-{name}"),
                           "inputRequests": {"roots": {"method": "roots/list"}}}),
                Some(state) => {
                    record.lock().unwrap().push((name.clone(), state.to_owned()));
                    json!({"resultType": "complete", "content": []})
                }
            };
            (Vec::new(), result)
        },
    )
    .await;
    let (a, b) = tokio::join!(client.call_tool("first", json!({})), client.call_tool("second", json!({})));
    a.unwrap();
    b.unwrap();
    let mut retries = retries.lock().unwrap().clone();
    retries.sort();
    assert_eq!(
        retries,
        [
            ("first".to_owned(), "state-of-first".to_owned()),
            ("second".to_owned(), "state-of-second".to_owned())
        ]
    );
}

/// A server line over the client's limit is discarded as it is read (never buffered whole),
/// and the answers after it still arrive.
#[tokio::test]
async fn a_server_line_over_the_limit_is_discarded_and_the_client_goes_on() {
    let mut client_options = options();
    client_options.limits.max_message_bytes = 16 * 1024;
    let client = scripted_with(json!({"tools": {}}), client_options, |_, _| {
        let flood = json!({"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"level": "info", "data": "x".repeat(200 * 1024)}});
        (vec![flood], json!({"resultType": "complete", "content": [{"type": "text", "text": "after"}]}))
    })
    .await;
    let result = client.call_tool("any", json!({})).await.expect("the answer after the flood");
    assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "after");
}

/// A scripted 2025-11-25 server on a duplex pipe: it answers `initialize` when `answers`
/// says so and reports every message the client sends; returns the client's end.
fn scripted_legacy(
    answers: bool,
) -> (tokio::io::DuplexStream, tokio::sync::mpsc::UnboundedReceiver<serde_json::Value>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, mut write) = tokio::io::split(server_end);
    let (seen, heard) = tokio::sync::mpsc::unbounded_channel::<serde_json::Value>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if answers && message["method"] == "initialize" {
                let result = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "serverInfo": {"name": "scripted", "version": "1"}});
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
            }
            let _ = seen.send(message);
        }
    });
    (client_end, heard)
}

/// ROOTS-03: a 2025-11-25 client that declared `roots.listChanged` sends
/// `notifications/roots/list_changed` when the host's roots change; in 2026-07-28 there is
/// nothing to send (servers ask for roots with each request that needs them).
#[tokio::test]
async fn roots_03_a_legacy_client_tells_the_server_its_roots_changed() {
    let (client_end, mut heard) = scripted_legacy(true);
    let handlers = ClientHandlers::default()
        .on_roots(|| async { vec![serde_json::from_value(json!({"uri": "file:///work"})).unwrap()] })
        .roots_list_changed();
    let options = ClientOptions { mode: EraMode::Legacy, handlers, ..options() };
    let (read, write) = tokio::io::split(client_end);
    let client = Client::connect(read, write, options).await.unwrap();
    let initialize = tokio::time::timeout(Duration::from_secs(5), heard.recv()).await.unwrap().unwrap();
    assert_eq!(initialize["params"]["capabilities"]["roots"], json!({"listChanged": true}));
    assert!(client.roots_changed().await.unwrap(), "sent");
    let told = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let message = heard.recv().await.unwrap();
            if message["method"] == "notifications/roots/list_changed" {
                return message;
            }
        }
    })
    .await
    .expect("the notification within 5 s");
    assert!(told.get("id").is_none(), "a notification");
}

/// LIFE-09: an `initialize` past the client's patience fails the connection, and is never
/// cancelled (any other request would be).
#[tokio::test]
async fn life_09_an_initialize_that_times_out_is_not_cancelled() {
    let (client_end, mut heard) = scripted_legacy(false);
    let options =
        ClientOptions { mode: EraMode::Legacy, request_timeout: Duration::from_millis(100), ..options() };
    let (read, write) = tokio::io::split(client_end);
    let failed = Client::connect(read, write, options).await;
    assert!(failed.is_err(), "no answer to initialize, no connection");
    // Everything the client sent, once its side of the pipe closed.
    let mut sent = Vec::new();
    while let Ok(Some(message)) = tokio::time::timeout(Duration::from_secs(2), heard.recv()).await {
        sent.push(message["method"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(sent.first().map(String::as_str), Some("initialize"), "{sent:?}");
    assert!(!sent.iter().any(|m| m == "notifications/cancelled"), "initialize was cancelled: {sent:?}");
}

/// SAMP-04, SAMP-05: a server's sampling request whose conversation breaks the tool rules
/// (an unanswered tool use, results mixed with text) is refused `-32602` naming the rule;
/// the host's model is never asked.
#[tokio::test]
async fn samp_04_05_the_client_refuses_a_conversation_breaking_the_tool_rules() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, mut write) = tokio::io::split(server_end);
    let (told, answered) = tokio::sync::oneshot::channel::<serde_json::Value>();
    tokio::spawn(async move {
        let mut told = Some(told);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            let reply = match message["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"}}}),
                Some("tools/call") => {
                    json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {
                    "maxTokens": 10, "messages": [
                        {"role": "assistant", "content": [{"type": "tool_use", "id": "w1", "name": "weather", "input": {}}]},
                        {"role": "user", "content": [{"type": "tool_result", "toolUseId": "w1", "content": []},
                                                     {"type": "text", "text": "and also"}]}]}})
                }
                _ if message["id"] == "s1" => {
                    if let Some(told) = told.take() {
                        let _ = told.send(message);
                    }
                    continue;
                }
                _ => continue,
            };
            write.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
        }
    });
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let handlers = ClientHandlers::default().sampling_tools().on_sample(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Err(modelctx::protocol::jsonrpc::ErrorObject::internal("never asked")) }
    });
    let options = ClientOptions { mode: EraMode::Legacy, handlers, ..options() };
    let (read, write) = tokio::io::split(client_end);
    let client = Client::connect(read, write, options).await.unwrap();
    let call = tokio::spawn(async move { client.call_tool("agent", json!({})).await });
    let answer = tokio::time::timeout(Duration::from_secs(5), answered).await.unwrap().unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("mixes tool results"), "{answer}");
    assert_eq!(asked.load(Ordering::SeqCst), 0, "the model was never asked");
    call.abort();
}

/// ROOTS-04: the client offers only roots that name their directory plainly: a root whose
/// path climbs out of itself (`..`, plain or percent-encoded) is never sent; the server is
/// answered an error instead, in both eras.
#[tokio::test]
async fn roots_04_a_root_that_climbs_out_of_itself_is_never_offered() {
    for (versions, era) in [
        (ServerVersions::default(), Era::Modern),
        (ServerVersions::new([ProtocolVersion::V2025_11_25]), Era::Legacy),
    ] {
        let climbing = ClientHandlers::default()
            .on_elicit(|_| async {
                serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap()
            })
            .on_roots(|| async {
                vec![
                    serde_json::from_value::<Root>(json!({"uri": "file:///work"})).unwrap(),
                    serde_json::from_value::<Root>(json!({"uri": "file:///work/%2E%2E/etc"})).unwrap(),
                ]
            });
        let client =
            connect(server(versions), ClientOptions { handlers: climbing, ..options() }).await.unwrap();
        assert_eq!(client.era(), era);
        let outcome = client.call_tool("ask", json!({})).await;
        let text = match outcome {
            Ok(result) => serde_json::to_value(&result.content).unwrap()[0]["text"].to_string(),
            Err(error) => error.to_string(),
        };
        assert!(text.contains("has . or .. segments"), "{era:?}: {text}");
        assert!(!text.contains("2 root(s)"), "{era:?}: {text}");
    }
}

/// LIFE-08: a client uses only what was negotiated: a method behind a capability the server
/// did not declare is refused before anything is sent, naming the capability.
#[tokio::test]
async fn life_08_methods_of_undeclared_capabilities_are_never_sent() {
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&sent);
    let client = scripted(json!({"tools": {}}), move |method, _| {
        seen.lock().unwrap().push(method.to_owned());
        (Vec::new(), json!({"tools": [], "resultType": "complete"}))
    })
    .await;
    client.list_tools().await.unwrap();
    let refused = client
        .complete(json!({"type": "ref/prompt", "name": "p"}), json!({"name": "a", "value": ""}), None)
        .await;
    assert!(refused.unwrap_err().to_string().contains("`completions`"));
    assert!(client.list_prompts().await.unwrap_err().to_string().contains("`prompts`"));
    assert!(client.read_resource("file:///x").await.unwrap_err().to_string().contains("`resources`"));
    assert_eq!(*sent.lock().unwrap(), ["tools/list"], "only the declared capability was used");
}

/// A listing is bounded in bytes over all its pages (`ClientOptions::max_listing_bytes`): a
/// server listing more is an error naming the bound (a hostile one could have sent 1,000
/// pages of 4 MiB, all kept).
#[tokio::test]
async fn a_listing_past_its_byte_bound_is_an_error() {
    use modelctx::server::{ServerOptions, ToolDef};
    let mut builder = modelctx::server::Server::builder("big", "1")
        .options(ServerOptions { page_size: 2, ..ServerOptions::default() });
    for n in 0..20 {
        builder =
            builder.tool(ToolDef::new(format!("tool{n}"), || async { "" }).description("d".repeat(1000)));
    }
    let server = builder.build().unwrap();
    let bounded =
        modelctx::client::ClientOptions { max_listing_bytes: 5000, ..crate::common::client::options() };
    let client = crate::common::client::connect(server.clone(), bounded).await.unwrap();
    let refused = client.list_tools().await.unwrap_err().to_string();
    assert!(refused.contains("max_listing_bytes"), "{refused}");
    let client = crate::common::client::connect(server, crate::common::client::options()).await.unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 20);
}
