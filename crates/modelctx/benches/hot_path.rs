//! Criterion micro-benchmarks of the server's hot path, one `tools/call echo` (2026-07-28) at
//! each stage: the envelope parse, era classification, argument validation (compiled once,
//! as the runtime does), serialisation of the answer, and the whole dispatch in process.
//!
//! `cargo bench -p modelctx --bench hot_path`

// criterion's group macro generates a function without documentation.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use modelctx::protocol::era::{self, PeerState, ServerVersions, Transport};
use modelctx::protocol::jsonrpc::{Message, ParseLimits, parse_message_with};
use modelctx::server::{Args, Server, ToolDef};
use modelctx::testing::TestClient;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// One `tools/call echo` line, as a 2026-07-28 client sends it.
const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello world, 16b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// `echo` arguments.
#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// The message to send back.
    message: String,
}

fn echo_server() -> Server {
    Server::builder("bench", "1")
        .tool(ToolDef::new("echo", |Args(Echo { message }): Args<Echo>| async move { message }))
        .build()
        .expect("a valid server")
}

fn envelope(c: &mut Criterion) {
    let limits = ParseLimits::default();
    c.bench_function("envelope: parse a tools/call line", |b| {
        b.iter(|| parse_message_with(black_box(CALL.as_bytes()), &limits).expect("valid"))
    });
}

fn era_classification(c: &mut Criterion) {
    let message = parse_message_with(CALL.as_bytes(), &ParseLimits::default()).expect("valid");
    let versions = ServerVersions::default();
    c.bench_function("era: route a modern request (stdio)", |b| {
        b.iter(|| era::route(black_box(&message), &Transport::Stdio, &PeerState::NoSession, &versions))
    });
}

fn validation(c: &mut Criterion) {
    let schema = serde_json::to_value(schemars::schema_for!(Echo)).expect("a schema");
    let validator = jsonschema::validator_for(&schema).expect("it compiles");
    let arguments = json!({"message": "hello world, 16b"});
    c.bench_function("validation: echo arguments against their schema", |b| {
        b.iter(|| validator.is_valid(black_box(&arguments)))
    });
}

fn serialisation(c: &mut Criterion) {
    let answer = r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"hello world, 16b"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}}"#;
    let message: Message = parse_message_with(answer.as_bytes(), &ParseLimits::default()).expect("valid");
    c.bench_function("serialisation: a tools/call answer", |b| b.iter(|| black_box(&message).to_json()));
}

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let client = runtime.block_on(async { TestClient::start(echo_server()) });
    let params: Value = serde_json::from_str::<Value>(CALL).expect("json")["params"].clone();
    c.bench_function("dispatch: tools/call echo through the connection, in process", |b| {
        b.iter(|| runtime.block_on(client.request("tools/call", params.clone())))
    });
}

criterion_group!(hot_path, envelope, era_classification, validation, serialisation, dispatch);
criterion_main!(hot_path);
