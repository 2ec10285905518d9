//! The era router against CHECKLIST §10: one test per rule, named after it (§10.1 rows,
//! §10.2 steps on stdio, §10.3 steps on Streamable HTTP), plus the client's probe verdicts.

use modelctx_protocol::era::client::{EraVerdict, ProbeOutcome, http_probe_verdict, stdio_probe_verdict};
use modelctx_protocol::era::{
    HttpMethod, HttpRequestFacts, PeerState, Route, ServerVersions, StreamRoute, Transport,
    dispatch_error_status, route, route_http_stream,
};
use modelctx_protocol::jsonrpc::{ErrorCode, ErrorObject, Message, parse_message};
use modelctx_protocol::{Era, ProtocolVersion};
use serde_json::{Value, json};

const V26: ProtocolVersion = ProtocolVersion::V2026_07_28;
const V25: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn message(value: Value) -> Message {
    parse_message(value.to_string().as_bytes()).expect("test message parses")
}

fn modern_request(method: &str, mut params: Value) -> Message {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    message(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
}

fn legacy_request(method: &str) -> Message {
    message(json!({"jsonrpc": "2.0", "id": 2, "method": method}))
}

fn initialize(version: &str) -> Message {
    message(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    }}))
}

fn stdio(message: &Message, peer: PeerState) -> Route {
    route(message, &Transport::Stdio, &peer, &ServerVersions::default())
}

fn http(message: &Message, facts: HttpRequestFacts<'_>, peer: PeerState) -> Route {
    route(message, &Transport::Http(facts), &peer, &ServerVersions::default())
}

/// Headers a correct modern client sends for `method` (and `name`, when it needs one).
fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> HttpRequestFacts<'a> {
    HttpRequestFacts {
        origin_allowed: true,
        protocol_version: Some("2026-07-28"),
        mcp_method: Some(method),
        mcp_name: name,
    }
}

fn rejected(route: &Route) -> (u16, ErrorCode) {
    let rejection = route.refused().unwrap_or_else(|| panic!("expected a rejection, got {route:?}"));
    (rejection.status, rejection.error.code)
}

// ---- §10.1 rules -------------------------------------------------------------------------

#[test]
fn s10_1_version_travels_in_meta_for_modern_and_in_initialize_for_legacy() {
    assert_eq!(stdio(&modern_request("tools/list", json!({})), PeerState::NoSession), Route::Modern(V26));
    assert_eq!(stdio(&initialize("2025-11-25"), PeerState::NoSession), Route::Initialize(V25));
    // HTTP: the header must carry the same version as the body (HTTP-18, HTTP-19).
    let mismatched =
        HttpRequestFacts { protocol_version: Some("2025-11-25"), ..modern_headers("tools/list", None) };
    assert_eq!(
        rejected(&http(&modern_request("tools/list", json!({})), mismatched, PeerState::NoSession)),
        (400, ErrorCode::HEADER_MISMATCH)
    );
}

