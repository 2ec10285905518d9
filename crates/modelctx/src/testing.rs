//! An in-process client for testing servers: the real connection code — the same message
//! core and line framing as stdio — with no sockets, no pipe and no child process.
//!
//! ```
//! use modelctx::server::{Server, ToolDef};
//! use modelctx::testing::TestClient;
//! use modelctx_protocol::types::Implementation;
//! use modelctx::protocol::Method;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("t", "1")
//!     .tool(ToolDef::new("hello", || async { "hello" }))
//!     .build()
//!     .unwrap();
//! let client = TestClient::start(server);
//! let result = client.modern(Method::CallTool, json!({"name": "hello"})).await.unwrap();
//! assert_eq!(result["content"][0]["text"], "hello");
//! assert_eq!(result["resultType"], "complete");
//! # }
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use modelctx_protocol::jsonrpc::{ErrorObject, Message, RequestId};
use modelctx_protocol::{JsonObject, Method, ProtocolVersion, meta};
use serde_json::{Value, json};
use tokio::sync::{Mutex as AsyncMutex, mpsc, oneshot};

use crate::server::Server;
use crate::transport::connection::{Inbound, serve_endpoint};
use crate::transport::lines;

/// Messages the server may write ahead of the test client's reader.
const OUTBOX: usize = 256;

/// What a request came back with: its result, or its error.
pub type Outcome = Result<JsonObject, ErrorObject>;

type Pending = Arc<Mutex<HashMap<RequestId, oneshot::Sender<Outcome>>>>;

/// A client connected to a server in the same process.
pub struct TestClient {
    input: mpsc::UnboundedSender<Inbound>,
    /// The server, whose limits and typed reading its lines are read with.
    server: Server,
    pending: Pending,
    next_id: AtomicI64,
    notifications: AsyncMutex<mpsc::UnboundedReceiver<Message>>,
    unmatched: AsyncMutex<mpsc::UnboundedReceiver<Message>>,
}

/// A request that was sent and whose answer may not have arrived yet.
#[derive(Debug)]
pub struct PendingRequest {
    id: RequestId,
    answer: oneshot::Receiver<Outcome>,
}

impl PendingRequest {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// Waits for the answer.
    pub async fn response(self) -> Outcome {
        self.answer.await.unwrap_or_else(|_| Err(ErrorObject::internal("the connection closed")))
    }

    /// The answer if it has arrived, without waiting; `None` while none has.
    pub fn try_response(&mut self) -> Option<Outcome> {
        match self.answer.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(oneshot::error::TryRecvError::Empty) => None,
            Err(oneshot::error::TryRecvError::Closed) => {
                Some(Err(ErrorObject::internal("the connection closed")))
            }
        }
    }
}

impl TestClient {
    /// Connects to `server`. The connection ends when the client is dropped.
    pub fn start(server: Server) -> Self {
        let (input, mut inbound) = mpsc::unbounded_channel();
        let (outbox, mut output) = mpsc::channel(OUTBOX);
        let messages = futures::stream::poll_fn(move |cx| inbound.poll_recv(cx));
        tokio::spawn(serve_endpoint(server.clone(), messages, outbox, None, std::future::pending()));
        let pending = Pending::default();
        let (notify_tx, notify_rx) = mpsc::unbounded_channel();
        let (unmatched_tx, unmatched_rx) = mpsc::unbounded_channel();
        let reader_pending = pending.clone();
        tokio::spawn(async move {
            while let Some(message) = output.recv().await {
                let message = message.into_message();
                match message {
                    answer @ (Message::Response(_) | Message::Error(_)) => {
                        if let Some(unclaimed) = resolve(&reader_pending, answer) {
                            let _ = unmatched_tx.send(unclaimed);
                        }
                    }
                    other => {
                        let _ = notify_tx.send(other);
                    }
                }
            }
        });
        Self {
            input,
            server,
            pending,
            next_id: AtomicI64::new(1),
            notifications: AsyncMutex::new(notify_rx),
            unmatched: AsyncMutex::new(unmatched_rx),
        }
    }

