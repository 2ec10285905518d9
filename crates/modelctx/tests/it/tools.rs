//! Tools: listing, generated schemas, argument validation, structured output, errors,
//! extractors, registration checks and changes at run time.

use modelctx_protocol::Method;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{ERAS, Era, builder, first_text, next_notification};
use modelctx::server::{Args, BuildError, Json, RegistrationError, ServerEvent, State, ToolDef};
use modelctx_protocol::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::broadcast;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

fn add_tool() -> ToolDef {
    ToolDef::new("add", |Args(AddArgs { a, b }): Args<AddArgs>| async move { Json(Sum { sum: a + b }) })
        .description("Adds two numbers")
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other}"),
    }
}

fn names(list: &Value) -> Vec<String> {
    list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// TOOL-02: one server lists the same tools on every connection, in either era, and calling
/// them changes nothing about the list.
#[tokio::test]
async fn tool_02_the_list_is_the_same_on_every_connection_and_after_calls() {
    let server =
        builder().tool(add_tool()).tool(ToolDef::new("ping_me", || async { "pong" })).build().unwrap();
    let (modern, legacy) = (Era::Modern.connect(server.clone()).await, Era::Legacy.connect(server).await);
    let before = Era::Modern.ok(&modern, "tools/list", json!({})).await["tools"].clone();
    assert_eq!(Era::Legacy.ok(&legacy, "tools/list", json!({})).await["tools"], before);
    Era::Legacy.ok(&legacy, "tools/call", json!({"name": "ping_me"})).await;
    Era::Modern.ok(&modern, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
    for (era, client) in [(Era::Modern, &modern), (Era::Legacy, &legacy)] {
        assert_eq!(era.ok(client, "tools/list", json!({})).await["tools"], before, "{era:?}");
    }
}

#[tokio::test]
async fn tool_03_tools_list_is_sorted_and_deterministic() {
    let server = || {
        builder()
            .tool(ToolDef::new("zeta", || async { "z" }))
            .tool(ToolDef::new("alpha", || async { "a" }))
            .tool(ToolDef::new("mid.tool", || async { "m" }))
            .tool(ToolDef::new("Beta", || async { "B" }))
            .tool(ToolDef::new("alpha-2", || async { "a2" }))
            .build()
            .unwrap()
    };
    let expected = ["Beta", "alpha", "alpha-2", "mid.tool", "zeta"];
    for era in ERAS {
        let client = era.connect(server()).await;
        let first = era.ok(&client, "tools/list", json!({})).await;
        assert_eq!(names(&first), expected, "{era:?}");
        let second = era.ok(&client, "tools/list", json!({})).await;
        assert_eq!(first["tools"], second["tools"], "{era:?}: the same set lists the same way");
        // Another connection to an equal server sees the same list.
        let other = era.connect(server()).await;
        assert_eq!(era.ok(&other, "tools/list", json!({})).await["tools"], first["tools"], "{era:?}");
        assert!(first.get("nextCursor").is_none(), "{era:?}");
        if era == Era::Legacy {
            // Legacy list params are optional.
            assert_eq!(era.ok(&client, "tools/list", Value::Null).await["tools"], first["tools"]);
        }
    }
}

#[tokio::test]
async fn tool_05_input_schema_is_generated_from_args() {
    for era in ERAS {
        let client = era.connect(builder().tool(add_tool()).build().unwrap()).await;
        let list = era.ok(&client, "tools/list", json!({})).await;
        let add = tool(&list, "add");
        assert_eq!(add["description"], "Adds two numbers");
        let schema = &add["inputSchema"];
        assert_eq!(schema["type"], "object", "{era:?}: {schema}");
        assert_eq!(schema["properties"]["a"]["type"], "number", "{era:?}: {schema}");
        assert_eq!(schema["properties"]["b"]["type"], "number", "{era:?}: {schema}");
        assert_eq!(schema["properties"]["a"]["description"], "The first addend.", "{era:?}: {schema}");
        let mut required: Vec<&str> =
            schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        required.sort_unstable();
        assert_eq!(required, ["a", "b"], "{era:?}");
    }
}

#[tokio::test]
async fn tool_05_a_tool_without_arguments_accepts_only_an_empty_object() {
    let server = || builder().tool(ToolDef::new("now", || async { "it is now" })).build().unwrap();
    for era in ERAS {
        let client = era.connect(server()).await;
        let list = era.ok(&client, "tools/list", json!({})).await;
        assert_eq!(
            tool(&list, "now")["inputSchema"],
            json!({"type": "object", "additionalProperties": false})
        );

        for params in [json!({"name": "now"}), json!({"name": "now", "arguments": {}})] {
            let result = era.ok(&client, "tools/call", params).await;
            assert_eq!(first_text(&result), "it is now", "{era:?}");
            assert!(result.get("isError").is_none(), "{era:?}: {result}");
        }
        let result = era.ok(&client, "tools/call", json!({"name": "now", "arguments": {"x": 1}})).await;
        assert_eq!(result["isError"], true, "{era:?}: {result}");
    }
}

#[tokio::test]
async fn tool_12_sep_1303_invalid_arguments_are_a_tool_error_naming_the_field() {
    for era in ERAS {
        let client = era.connect(builder().tool(add_tool()).build().unwrap()).await;

        let wrong_type =
            era.ok(&client, "tools/call", json!({"name": "add", "arguments": {"a": "one", "b": 2}})).await;
        assert_eq!(wrong_type["isError"], true, "{era:?}: {wrong_type}");
        let text = first_text(&wrong_type);
        assert!(text.contains("/a") && text.contains("one"), "{era:?}: {text}");
        assert!(wrong_type.get("structuredContent").is_none(), "{era:?}");

        let missing = era.ok(&client, "tools/call", json!({"name": "add", "arguments": {"a": 1}})).await;
        assert_eq!(missing["isError"], true, "{era:?}: {missing}");
        assert!(first_text(&missing).contains("\"b\""), "{era:?}: {}", first_text(&missing));

        let no_arguments = era.ok(&client, "tools/call", json!({"name": "add"})).await;
        assert_eq!(no_arguments["isError"], true, "{era:?}: {no_arguments}");

        // The handler never ran on bad input, and good input still works.
        let ok = era.ok(&client, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
        assert_eq!(ok["structuredContent"], json!({"sum": 3.0}), "{era:?}");
    }
}

#[tokio::test]
async fn tool_12_an_unknown_tool_is_invalid_params() {
    for era in ERAS {
        let client = era.connect(builder().tool(add_tool()).build().unwrap()).await;
        let error = era.err(&client, "tools/call", json!({"name": "subtract", "arguments": {}})).await;
        assert_eq!(error.code.0, -32602, "{era:?}: {}", error.message);
        assert!(error.message.contains("subtract"), "{era:?}: {}", error.message);
        // A call without a name is a malformed request, also -32602.
        let error = era.err(&client, "tools/call", json!({"arguments": {}})).await;
        assert_eq!(error.code.0, -32602, "{era:?}: {}", error.message);
    }
}

#[tokio::test]
async fn tool_11_json_output_is_structured_content_with_the_same_json_as_text() {
    for era in ERAS {
        let client = era.connect(builder().tool(add_tool()).build().unwrap()).await;
        let result =
            era.ok(&client, "tools/call", json!({"name": "add", "arguments": {"a": 1.5, "b": 2}})).await;
        assert_eq!(result["structuredContent"], json!({"sum": 3.5}), "{era:?}");
        assert_eq!(result["content"][0]["type"], "text", "{era:?}");
        let text: Value = serde_json::from_str(first_text(&result)).expect("the text block is JSON");
        assert_eq!(text, result["structuredContent"], "{era:?}");

        let list = era.ok(&client, "tools/list", json!({})).await;
        let output = &tool(&list, "add")["outputSchema"];
        assert_eq!(output["type"], "object", "{era:?}: {output}");
        assert_eq!(output["properties"]["sum"]["type"], "number", "{era:?}: {output}");
    }
}

#[tokio::test]
async fn tool_09_output_that_breaks_the_output_schema_is_an_internal_error() {
    let sum_schema =
        || object(json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}));
    let server = || {
        builder()
            .tool(
                ToolDef::new("liar", || async { Json(json!({"sum": "three"})) }).output_schema(sum_schema()),
            )
            .tool(ToolDef::new("mute", || async { "no structure at all" }).output_schema(sum_schema()))
            .tool(ToolDef::new("honest", || async { Json(json!({"sum": 3})) }).output_schema(sum_schema()))
            .build()
            .unwrap()
    };
    for era in ERAS {
        let client = era.connect(server()).await;
        for name in ["liar", "mute"] {
            let error = era.err(&client, "tools/call", json!({"name": name})).await;
            assert_eq!(error.code.0, -32603, "{era:?} {name}: {}", error.message);
            assert!(error.message.contains("outputSchema"), "{era:?} {name}: {}", error.message);
        }
        let result = era.ok(&client, "tools/call", json!({"name": "honest"})).await;
        assert_eq!(result["structuredContent"], json!({"sum": 3}), "{era:?}");
    }
}

#[tokio::test]
async fn tool_12_a_handler_error_is_an_is_error_result() {
    let server = || {
        builder()
            .tool(ToolDef::new("fail", || async { Err::<String, _>("the disk is full") }))
            .tool(ToolDef::new("fail_structured", || async {
                Err::<Json<Sum>, _>(format!("cannot add {}", "today"))
            }))
            .build()
            .unwrap()
    };
    for era in ERAS {
        let client = era.connect(server()).await;
        let result = era.ok(&client, "tools/call", json!({"name": "fail"})).await;
        assert_eq!(result["isError"], true, "{era:?}");
        assert_eq!(first_text(&result), "the disk is full", "{era:?}");

        // A failure is not checked against the outputSchema: it stays a tool error.
        let result = era.ok(&client, "tools/call", json!({"name": "fail_structured"})).await;
        assert_eq!(result["isError"], true, "{era:?}: {result}");
        assert_eq!(first_text(&result), "cannot add today", "{era:?}");
    }
}

#[derive(Clone)]
struct Counter(Arc<AtomicUsize>);

#[derive(Clone)]
struct NeverRegistered;

#[tokio::test]
async fn state_extractor_reaches_the_registered_state() {
    let counter = Counter(Arc::new(AtomicUsize::new(0)));
    let server = builder()
        .state(counter.clone())
        .tool(ToolDef::new("count", |State(Counter(count)): State<Counter>| async move {
            (count.fetch_add(1, Ordering::SeqCst) + 1).to_string()
        }))
        .tool(ToolDef::new("misconfigured", |State(_): State<NeverRegistered>| async { "unreachable" }))
        .build()
        .unwrap();
    let modern = Era::Modern.connect(server.clone()).await;
    let legacy = Era::Legacy.connect(server).await;
    assert_eq!(first_text(&Era::Modern.ok(&modern, "tools/call", json!({"name": "count"})).await), "1");
    assert_eq!(first_text(&Era::Legacy.ok(&legacy, "tools/call", json!({"name": "count"})).await), "2");
    assert_eq!(first_text(&Era::Modern.ok(&modern, "tools/call", json!({"name": "count"})).await), "3");
    assert_eq!(counter.0.load(Ordering::SeqCst), 3, "one state, shared by every connection");

    // Missing state is the server's fault, not the model's: a JSON-RPC internal error.
    let error = Era::Modern.err(&modern, "tools/call", json!({"name": "misconfigured"})).await;
    assert_eq!(error.code, modelctx_protocol::jsonrpc::ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("NeverRegistered"), "{}", error.message);
}

#[tokio::test]
async fn tool_09_non_object_structured_content_is_for_modern_requests_only() {
    // §19 #13: 2026-07-28 allows any JSON value; 2025-11-25 clients accept only objects.
    let server = || builder().tool(ToolDef::new("answer", || async { Json(42u32) })).build().unwrap();

    let client = Era::Modern.connect(server()).await;
    let result = Era::Modern.ok(&client, "tools/call", json!({"name": "answer"})).await;
    assert_eq!(result["structuredContent"], 42);
    assert_eq!(first_text(&result), "42");
    let list = Era::Modern.ok(&client, "tools/list", json!({})).await;
    assert_eq!(tool(&list, "answer")["outputSchema"]["type"], "integer");

    let client = Era::Legacy.connect(server()).await;
    let error = Era::Legacy.err(&client, "tools/call", json!({"name": "answer"})).await;
    assert_eq!(error.code.0, -32603, "{}", error.message);
    assert!(error.message.contains("object"), "{}", error.message);
    // A 2025-11-25 `outputSchema` must have `"type": "object"` at its root, so the legacy
    // listing leaves a non-object one out rather than break the client's parsing of the list.
    let list = Era::Legacy.ok(&client, "tools/list", json!({})).await;
    let answer = tool(&list, "answer");
    assert!(answer.get("outputSchema").is_none(), "{answer}");
    assert_eq!(answer["inputSchema"]["type"], "object");
}

fn build_error(tool: ToolDef) -> RegistrationError {
    match builder().tool(tool).build() {
        Ok(_) => panic!("the build succeeded; a registration error was expected"),
        Err(BuildError::Registration(error)) => error,
        Err(other) => panic!("expected a registration error, got {other}"),
    }
}

#[tokio::test]
async fn tool_06_build_refuses_a_bad_tool_name() {
    for name in ["has space", "", "comma,separated", "ünïcode", &"x".repeat(129)] {
        match build_error(ToolDef::new(name, || async { "" })) {
            RegistrationError::Tool { name: refused, reason } => {
                assert_eq!(refused, name);
                assert!(reason.contains("tool names"), "{reason}");
            }
            other => panic!("{name:?}: {other}"),
        }
    }
    // The longest and most varied valid names are accepted.
    builder()
        .tool(ToolDef::new("x".repeat(128), || async { "" }))
        .tool(ToolDef::new("A-z_0.9", || async { "" }))
        .build()
        .expect("valid names");
}

#[tokio::test]
async fn tool_05_build_refuses_an_input_schema_that_is_not_an_object_schema() {
    for schema in [json!({"type": "string"}), json!({}), json!({"type": ["object", "null"]})] {
        let def = ToolDef::new("t", || async { "" }).input_schema(object(schema.clone()));
        match build_error(def) {
            RegistrationError::Tool { reason, .. } => {
                assert!(reason.contains("inputSchema"), "{schema}: {reason}")
            }
            other => panic!("{schema}: {other}"),
        }
    }
}

/// A schema that does not compile fails the build when schemas are checked at registration
/// (the default of debug builds), and otherwise fails the tool's first call with `-32603`
/// naming the schema, while the server's other tools answer.
#[tokio::test]
async fn a_broken_schema_fails_the_build_when_checked_and_the_call_when_compiled_on_use() {
    let broken = || {
        let schema = json!({"type": "object", "$schema": "https://example.com/no-such-dialect"});
        ToolDef::new("broken", || async { "never runs" }).input_schema(object(schema))
    };
    let checked = modelctx::server::ServerOptions { check_schemas: true, ..Default::default() };
    match builder().options(checked).tool(broken()).build() {
        Err(BuildError::Registration(RegistrationError::Tool { name, reason })) => {
            assert_eq!(name, "broken");
            assert!(reason.contains("inputSchema") && reason.contains("no-such-dialect"), "{reason}");
        }
        Err(other) => panic!("expected a registration error, got {other}"),
        Ok(_) => panic!("a broken schema passed the registration check"),
    }

    let on_use = modelctx::server::ServerOptions { check_schemas: false, ..Default::default() };
    let server = builder().options(on_use).tool(broken()).tool(add_tool()).build().expect("not checked yet");
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let error = era.err(&client, "tools/call", json!({"name": "broken", "arguments": {}})).await;
        assert_eq!(error.code.0, -32603, "{error:?}");
        assert!(error.message.contains("broken") && error.message.contains("inputSchema"), "{error:?}");
        let sum = era.ok(&client, "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})).await;
        assert_eq!(sum["structuredContent"]["sum"], 3.0);
    }
}

#[tokio::test]
async fn http_26_build_refuses_an_invalid_x_mcp_header() {
    let bad_schemas = [
        // `number` properties cannot be mirrored into a header.
        json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
        // A header name must be an RFC 9110 token.
        json!({"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "bad name"}}}),
        // Names are unique, case-insensitively.
        json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "region"}}}),
    ];
    for schema in bad_schemas {
        let def = ToolDef::new("t", || async { "" }).input_schema(object(schema.clone()));
        match build_error(def) {
            RegistrationError::Tool { reason, .. } => {
                assert!(reason.contains("x-mcp-header"), "{schema}: {reason}")
            }
            other => panic!("{schema}: {other}"),
        }
    }
    let good = json!({"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "Region"}}});
    builder()
        .tool(ToolDef::new("t", || async { "" }).input_schema(object(good)))
        .build()
        .expect("valid header");
}

#[tokio::test]
async fn tool_06_build_refuses_a_duplicate_name() {
    let error = builder()
        .tool(ToolDef::new("twice", || async { "1" }))
        .tool(ToolDef::new("twice", || async { "2" }))
        .build()
        .err()
        .expect("a duplicate is refused");
    assert!(
        matches!(error, BuildError::Registration(RegistrationError::Duplicate { kind: "tool", ref name }) if name == "twice"),
        "{error}"
    );
}

#[tokio::test]
async fn tool_04_add_and_remove_tool_at_run_time_change_the_list_and_notify_sessions() {
    let server = builder().tool(ToolDef::new("first", || async { "1" })).build().unwrap();
    let modern = Era::Modern.connect(server.clone()).await;
    let legacy = Era::Legacy.connect(server.clone()).await;

    server.add_tool(ToolDef::new("second", || async { "2" })).unwrap();
    assert_eq!(next_notification(&legacy).await.method, Method::ToolListChanged);
    for (era, client) in [(Era::Modern, &modern), (Era::Legacy, &legacy)] {
        assert_eq!(names(&era.ok(client, "tools/list", json!({})).await), ["first", "second"], "{era:?}");
        assert_eq!(first_text(&era.ok(client, "tools/call", json!({"name": "second"})).await), "2");
    }

    assert!(server.remove_tool("first"));
    assert_eq!(next_notification(&legacy).await.method, Method::ToolListChanged);
    for (era, client) in [(Era::Modern, &modern), (Era::Legacy, &legacy)] {
        assert_eq!(names(&era.ok(client, "tools/list", json!({})).await), ["second"], "{era:?}");
        assert_eq!(era.err(client, "tools/call", json!({"name": "first"})).await.code.0, -32602);
    }

    // Removing a tool that is not there changes nothing and announces nothing; a refused
    // addition neither. The next announcement is the next real change.
    let mut events = server.events();
    assert!(!server.remove_tool("first"));
    assert!(server.add_tool(ToolDef::new("bad name", || async { "" })).is_err());
    assert_eq!(server.tool_names(), ["second"]);
    assert_eq!(events.try_recv(), Err(broadcast::error::TryRecvError::Empty), "no-ops publish nothing");
    server.add_tool(ToolDef::new("third", || async { "3" })).unwrap();
    assert_eq!(next_notification(&legacy).await.method, Method::ToolListChanged);
    assert_eq!(legacy.take_notifications().await, Vec::new());
    assert_eq!(server.tool_names(), ["second", "third"]);
    assert_eq!(events.try_recv(), Ok(ServerEvent::ToolsChanged));
}