#[test]
fn s10_1_unsupported_version_legacy_answers_its_own_modern_rejects_with_32022() {
    // Legacy: answer initialize with a version we serve (newest legacy).
    assert_eq!(stdio(&initialize("2099-01-01"), PeerState::NoSession), Route::Initialize(V25));
    // Modern: -32022 naming every served version and the requested one (VER-01), HTTP 400.
    let request = message(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2027-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}}));
    let facts =
        HttpRequestFacts { protocol_version: Some("2027-01-01"), ..modern_headers("tools/list", None) };
    let route = http(&request, facts, PeerState::NoSession);
    let rejection = route.refused().expect("rejected");
    assert_eq!((rejection.status, rejection.error.code), (400, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION));
    let data = rejection.error.data.as_ref().expect("data");
    assert_eq!(data["requested"], "2027-01-01");
    assert_eq!(
        data["supported"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    assert_eq!(rejection.id, Some(9.into()));
}

#[test]
fn s10_1_client_retries_with_a_version_from_supported() {
    let error = ErrorObject::unsupported_protocol_version(&[V26, V25], "2027-01-01");
    assert_eq!(
        stdio_probe_verdict(ProbeOutcome::Error(&error), &ProtocolVersion::KNOWN),
        EraVerdict::Modern(V26)
    );
    // Only a legacy version in common: switch to the initialize handshake (§19 #8).
    let legacy_only =
        ErrorObject::unsupported_protocol_version(&[ProtocolVersion::parse("2027-01-01").unwrap(), V25], "x");
    assert_eq!(
        stdio_probe_verdict(ProbeOutcome::Error(&legacy_only), &ProtocolVersion::KNOWN),
        EraVerdict::Legacy { try_http_sse: false }
    );
    let none =
        ErrorObject::unsupported_protocol_version(&[ProtocolVersion::parse("2027-01-01").unwrap()], "x");
    assert_eq!(
        stdio_probe_verdict(ProbeOutcome::Error(&none), &ProtocolVersion::KNOWN),
        EraVerdict::Incompatible { supported: vec!["2027-01-01".into()] }
    );
}

#[test]
fn s10_1_missing_version_info_meta_32602_header_32020_old_session_assumes_header_less() {
    let no_caps = message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    let route = stdio(&no_caps, PeerState::NoSession);
    assert_eq!(rejected(&route), (400, ErrorCode::INVALID_PARAMS));
    assert!(route.refused().unwrap().error.message.contains("clientCapabilities"));
    let no_header = HttpRequestFacts { protocol_version: None, ..modern_headers("tools/list", None) };
    assert_eq!(
        rejected(&http(&modern_request("tools/list", json!({})), no_header, PeerState::NoSession)),
        (400, ErrorCode::HEADER_MISMATCH)
    );
    // A 2025-03-26 session sends no version header: accepted as its session's version (HTTP-43).
    let old = ProtocolVersion::V2025_03_26;
    assert_eq!(
        http(&legacy_request("tools/list"), HttpRequestFacts::allowed(), PeerState::Session(old)),
        Route::Legacy(old)
    );
}

#[test]
fn ver_09_10_s10_1_client_stdio_detection_never_keys_on_one_error_code() {
    let ours = &ProtocolVersion::KNOWN;
    let discover = json!({"resultType": "complete", "supportedVersions": ["2026-07-28", "2025-11-25"],
        "capabilities": {}, "ttlMs": 0, "cacheScope": "public"});
    assert_eq!(stdio_probe_verdict(ProbeOutcome::Result(&discover), ours), EraVerdict::Modern(V26));
    // Recognised modern errors: stay modern, do not fall back (VER-10).
    for code in [ErrorCode::HEADER_MISMATCH, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY] {
        let error = ErrorObject::new(code, "x");
        assert_eq!(stdio_probe_verdict(ProbeOutcome::Error(&error), ours), EraVerdict::Modern(V26));
    }
    // Whatever a legacy server says, or silence, means legacy (VER-09).
    for code in [-32601, -32602, -32600, -32603, -32000, 1] {
        let error = ErrorObject::new(ErrorCode(code), "not initialized");
        assert_eq!(
            stdio_probe_verdict(ProbeOutcome::Error(&error), ours),
            EraVerdict::Legacy { try_http_sse: false }
        );
    }
    assert_eq!(stdio_probe_verdict(ProbeOutcome::TimedOut, ours), EraVerdict::Legacy { try_http_sse: false });
}

#[test]
fn s10_1_client_http_detection_inspects_the_400_body() {
    let ours = &ProtocolVersion::KNOWN;
    let modern_400 = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no",
        "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}});
    assert_eq!(http_probe_verdict(400, modern_400.to_string().as_bytes(), ours), EraVerdict::Modern(V26));
    let modern_404 = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}});
    assert_eq!(http_probe_verdict(404, modern_404.to_string().as_bytes(), ours), EraVerdict::Modern(V26));
    // Empty or unrecognised bodies: legacy, and HTTP+SSE as the last resort (HTTP-40).
    for status in [400, 404, 405] {
        assert_eq!(http_probe_verdict(status, b"", ours), EraVerdict::Legacy { try_http_sse: true });
    }
    let legacy_400 = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID"}});
    assert_eq!(
        http_probe_verdict(400, legacy_400.to_string().as_bytes(), ours),
        EraVerdict::Legacy { try_http_sse: true }
    );
    assert_eq!(
        http_probe_verdict(200, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, ours),
        EraVerdict::Modern(V26)
    );
    assert_eq!(http_probe_verdict(401, b"", ours), EraVerdict::Undecided);
}