    /// Writes one raw line (anything, even invalid JSON, or several lines) to the server, read
    /// as stdio reads it.
    pub async fn send_line(&self, line: &str) {
        for message in lines::decode(&format!("{line}\n"), &self.server) {
            let _ = self.input.send(message);
        }
    }

    /// Sends a request with a fresh id and waits for its result or error.
    pub async fn request(&self, method: impl Into<Method>, params: Value) -> Outcome {
        self.send_request(method, params).await.response().await
    }

    /// Sends a request with the given id and waits for its result or error.
    pub async fn request_with_id(&self, id: RequestId, method: impl Into<Method>, params: Value) -> Outcome {
        self.send_request_with_id(id, method, params).await.response().await
    }

    /// Sends a request with a fresh id without waiting for its answer.
    pub async fn send_request(&self, method: impl Into<Method>, params: Value) -> PendingRequest {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.send_request_with_id(RequestId::Number(id), method, params).await
    }

    /// Sends a request with the given id without waiting for its answer. The answer goes to
    /// the returned [`PendingRequest`]; an id already awaiting an answer is taken over (use
    /// [`TestClient::send_line`] to send a second request under an id in flight).
    pub async fn send_request_with_id(
        &self,
        id: RequestId,
        method: impl Into<Method>,
        params: Value,
    ) -> PendingRequest {
        let (tx, answer) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id.clone(), tx);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method.into()});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_line(&message.to_string()).await;
        PendingRequest { id, answer }
    }

    /// A 2026-07-28 request: `params` plus the required `_meta`, with no client capabilities.
    /// `_meta` keys already in `params` (`progressToken`, a log level) are kept.
    pub async fn modern(&self, method: impl Into<Method>, params: Value) -> Outcome {
        self.request(method, with_modern_meta(params, json!({}))).await
    }

    /// Opens a legacy session: `initialize` at `version`, then `notifications/initialized`.
    pub async fn initialize(&self, version: ProtocolVersion) -> Outcome {
        let result = self
            .request(
                Method::Initialize,
                json!({"protocolVersion": version.to_string(), "capabilities": {},
                       "clientInfo": {"name": "modelctx-test-client", "version": "0"}}),
            )
            .await?;
        self.notify(Method::Initialized, Value::Null).await;
        Ok(result)
    }

    /// Sends a notification.
    pub async fn notify(&self, method: impl Into<Method>, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method.into()});
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

    /// Every notification that has arrived and was not yet taken, without waiting. A
    /// request's own notifications (progress, log messages) are written before its answer,
    /// so once the answer is in they are all here.
    pub async fn take_notifications(&self) -> Vec<Message> {
        let mut notifications = self.notifications.lock().await;
        std::iter::from_fn(|| notifications.try_recv().ok()).collect()
    }

    /// The next response or error that no pending request was waiting for — an error without
    /// an id (a parse error, an oversize message) or the answer to a request written with
    /// [`TestClient::send_line`] — waiting up to `timeout`.
    pub async fn next_unmatched(&self, timeout: std::time::Duration) -> Option<Message> {
        let mut unmatched = self.unmatched.lock().await;
        tokio::time::timeout(timeout, unmatched.recv()).await.ok().flatten()
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

/// Hands a response or error to the request awaiting it; gives it back when none is.
fn resolve(pending: &Pending, answer: Message) -> Option<Message> {
    let waiter = answer.id().and_then(|id| pending.lock().expect("pending lock").remove(id));
    let Some(waiter) = waiter else { return Some(answer) };
    let outcome = match answer {
        Message::Response(response) => Ok(response.result),
        Message::Error(error) => Err(error.error),
        other => return Some(other),
    };
    let _ = waiter.send(outcome);
    None
}
