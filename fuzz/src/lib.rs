//! The fuzz targets of modelctx: one function per parser a peer feeds, each taking arbitrary
//! bytes and panicking when what must hold for every input does not. `tests/smoke.rs` runs
//! each over its corpus (`corpus/<target>/`) and over mutations of it in `cargo test`;
//! `libfuzzer/` wraps the same functions for libFuzzer (`scripts/fuzz.sh`).

use modelctx_protocol::era::{HttpRequestFacts, PeerState, Route, ServerVersions, Transport, route};
use modelctx_protocol::headers::{decode_header_value, encode_header_value, name_header_for};
use modelctx_protocol::jsonrpc::{Message, ParseLimits, parse_message_with};
use modelctx_protocol::uri_template::UriTemplate;
use modelctx_protocol::{ProtocolVersion, jsonrpc::ErrorCode};

/// The filesystem server's search patterns: a private, self-contained module of
/// `modelctx-servers`, compiled here as it is there rather than made public API for fuzzing.
#[path = "../../crates/modelctx-servers/src/filesystem/glob.rs"]
#[allow(dead_code)]
mod glob;

/// A fuzz target: its name (the folder of its corpus) and the function.
pub struct Target {
    /// The corpus folder and libFuzzer binary name.
    pub name: &'static str,
    /// Panics when a property fails for `data`.
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target { name: "envelope", run: envelope },
    Target { name: "era_router", run: era_router },
    Target { name: "header_value", run: header_value },
    Target { name: "uri_template", run: uri_template },
    Target { name: "stdio_lines", run: modelctx::fuzzing::stdio_lines },
    Target { name: "sse_events", run: modelctx::fuzzing::sse_events },
    Target { name: "config_expand", run: modelctx::fuzzing::config_expand },
    Target { name: "glob", run: glob_pattern },
];

/// Runs the target named `name` on `data`.
///
/// # Panics
/// When no target has that name, or the target's property fails.
pub fn run(name: &str, data: &[u8]) {
    let target = TARGETS.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no fuzz target {name}"));
    (target.run)(data);
}

/// Limits small enough that the fuzzer reaches them.
const LIMITS: ParseLimits = ParseLimits { max_message_bytes: 4096, max_depth: 16 };

/// The JSON-RPC envelope: every input parses or is refused with a JSON-RPC error code, an
/// input over a limit is refused, and what parses serialises to text that parses back equal.
pub fn envelope(data: &[u8]) {
    match parse_message_with(data, &LIMITS) {
        Ok(message) => {
            assert!(data.len() <= LIMITS.max_message_bytes, "a message over the size limit parsed");
            let text = serde_json::to_vec(&message).expect("a parsed message serialises");
            let again = parse_message_with(&text, &ParseLimits::default()).expect("what we write parses");
            assert_eq!(again, message, "{}", String::from_utf8_lossy(&text));
        }
        Err(failure) => {
            let code = failure.error.code;
            assert!(
                [ErrorCode::PARSE_ERROR, ErrorCode::INVALID_REQUEST, ErrorCode::INVALID_PARAMS]
                    .contains(&code),
                "refused with {code:?}"
            );
        }
    }
}

/// The era router: any message under any headers and peer state gets a verdict, a refusal
/// carries a 4xx status, and a notification's refusal names no id.
pub fn era_router(data: &[u8]) {
    let Ok(message) = parse_message_with(data, &LIMITS) else { return };
    let name = message.method().and_then(|method| name_header_for(method, message.params()));
    let versions = ServerVersions::default();
    let peers = [
        PeerState::NoSession,
        PeerState::Session(ProtocolVersion::V2025_11_25),
        PeerState::Session(ProtocolVersion::V2026_07_28),
        PeerState::UnknownSession,
    ];
    let mut transports = vec![Transport::Stdio];
    for protocol_version in [None, Some("2026-07-28"), Some("2025-11-25"), Some("1999-01-01")] {
        for mcp_method in [None, message.method().map(modelctx_protocol::Method::as_str)] {
            for mcp_name in [None, name.as_deref()] {
                transports.push(Transport::Http(HttpRequestFacts {
                    origin_allowed: true,
                    protocol_version,
                    mcp_method,
                    mcp_name,
                }));
            }
        }
    }
    for transport in &transports {
        for peer in &peers {
            if let Route::Reject(rejection) = route(&message, transport, peer, &versions) {
                assert!((400..500).contains(&rejection.status), "refused with status {}", rejection.status);
                if matches!(message, Message::Notification(_)) {
                    assert!(rejection.id.is_none(), "a notification's refusal names an id");
                }
            }
        }
    }
}

/// Header values: whatever a peer sends decodes or is refused, and whatever we encode is a
/// valid header value (visible ASCII, space and tab) that decodes back to itself.
pub fn header_value(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = decode_header_value(&text);
    let encoded = encode_header_value(&text);
    assert!(encoded.chars().all(|c| c == '\t' || (' '..='~').contains(&c)), "{encoded:?}");
    assert_eq!(decode_header_value(&encoded).as_deref(), Ok(&*text), "{encoded:?}");
}

/// URI templates (RFC 6570 level 3 and the `*` explode modifier): a template and a URI,
/// split at the first NUL byte. Parsing, matching and expanding the matched values answer.
pub fn uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (template, uri) = text.split_once('\0').unwrap_or((&text, ""));
    let Ok(template) = UriTemplate::parse(template) else { return };
    if let Some(values) = template.match_uri(uri) {
        let _ = template.match_uri(&template.expand(&values));
    }
}

/// The filesystem server's search patterns: a pattern and a relative path, split at the
/// first NUL byte. Compiling and matching answer (in bounded time: libFuzzer reports a slow
/// input as a timeout).
pub fn glob_pattern(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (pattern, relative) = text.split_once('\0').unwrap_or((&text, ""));
    let Some(pattern) = glob::Pattern::new(pattern) else { return };
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let _ = pattern.matches(relative, name);
}