#[test]
fn s10_1_modern_only_server_names_its_versions_when_sent_initialize() {
    let versions = ServerVersions::modern_only();
    for transport in [Transport::Stdio, Transport::Http(HttpRequestFacts::allowed())] {
        let route = route(&initialize("2025-11-25"), &transport, &PeerState::NoSession, &versions);
        let rejection = route.refused().expect("rejected");
        assert_eq!(rejection.error.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(rejection.error.data.as_ref().unwrap()["supported"], json!(["2026-07-28"]));
    }
}

#[test]
fn s10_1_modern_only_server_refuses_get_and_delete_and_ignores_session_ids() {
    let versions = ServerVersions::modern_only();
    for method in [HttpMethod::Get, HttpMethod::Delete] {
        let StreamRoute::Reject(rejection) =
            route_http_stream(method, true, &PeerState::NoSession, &versions)
        else {
            panic!("{method:?} must be refused");
        };
        assert_eq!(rejection.status, 405);
    }
    // A modern request that carries a stale Mcp-Session-Id is still just modern (HTTP-39).
    let request = modern_request("tools/list", json!({}));
    let routed = route(
        &request,
        &Transport::Http(modern_headers("tools/list", None)),
        &PeerState::UnknownSession,
        &versions,
    );
    assert_eq!(routed, Route::Modern(V26));
}

#[test]
fn s10_1_dual_era_server_serves_both_eras_on_one_stdio_stream() {
    let session = PeerState::Session(V25);
    assert_eq!(stdio(&modern_request("tools/call", json!({"name": "echo"})), session), Route::Modern(V26));
    assert_eq!(stdio(&legacy_request("tools/call"), session), Route::Legacy(V25));
    assert_eq!(
        stdio(&modern_request("tools/call", json!({"name": "echo"})), PeerState::NoSession),
        Route::Modern(V26)
    );
}

// ---- §10.2: one stdio stream -------------------------------------------------------------

#[test]
fn s10_2_step1_modern_meta_is_validated_then_stateless() {
    let unsupported =
        message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2025-11-25",
        "io.modelcontextprotocol/clientCapabilities": {}}}}));
    // A legacy version in `_meta` is not a modern version: -32022, whose list shows the
    // client it can fall back to initialize.
    assert_eq!(
        rejected(&stdio(&unsupported, PeerState::NoSession)).1,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
    );
    let caps_not_object =
        message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": []}}}));
    assert_eq!(rejected(&stdio(&caps_not_object, PeerState::NoSession)).1, ErrorCode::INVALID_PARAMS);
    let version_not_string =
        message(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": 20260728,
        "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert_eq!(rejected(&stdio(&version_not_string, PeerState::NoSession)).1, ErrorCode::INVALID_PARAMS);
}

#[test]
fn s10_2_step1_initialize_opens_a_legacy_session_negotiating_down() {
    for (asked, answered) in [
        ("2025-11-25", V25),
        ("2025-06-18", ProtocolVersion::V2025_06_18),
        ("2025-03-26", ProtocolVersion::V2025_03_26),
        ("2024-11-05", ProtocolVersion::V2024_11_05),
        ("2026-07-28", V25),
        ("2099-01-01", V25),
        ("garbage", V25),
    ] {
        assert_eq!(stdio(&initialize(asked), PeerState::NoSession), Route::Initialize(answered), "{asked}");
    }
    // Once per process.
    assert_eq!(
        rejected(&stdio(&initialize("2025-11-25"), PeerState::Session(V25))).1,
        ErrorCode::INVALID_REQUEST
    );
}

#[test]
fn s10_2_step1_everything_else_in_a_session_is_legacy() {
    let session = PeerState::Session(V25);
    for msg in [
        legacy_request("ping"),
        legacy_request("logging/setLevel"),
        legacy_request("resources/subscribe"),
        message(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        message(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})),
        message(json!({"jsonrpc": "2.0", "id": "s1", "result": {"roots": []}})),
        message(json!({"jsonrpc": "2.0", "id": "s2", "error": {"code": -1, "message": "user rejected"}})),
    ] {
        assert_eq!(stdio(&msg, session), Route::Legacy(V25), "{msg:?}");
    }
}

