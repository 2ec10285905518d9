//! The guide's chapter on testing (docs/guide/src/testing.md): a server under test with
//! `modelctx::testing::TestClient`, which speaks raw JSON-RPC to it in process, in either era,
//! so a test sees exactly what a client would.
//!
//! Run it with `cargo run -p modelctx --example guide_testing`; in a crate of your own the
//! same lines go in a `#[tokio::test]`.

use modelctx::server::{Args, Server, ToolDef};
use modelctx::testing::TestClient;
use modelctx_protocol::ProtocolVersion;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct DivideArgs {
    dividend: f64,
    divisor: f64,
}

fn server() -> Server {
    let divide = ToolDef::new("divide", |Args(args): Args<DivideArgs>| async move {
        if args.divisor == 0.0 {
            Err("cannot divide by zero".to_owned())
        } else {
            Ok(format!("{}", args.dividend / args.divisor))
        }
    });
    Server::builder("calculator", "1.0.0").tool(divide).build().expect("valid")
}

// ANCHOR: test
#[tokio::main]
async fn main() {
    let client = TestClient::start(server());

    // 2026-07-28: every request carries its own `_meta`; `modern` adds it.
    let quotient = client
        .modern("tools/call", json!({"name": "divide", "arguments": {"dividend": 7, "divisor": 2}}))
        .await;
    assert_eq!(quotient.expect("a result")["content"][0]["text"], "3.5");

    // A tool's failure is a result the model reads (`isError`), not a protocol error.
    let by_zero = client
        .modern("tools/call", json!({"name": "divide", "arguments": {"dividend": 1, "divisor": 0}}))
        .await;
    assert_eq!(by_zero.expect("a result")["isError"], true);

    // Arguments that do not fit the input schema are refused before the handler runs.
    let wrong =
        client.modern("tools/call", json!({"name": "divide", "arguments": {"dividend": "seven"}})).await;
    println!("wrong arguments: {}", wrong.expect("a result")["content"][0]["text"]);

    // The legacy era on another connection: `initialize`, then plain requests.
    let legacy = TestClient::start(server());
    legacy.initialize(ProtocolVersion::V2025_11_25).await.expect("initialized");
    let listed = legacy.request("tools/list", json!({})).await;
    assert_eq!(listed.expect("a result")["tools"][0]["name"], "divide");
    println!("both eras answered as expected");
}
// ANCHOR_END: test
