//! Helpers shared by the in-process test files: bounded requests in either era.

#![allow(dead_code)] // each test file uses a different part of this module

pub mod client;
pub mod http;
pub mod tls;

use std::future::Future;
use std::time::Duration;

use modelctx::server::{Server, ServerBuilder};
use modelctx::testing::TestClient;
use modelctx_protocol::jsonrpc::{ErrorObject, Message, Notification};
use modelctx_protocol::types::Implementation;
use modelctx_protocol::{JsonObject, ProtocolVersion};
use serde_json::Value;

/// The bound on every wait: generous, because it only fails a test that would hang.
pub const WAIT: Duration = Duration::from_secs(10);

/// A short bound for "this does not arrive" checks that are already ordered by a later
/// message; it is never what makes such a test pass.
pub const BRIEF: Duration = Duration::from_millis(50);

/// Awaits `future`, failing the test if it takes longer than [`WAIT`].
pub async fn within<F: Future>(future: F) -> F::Output {
    tokio::time::timeout(WAIT, future).await.expect("timed out waiting for the server")
}

/// The `Implementation` every test server introduces itself with.
pub fn info() -> Implementation {
    Implementation::new("test-server", "1.2.3")
}

/// A builder for a server named by [`info`].
pub fn builder() -> ServerBuilder {
    Server::with_info(info())
}

/// Which protocol era a request is sent under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: every request carries `_meta`; no session.
    Modern,
    /// 2025-11-25: an `initialize` session, then plain requests.
    Legacy,
}

/// Both eras, for behaviour that exists in both.
pub const ERAS: [Era; 2] = [Era::Modern, Era::Legacy];

impl Era {
    /// Connects to `server`; a legacy client opens its session at 2025-11-25.
    pub async fn connect(self, server: Server) -> TestClient {
        let client = TestClient::start(server);
        if self == Era::Legacy {
            within(client.initialize(ProtocolVersion::V2025_11_25)).await.expect("initialize succeeds");
        }
        client
    }

    /// Sends `method` in this era (modern: with the required `_meta`) and waits, bounded.
    pub async fn request(
        self,
        client: &TestClient,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorObject> {
        let outcome = match self {
            Era::Modern => within(client.modern(method, params)).await,
            Era::Legacy => within(client.request(method, params)).await,
        };
        outcome.map(Value::Object)
    }

    /// Like [`Era::request`], expecting a result.
    pub async fn ok(self, client: &TestClient, method: &str, params: Value) -> Value {
        self.request(client, method, params)
            .await
            .unwrap_or_else(|e| panic!("{self:?} {method} failed: {} {}", e.code.0, e.message))
    }

    /// Like [`Era::request`], expecting an error.
    pub async fn err(self, client: &TestClient, method: &str, params: Value) -> ErrorObject {
        match self.request(client, method, params).await {
            Ok(result) => panic!("{self:?} {method} succeeded with {result}; an error was expected"),
            Err(error) => error,
        }
    }
}

/// A plain request (no `_meta` added), bounded.
pub async fn raw(client: &TestClient, method: &str, params: Value) -> Result<JsonObject, ErrorObject> {
    within(client.request(method, params)).await
}

/// The text of the first content block of a tool result.
pub fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content in {result}"))
}

/// The notification inside `message`, which must be one.
pub fn as_notification(message: Message) -> Notification {
    match message {
        Message::Notification(notification) => notification,
        other => panic!("expected a notification, got {}", other.to_json()),
    }
}

/// The params of every notification in `messages` named `method`, in order.
pub fn params_of(messages: &[Message], method: &str) -> Vec<Value> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Notification(n) if n.method.as_str() == method => {
                Some(n.params.clone().map_or(Value::Null, Value::Object))
            }
            _ => None,
        })
        .collect()
}

/// The next notification, waiting up to [`WAIT`]; fails the test if none comes.
pub async fn next_notification(client: &TestClient) -> Notification {
    as_notification(client.next_notification(WAIT).await.expect("a notification arrives"))
}

/// The form the test servers' `ask` tools send: a single `name` string.
pub fn name_form() -> modelctx_protocol::model::ElicitRequest {
    let schema = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let requested_schema = serde_json::from_value(schema).expect("a valid requested schema");
    modelctx_protocol::model::ElicitRequest::Form { message: "Name?".into(), requested_schema }
}

/// Counts the `stall` calls that ended without finishing (the server cancelled them).
struct Abandoned(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Abandoned {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// `stall`: a tool that waits 30 s, each call dropped before it finishes counted in
/// `abandoned`.
pub fn stall(abandoned: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> modelctx::server::ToolDef {
    modelctx::server::ToolDef::new("stall", move || {
        let guard = Abandoned(abandoned.clone());
        async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            std::mem::forget(guard);
            "woke"
        }
    })
}