#[test]
fn s10_2_step1_without_a_session_modern_rules_apply() {
    let route = stdio(&legacy_request("tools/list"), PeerState::NoSession);
    assert_eq!(rejected(&route).1, ErrorCode::INVALID_PARAMS);
    assert!(route.refused().unwrap().error.message.contains("missing required _meta"));
    assert_eq!(route.refused().unwrap().id, Some(2.into()));
    // notifications/cancelled from a modern client is a modern notification.
    let cancel =
        message(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}));
    assert_eq!(stdio(&cancel, PeerState::NoSession), Route::Modern(V26));
    // A response with nowhere to go is dropped, never answered.
    let response = message(json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    assert!(matches!(stdio(&response, PeerState::NoSession), Route::Ignore(_)));
}

#[test]
fn s10_2_step2_only_legacy_sessions_exist_for_server_initiated_requests() {
    // The route is the switch: Legacy lets the runtime send server→client requests on the
    // session; Modern never does (it answers with InputRequiredResult instead).
    assert_eq!(stdio(&legacy_request("tools/call"), PeerState::Session(V25)).era(), Some(Era::Legacy));
    assert_eq!(
        stdio(&modern_request("tools/call", json!({})), PeerState::Session(V25)).era(),
        Some(Era::Modern)
    );
}

// ---- §10.3: one Streamable HTTP endpoint ---------------------------------------------------

#[test]
fn s10_3_step1_invalid_origin_is_403_in_both_eras() {
    let facts = HttpRequestFacts { origin_allowed: false, ..modern_headers("tools/list", None) };
    assert_eq!(rejected(&http(&modern_request("tools/list", json!({})), facts, PeerState::NoSession)).0, 403);
    assert_eq!(rejected(&http(&initialize("2025-11-25"), facts, PeerState::NoSession)).0, 403);
    let StreamRoute::Reject(rejection) =
        route_http_stream(HttpMethod::Get, false, &PeerState::Session(V25), &ServerVersions::default())
    else {
        panic!("GET from a bad origin must be refused");
    };
    assert_eq!(rejection.status, 403);
}

