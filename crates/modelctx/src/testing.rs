//! An in-process client for testing servers: the real connection code over an in-memory
//! pipe, no sockets and no child process.
//!
//! ```
//! use modelctx::server::{Server, ToolDef};
//! use modelctx::testing::TestClient;
//! use modelctx_protocol::types::Implementation;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder(Implementation::new("t", "1"))
//!     .tool(ToolDef::new("hello", || async { "hello" }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::start(server);
//! let result = client.modern("tools/call", json!({"name": "hello"})).await.unwrap();
//! assert_eq!(result["content"][0]["text"], "hello");
//! assert_eq!(result["resultType"], "complete");
//! # }
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use modelctx_protocol::jsonrpc::{ErrorObject, Message, RequestId, parse_message};
use modelctx_protocol::{JsonObject, ProtocolVersion, meta};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot};

use crate::server::Server;
use crate::transport::serve_connection;

type Pending = Arc<Mutex<HashMap<RequestId, oneshot::Sender<Result<JsonObject, ErrorObject>>>>>;

/// A client connected to a server in the same process.
pub struct TestClient {
    writer: AsyncMutex<WriteHalf<DuplexStream>>,
    pending: Pending,
    next_id: AtomicI64,
    notifications: AsyncMutex<mpsc::UnboundedReceiver<Message>>,
}

impl TestClient {
    /// Connects to `server`. The connection ends when the client is dropped.
    pub fn start(server: Server) -> Self {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_side);
        tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
        let (client_read, client_write) = tokio::io::split(client_side);
        let pending = Pending::default();
        let (notify_tx, notify_rx) = mpsc::unbounded_channel();
        let reader_pending = pending.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(client_read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match parse_message(line.as_bytes()) {
                    Ok(Message::Response(response)) => {
                        resolve(&reader_pending, Some(response.id), Ok(response.result))
                    }
                    Ok(Message::Error(error)) => resolve(&reader_pending, error.id, Err(error.error)),
                    Ok(other) => {
                        let _ = notify_tx.send(other);
                    }
                    Err(e) => tracing::error!(error = %e, %line, "the server wrote an invalid message"),
                }
            }
        });
        Self {
            writer: AsyncMutex::new(client_write),
            pending,
            next_id: AtomicI64::new(1),
            notifications: AsyncMutex::new(notify_rx),
        }
    }

    /// Writes one raw line (anything, even invalid JSON) to the server.
    pub async fn send_line(&self, line: &str) {
        let mut writer = self.writer.lock().await;
        let _ = writer.write_all(format!("{line}\n").as_bytes()).await;
    }

    /// Sends a request with a fresh id and waits for its result or error.
    pub async fn request(&self, method: &str, params: Value) -> Result<JsonObject, ErrorObject> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.request_with_id(RequestId::Number(id), method, params).await
    }

    /// Sends a request with the given id and waits for its result or error.
    pub async fn request_with_id(
        &self,
        id: RequestId,
        method: &str,
        params: Value,
    ) -> Result<JsonObject, ErrorObject> {
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id.clone(), tx);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_line(&message.to_string()).await;
        rx.await.unwrap_or_else(|_| Err(ErrorObject::internal("the connection closed")))
    }

    /// A 2026-07-28 request: `params` plus the required `_meta`, with no client capabilities.
    pub async fn modern(&self, method: &str, params: Value) -> Result<JsonObject, ErrorObject> {
        self.request(method, with_modern_meta(params, json!({}))).await
    }

    /// Opens a legacy session: `initialize` at `version`, then `notifications/initialized`.
    pub async fn initialize(&self, version: ProtocolVersion) -> Result<JsonObject, ErrorObject> {
        let result = self
            .request(
                "initialize",
                json!({"protocolVersion": version.to_string(), "capabilities": {},
                       "clientInfo": {"name": "modelctx-test-client", "version": "0"}}),
            )
            .await?;
        self.notify("notifications/initialized", Value::Null).await;
        Ok(result)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_line(&message.to_string()).await;
    }

    /// The next message the server sent that was not a response (a notification), waiting
    /// up to `timeout`.
    pub async fn next_notification(&self, timeout: std::time::Duration) -> Option<Message> {
        let mut notifications = self.notifications.lock().await;
        tokio::time::timeout(timeout, notifications.recv()).await.ok().flatten()
    }
}

/// Adds the required 2026-07-28 `_meta` (version and `capabilities`) to request params.
pub fn with_modern_meta(mut params: Value, capabilities: Value) -> Value {
    if !params.is_object() {
        params = json!({});
    }
    let meta = params["_meta"].as_object().cloned().unwrap_or_default();
    let mut meta = Value::Object(meta);
    meta[meta::PROTOCOL_VERSION] = json!(ProtocolVersion::V2026_07_28.to_string());
    meta[meta::CLIENT_CAPABILITIES] = capabilities;
    params["_meta"] = meta;
    params
}

fn resolve(pending: &Pending, id: Option<RequestId>, outcome: Result<JsonObject, ErrorObject>) {
    let Some(id) = id else {
        tracing::warn!(?outcome, "an error response without an id");
        return;
    };
    if let Some(waiter) = pending.lock().expect("pending lock").remove(&id) {
        let _ = waiter.send(outcome);
    }
}
