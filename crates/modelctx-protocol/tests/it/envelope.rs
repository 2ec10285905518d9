//! The strict JSON-RPC envelope: every rejection rule with its precise error, property tests
//! that what we serialise parses back equal, and that no input makes the parser panic.

use modelctx_protocol::jsonrpc::{
    ErrorCode, ErrorObject, ErrorResponse, Message, Notification, ParseLimits, Request, RequestId, Response,
    parse_message, parse_message_with,
};
use modelctx_protocol::{JsonObject, Method};
use proptest::prelude::*;
use serde_json::{Value, json};

fn code_of(bytes: &[u8]) -> ErrorCode {
    parse_message(bytes).expect_err("must be rejected").error.code
}

#[test]
fn accepts_the_four_message_kinds() {
    let cases = [
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, "request"),
        (r#"{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":[1,{"z":null}]}}"#, "request"),
        (r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "notification"),
        (r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, "response"),
        (r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#, "error"),
        (r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad","data":{"at":3}}}"#, "error"),
    ];
    for (text, kind) in cases {
        let message = parse_message(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
        let actual = match message {
            Message::Request(_) => "request",
            Message::Notification(_) => "notification",
            Message::Response(_) => "response",
            Message::Error(_) => "error",
        };
        assert_eq!(actual, kind, "{text}");
    }
}

#[test]
fn batch_arrays_are_invalid_requests() {
    assert_eq!(code_of(br#"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#), ErrorCode::INVALID_REQUEST);
    assert_eq!(code_of(b"[]"), ErrorCode::INVALID_REQUEST);
}

#[test]
fn jsonrpc_member_must_be_exactly_2_0() {
    for text in [
        r#"{"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":2.0,"id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0 ","id":1,"method":"a"}"#,
    ] {
        let failure = parse_message(text.as_bytes()).expect_err(text);
        assert_eq!(failure.error.code, ErrorCode::INVALID_REQUEST, "{text}");
        assert_eq!(failure.id, Some(RequestId::Number(1)), "the id is kept for the reply: {text}");
    }
}

#[test]
fn duplicate_and_case_variant_envelope_keys_are_rejected() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","Method":"b"}"#,
        r#"{"jsonrpc":"2.0","ID":1,"method":"a"}"#,
        r#"{"JSONRPC":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"PARAMS":{}}"#,
    ] {
        let failure = parse_message(text.as_bytes()).expect_err(text);
        assert_eq!(failure.error.code, ErrorCode::INVALID_REQUEST, "{text}");
    }
    // Unknown members that are not variants of envelope keys are tolerated.
    assert!(parse_message(br#"{"jsonrpc":"2.0","id":1,"method":"a","x-trace":"t"}"#).is_ok());
}

#[test]
fn params_must_be_an_object() {
    assert_eq!(
        code_of(br#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1,2]}"#),
        ErrorCode::INVALID_PARAMS
    );
    for params in ["1", "\"s\"", "true", "null"] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"a","params":{params}}}"#);
        assert_eq!(code_of(text.as_bytes()), ErrorCode::INVALID_REQUEST, "{text}");
    }
}

#[test]
fn base_02_03_ids_are_strings_or_integers_never_null() {
    assert_eq!(code_of(br#"{"jsonrpc":"2.0","id":null,"method":"a"}"#), ErrorCode::INVALID_REQUEST);
    assert_eq!(code_of(br#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#), ErrorCode::INVALID_REQUEST);
    assert_eq!(code_of(br#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#), ErrorCode::INVALID_REQUEST);
    assert_eq!(code_of(br#"{"jsonrpc":"2.0","id":true,"method":"a"}"#), ErrorCode::INVALID_REQUEST);
    let Ok(Message::Request(request)) =
        parse_message(br#"{"jsonrpc":"2.0","id":-9007199254740991,"method":"a"}"#)
    else {
        panic!("a negative integer id is fine");
    };
    assert_eq!(request.id, RequestId::Number(-9_007_199_254_740_991));
}

#[test]
fn invalid_json_and_invalid_utf8_are_parse_errors() {
    assert_eq!(code_of(b"{"), ErrorCode::PARSE_ERROR);
    assert_eq!(code_of(b""), ErrorCode::PARSE_ERROR);
    assert_eq!(code_of(br#"{"jsonrpc":"2.0","id":1,"method":"a"} trailing"#), ErrorCode::PARSE_ERROR);
    let failure =
        parse_message(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").expect_err("bad UTF-8");
    assert_eq!(failure.error.code, ErrorCode::PARSE_ERROR);
    assert!(failure.error.message.contains("UTF-8 at byte 34"), "{}", failure.error.message);
}

#[test]
fn other_shapes_are_invalid_requests() {
    for text in [
        "1",
        "\"text\"",
        "null",
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"params":{}}"#,
    ] {
        assert_eq!(code_of(text.as_bytes()), ErrorCode::INVALID_REQUEST, "{text}");
    }
}

#[test]
fn size_and_depth_limits_are_explicit_and_configurable() {
    let limits = ParseLimits { max_message_bytes: 64, max_depth: 4 };
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{}"}}"#, "a".repeat(64));
    let failure = parse_message_with(big.as_bytes(), &limits).expect_err("too big");
    assert_eq!(failure.error.code, ErrorCode::INVALID_REQUEST);
    assert!(failure.error.message.contains("limit is 64 bytes"));
    let limits = ParseLimits { max_message_bytes: 1024, ..limits };
    let deep = br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"a":{"b":{"c":{"d":1}}}}}"#;
    let failure = parse_message_with(deep, &limits).expect_err("too deep");
    assert!(failure.error.message.contains("deeper than 4"), "{}", failure.error.message);
    // Brackets inside strings do not count.
    let in_string = br#"{"jsonrpc":"2.0","id":1,"method":"[[[[[[[[{{{{{{"}"#;
    assert!(parse_message_with(in_string, &limits).is_ok());
    // The default depth refuses pathological nesting without recursing into it.
    let nested = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"a","params":{{"x":{}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(code_of(nested.as_bytes()), ErrorCode::INVALID_REQUEST);
}

#[test]
fn errors_serialise_with_the_spec_codes_and_data() {
    let error = ErrorObject::unsupported_protocol_version(
        &modelctx_protocol::ProtocolVersion::KNOWN[3..],
        "1999-01-01",
    );
    let message = Message::Error(ErrorResponse { id: Some(RequestId::from("r")), error });
    let value: Value = serde_json::to_value(&message).unwrap();
    assert_eq!(value["error"]["code"], -32022);
    assert_eq!(
        value["error"]["data"],
        json!({"supported": ["2025-11-25", "2026-07-28"], "requested": "1999-01-01"})
    );
    assert_eq!(ErrorObject::legacy_resource_not_found("file:///x").code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(ErrorObject::resource_not_found("file:///x").code, ErrorCode::INVALID_PARAMS);
    assert_eq!(ErrorObject::header_mismatch("x").code.0, -32020);
    assert_eq!(ErrorObject::missing_client_capability(json!({})).code.0, -32021);
    assert!(!message.to_json().contains('\n'), "stdio framing needs one line");
}

// ---- properties --------------------------------------------------------------------------

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = JsonObject> {
    prop::collection::btree_map(".{0,8}", json_value(), 0..6).prop_map(|m| m.into_iter().collect())
}

fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![any::<i64>().prop_map(RequestId::Number), ".{0,16}".prop_map(RequestId::String)]
}

/// Known method names half the time, so typed parsing gets past the method.
fn method() -> impl Strategy<Value = String> {
    let known: Vec<String> = modelctx_protocol::v2025::CLIENT_REQUEST_METHODS
        .iter()
        .chain(&modelctx_protocol::v2026::CLIENT_REQUEST_METHODS)
        .chain(&["notifications/cancelled", "notifications/progress", "notifications/message"])
        .map(|m| (*m).to_owned())
        .collect();
    prop_oneof![prop::sample::select(known), ".{1,24}"]
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (request_id(), method(), prop::option::of(json_object()))
            .prop_map(|(id, method, params)| Message::Request(Request { id, method: method.into(), params })),
        (method(), prop::option::of(json_object())).prop_map(|(method, params)| Message::Notification(
            Notification { method: method.into(), params }
        )),
        (request_id(), json_object()).prop_map(|(id, result)| Message::Response(Response { id, result })),
        (prop::option::of(request_id()), any::<i64>(), ".{0,24}", prop::option::of(json_value())).prop_map(
            |(id, code, message, data)| Message::Error(ErrorResponse {
                id,
                error: ErrorObject { code: ErrorCode(code), message, data },
            })
        ),
    ]
}

fn numbers_equal(a: &Message, b: &Message) -> bool {
    let (a, b) = (serde_json::to_value(a).unwrap(), serde_json::to_value(b).unwrap());
    a == b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn every_serialised_envelope_parses_back_equal(message in message()) {
        let line = message.to_json();
        prop_assert!(!line.contains('\n'));
        let back = parse_message(line.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(numbers_equal(&back, &message), "{line}");
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_message(&bytes);
    }

    #[test]
    fn arbitrary_json_never_panics_and_errors_are_precise(value in json_value()) {
        let text = value.to_string();
        if let Err(failure) = parse_message(text.as_bytes()) {
            prop_assert!(
                [ErrorCode::INVALID_REQUEST, ErrorCode::INVALID_PARAMS].contains(&failure.error.code),
                "valid JSON is never a parse error: {text} -> {failure}"
            );
        }
    }

    #[test]
    fn typed_unions_and_the_router_never_panic_on_arbitrary_messages(
        message in message(),
        session in prop::option::of(prop::sample::select(modelctx_protocol::ProtocolVersion::KNOWN.to_vec())),
        meta in json_object(),
    ) {
        use modelctx_protocol::era::{self, HttpRequestFacts, PeerState, ServerVersions, Transport};
        use modelctx_protocol::{v2025, v2026};
        let mut value = serde_json::to_value(&message).unwrap();
        // Half the time, give the params a `_meta` that looks modern, so the checks behind it run.
        if let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) {
            let mut meta = meta;
            meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!("2026-07-28"));
            params.insert("_meta".into(), Value::Object(meta));
        }
        let _ = serde_json::from_value::<v2026::ClientRequest>(value.clone());
        let _ = serde_json::from_value::<v2025::ClientRequest>(value.clone());
        let _ = serde_json::from_value::<v2026::ServerNotification>(value.clone());
        let _ = serde_json::from_value::<v2025::ServerResult>(value["result"].clone());
        let _ = serde_json::from_value::<v2026::ServerResult>(value["result"].clone());
        let Ok(message) = serde_json::from_value::<Message>(value) else { return Ok(()) };
        let peer = session.map_or(PeerState::NoSession, PeerState::Session);
        let versions = ServerVersions::default();
        let facts = HttpRequestFacts { origin_allowed: true, protocol_version: Some("2026-07-28"), mcp_method: message.method().map(Method::as_str), mcp_name: None };
        for transport in [Transport::Stdio, Transport::Http(facts), Transport::Http(HttpRequestFacts::allowed())] {
            let _ = era::route(&message, &transport, &peer, &versions);
        }
    }

    #[test]
    fn mutated_messages_never_panic(message in message(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = message.to_json().into_bytes();
        let at = cut.index(bytes.len());
        bytes[at] = byte;
        let _ = parse_message(&bytes);
        bytes.truncate(at);
        let _ = parse_message(&bytes);
    }

    #[test]
    fn deep_nesting_anywhere_is_refused_not_recursed(depth in 65usize..5000, open in prop_oneof![Just('['), Just('{')]) {
        let (open, close, filler) = if open == '[' { ("[", "]", "1") } else { (r#"{"k":"#, "}", "1") };
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"a","params":{{"x":{}{}{}}}}}"#, open.repeat(depth), filler, close.repeat(depth));
        let failure = parse_message(text.as_bytes()).expect_err("too deep");
        prop_assert_eq!(failure.error.code, ErrorCode::INVALID_REQUEST);
    }
}

#[test]
fn a_prepared_response_is_written_as_the_response_it_stands_for() {
    use modelctx_protocol::jsonrpc::{PreparedResponse, PreparedResult, RequestId};
    let items = serde_json::value::RawValue::from_string(r#"[{"name":"a"},{"name":"b"}]"#.into()).unwrap();
    let mut result = serde_json::Map::new();
    result.insert("nextCursor".into(), "c".into());
    result.insert("tools".into(), serde_json::json!("replaced by the prepared member"));
    let result = PreparedResult { result, key: "tools", value: std::sync::Arc::from(items) };
    let prepared = PreparedResponse { id: RequestId::Number(3), result };
    let line = prepared.to_json();
    let read = parse_message(line.as_bytes()).unwrap();
    let expected = Message::Response(prepared.into_response());
    assert_eq!(read, expected, "{line}");
    let Message::Response(response) = read else { unreachable!() };
    assert_eq!(response.result["tools"], serde_json::json!([{"name": "a"}, {"name": "b"}]));
    assert_eq!(response.result["nextCursor"], "c");
}