#[test]
fn s10_3_step2_modern_headers_must_mirror_the_body() {
    let call = modern_request("tools/call", json!({"name": "get_weather"}));
    assert_eq!(
        http(&call, modern_headers("tools/call", Some("get_weather")), PeerState::NoSession),
        Route::Modern(V26)
    );
    let cases: [(HttpRequestFacts<'_>, ErrorCode); 5] = [
        (modern_headers("tools/list", Some("get_weather")), ErrorCode::HEADER_MISMATCH),
        (
            HttpRequestFacts { mcp_method: None, ..modern_headers("", Some("get_weather")) },
            ErrorCode::HEADER_MISMATCH,
        ),
        (modern_headers("tools/call", None), ErrorCode::HEADER_MISMATCH),
        (modern_headers("tools/call", Some("other")), ErrorCode::HEADER_MISMATCH),
        (modern_headers("tools/call", Some("=?base64?not base64?=")), ErrorCode::HEADER_MISMATCH),
    ];
    for (facts, code) in cases {
        assert_eq!(rejected(&http(&call, facts, PeerState::NoSession)), (400, code), "{facts:?}");
    }
    // Mcp-Name in the Base64 sentinel form is decoded before comparing (HTTP-30).
    let unicode = modern_request("resources/read", json!({"uri": "file:///café.txt"}));
    let encoded = format!("=?base64?{}?=", base64_of("file:///café.txt"));
    assert_eq!(
        http(&unicode, modern_headers("resources/read", Some(&encoded)), PeerState::NoSession),
        Route::Modern(V26)
    );
    // Header says modern, body lacks _meta: -32602 with 400 (META-02).
    let bare = legacy_request("tools/list");
    assert_eq!(
        rejected(&http(&bare, modern_headers("tools/list", None), PeerState::NoSession)),
        (400, ErrorCode::INVALID_PARAMS)
    );
}

fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn s10_3_step2_dispatch_errors_map_to_their_statuses() {
    let missing_capability = ErrorObject::missing_client_capability(json!({"elicitation": {}}));
    assert_eq!(dispatch_error_status(Era::Modern, &missing_capability), 400);
    assert_eq!(dispatch_error_status(Era::Modern, &ErrorObject::method_not_found("x/y")), 404);
    assert_eq!(dispatch_error_status(Era::Modern, &ErrorObject::invalid_params("unknown tool")), 200);
}

#[test]
fn s10_3_step3_initialize_needs_no_header_and_opens_a_session() {
    assert_eq!(
        http(&initialize("2025-06-18"), HttpRequestFacts::allowed(), PeerState::NoSession),
        Route::Initialize(ProtocolVersion::V2025_06_18)
    );
    // Even with a stale session id, initialize starts afresh (HTTP-60).
    assert_eq!(
        http(&initialize("2025-11-25"), HttpRequestFacts::allowed(), PeerState::UnknownSession),
        Route::Initialize(V25)
    );
}

#[test]
fn s10_3_step4_legacy_session_traffic() {
    let legacy_header =
        HttpRequestFacts { protocol_version: Some("2025-11-25"), ..HttpRequestFacts::allowed() };
    assert_eq!(
        http(&legacy_request("tools/list"), legacy_header, PeerState::Session(V25)),
        Route::Legacy(V25)
    );
    // A response to a server-initiated request is legacy traffic (the transport answers 202).
    let response = message(json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept"}}));
    assert_eq!(http(&response, legacy_header, PeerState::Session(V25)), Route::Legacy(V25));
    assert_eq!(
        rejected(&http(&legacy_request("tools/list"), legacy_header, PeerState::UnknownSession)).0,
        404
    );
    assert_eq!(rejected(&http(&legacy_request("tools/list"), legacy_header, PeerState::NoSession)).0, 400);
    let other_version =
        HttpRequestFacts { protocol_version: Some("2025-06-18"), ..HttpRequestFacts::allowed() };
    assert_eq!(rejected(&http(&legacy_request("tools/list"), other_version, PeerState::Session(V25))).0, 400);
}

#[test]
fn s10_3_step5_no_header_no_session_not_initialize_is_400() {
    let route = http(&legacy_request("tools/list"), HttpRequestFacts::allowed(), PeerState::NoSession);
    assert_eq!(rejected(&route), (400, ErrorCode::HEADER_MISMATCH));
    let garbage = HttpRequestFacts { protocol_version: Some("latest"), ..HttpRequestFacts::allowed() };
    assert_eq!(
        rejected(&http(&legacy_request("tools/list"), garbage, PeerState::NoSession)),
        (400, ErrorCode::HEADER_MISMATCH)
    );
    let ancient = HttpRequestFacts { protocol_version: Some("2024-01-01"), ..HttpRequestFacts::allowed() };
    assert_eq!(
        rejected(&http(&legacy_request("tools/list"), ancient, PeerState::NoSession)),
        (400, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
    );
    // Notifications have no header rules in 2026-07-28 (§19 #4): accepted.
    let note =
        message(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}));
    assert_eq!(http(&note, HttpRequestFacts::allowed(), PeerState::NoSession), Route::Modern(V26));
    let response = message(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(rejected(&http(&response, HttpRequestFacts::allowed(), PeerState::NoSession)).0, 400);
}

#[test]
fn s10_3_step6_get_opens_the_session_stream_delete_ends_it() {
    let versions = ServerVersions::default();
    let session = PeerState::Session(V25);
    assert_eq!(route_http_stream(HttpMethod::Get, true, &session, &versions), StreamRoute::OpenStream(V25));
    assert_eq!(route_http_stream(HttpMethod::Delete, true, &session, &versions), StreamRoute::EndSession);
    let status = |method, peer| match route_http_stream(method, true, &peer, &versions) {
        StreamRoute::Reject(rejection) => rejection.status,
        other => panic!("{other:?}"),
    };
    assert_eq!(status(HttpMethod::Get, PeerState::UnknownSession), 404);
    assert_eq!(status(HttpMethod::Delete, PeerState::NoSession), 400);
    assert_eq!(status(HttpMethod::Other, session), 405);
}

#[test]
fn s10_3_step7_legacy_method_not_found_is_200_never_404() {
    assert_eq!(dispatch_error_status(Era::Legacy, &ErrorObject::method_not_found("nope")), 200);
}

#[test]
fn s10_3_step8_modern_header_checks_do_not_apply_to_legacy_requests() {
    // No Mcp-Method, no Mcp-Name: fine for a legacy session request.
    let call =
        message(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}}));
    let facts = HttpRequestFacts { protocol_version: Some("2025-11-25"), ..HttpRequestFacts::allowed() };
    assert_eq!(http(&call, facts, PeerState::Session(V25)), Route::Legacy(V25));
}

#[test]
fn s10_3_step9_http_sse_is_reached_only_through_the_client_fallback() {
    // The 2024-11-05 transport lives on its own endpoints; a dual-era client reaches it only
    // when the Streamable HTTP endpoint refuses without a modern body.
    assert_eq!(
        http_probe_verdict(405, b"", &ProtocolVersion::KNOWN),
        EraVerdict::Legacy { try_http_sse: true }
    );
    assert_eq!(
        http_probe_verdict(405, br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"x"}}}"#, &ProtocolVersion::KNOWN),
        EraVerdict::Modern(V26)
    );
}

// ---- properties: whatever a peer sends, the router decides without panicking ------------

mod properties {
    use super::*;
    use modelctx_protocol::era::PeerState;
    use proptest::prelude::*;

    /// A JSON value a hostile peer might put anywhere: strings that look like versions and
    /// methods, numbers, nesting.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop_oneof![
                Just("2026-07-28".to_owned()),
                Just("2025-11-25".to_owned()),
                Just("initialize".to_owned()),
                Just("tools/call".to_owned()),
                ".{0,12}"
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("_meta".to_owned()),
                        Just("io.modelcontextprotocol/protocolVersion".to_owned()),
                        Just("io.modelcontextprotocol/clientCapabilities".to_owned()),
                        Just("protocolVersion".to_owned()),
                        "[a-z]{1,6}"
                    ],
                    inner,
                    0..4
                )
                .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    /// A message: a request or notification with any method and params.
    fn message() -> impl Strategy<Value = Message> {
        let method = prop_oneof![
            Just("initialize"),
            Just("tools/list"),
            Just("server/discover"),
            Just("ping"),
            Just("x")
        ];
        (method, prop::option::of(value()), any::<bool>()).prop_filter_map(
            "a parsable message",
            |(method, params, request)| {
                let mut message = json!({"jsonrpc": "2.0", "method": method});
                if request {
                    message["id"] = json!(1);
                }
                if let Some(params) = params.filter(Value::is_object) {
                    message["params"] = params;
                }
                parse_message(message.to_string().as_bytes()).ok()
            },
        )
    }

    fn peer() -> impl Strategy<Value = PeerState> {
        prop_oneof![Just(PeerState::NoSession), Just(PeerState::Session(V25)), Just(PeerState::Session(V26))]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        #[test]
        fn any_message_on_stdio_routes_without_panicking(message in message(), peer in peer()) {
            let _ = stdio(&message, peer);
        }

        #[test]
        fn any_message_and_headers_on_http_route_to_a_decision(
            message in message(),
            peer in peer(),
            origin_allowed in any::<bool>(),
            version in prop::option::of(prop_oneof![Just("2026-07-28"), Just("2025-11-25"), Just("x")]),
            mcp_method in prop::option::of(prop_oneof![Just("tools/list"), Just("initialize"), Just("x")]),
            mcp_name in prop::option::of(".{0,8}"),
        ) {
            let facts = HttpRequestFacts {
                origin_allowed,
                protocol_version: version,
                mcp_method,
                mcp_name: mcp_name.as_deref(),
            };
            let routed = http(&message, facts, peer);
            if !origin_allowed {
                prop_assert_eq!(routed.refused().map(|r| r.status), Some(403), "{:?}", routed);
            }
            if let Some(rejection) = routed.refused() {
                prop_assert!((400..500).contains(&rejection.status), "{:?}", rejection);
            }
        }
    }
}
