//! The client's JSON-RPC peer over a byte stream pair, one message per line (stdio):
//! requests matched to answers by id, the server's own requests answered, its notifications
//! handed on. When the stream ends every pending request fails at once with the reason.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures::StreamExt as _;
use modelctx_protocol::JsonObject;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::{
    ErrorObject, ErrorResponse, Message, Notification, ParseLimits, Request, RequestId, Response,
    parse_message_with,
};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use super::{ClientError, ClientHandlers, WireTap};
use crate::transport::framing::{Line, Lines};
use modelctx_protocol::Era;

/// Lines waiting to be written before a sender waits.
const OUTBOX: usize = 64;
/// Server notifications buffered for slow listeners (older ones are dropped for them).
const NOTIFICATIONS: usize = 256;

type Answer = Result<JsonObject, ErrorObject>;

/// A request's fate: the server's answer, or why the connection ended first.
type Settled = Result<Answer, String>;

#[derive(Default)]
struct State {
    pending: HashMap<RequestId, oneshot::Sender<Settled>>,
    /// Why the connection ended, once it has.
    closed: Option<String>,
}

/// The shared half of a connection.
struct Inner {
    state: Mutex<State>,
    outbox: mpsc::Sender<String>,
    next_id: AtomicI64,
    notifications: broadcast::Sender<Notification>,
    handlers: ClientHandlers,
    tap: Option<WireTap>,
}

impl Inner {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fails every pending request with `reason`; later requests fail at once.
    fn close(&self, reason: String) {
        let mut state = self.state();
        for (_, waiter) in state.pending.drain() {
            let _ = waiter.send(Err(reason.clone()));
        }
        state.closed.get_or_insert(reason);
    }
}

/// A JSON-RPC connection to one server.
#[derive(Clone)]
pub(crate) struct Rpc {
    inner: Arc<Inner>,
}

/// Takes back a request whose caller stopped waiting (dropped its future or timed out):
/// forgets it and tells the server with `notifications/cancelled` — except `initialize`,
/// which is never cancelled (LIFE-09).
struct CancelOnDrop<'a> {
    rpc: &'a Rpc,
    id: Option<RequestId>,
    reason: &'static str,
    tell: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if self.rpc.inner.state().pending.remove(&id).is_some() && self.tell {
            let params = json!({"requestId": id, "reason": self.reason});
            let note = Message::Notification(Notification {
                method: Method::Cancelled,
                params: params.as_object().cloned(),
            });
            let line = note.to_json();
            if let Some(tap) = &self.rpc.inner.tap {
                tap.sent(&line);
            }
            let _ = self.rpc.inner.outbox.try_send(line);
        }
    }
}

impl Rpc {
    /// Starts the reader and writer tasks over `reader` and `writer`. The writer closes its
    /// stream when `stop` trips; `ended` says why the reader's stream closed (for a child
    /// process: how it exited).
    pub(crate) fn start<R, W>(
        (reader, writer): (R, W),
        limits: ParseLimits,
        handlers: ClientHandlers,
        tap: Option<WireTap>,
        stop: CancellationToken,
        ended: impl Future<Output = String> + Send + 'static,
    ) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, lines) = mpsc::channel(OUTBOX);
        let inner = Arc::new(Inner {
            state: Mutex::new(State::default()),
            outbox,
            next_id: AtomicI64::new(1),
            notifications: broadcast::channel(NOTIFICATIONS).0,
            handlers,
            tap,
        });
        tokio::spawn(write_lines(writer, lines, stop));
        let reading = Arc::clone(&inner);
        tokio::spawn(async move {
            let why = read_messages(reader, &reading, limits).await;
            let why = match why {
                Some(why) => why,
                None => ended.await,
            };
            reading.close(why);
        });
        Self { inner }
    }

    /// Server notifications from now on.
    pub(crate) fn notifications(&self) -> broadcast::Receiver<Notification> {
        self.inner.notifications.subscribe()
    }

    /// Sends a notification.
    pub(crate) async fn notify(
        &self,
        method: &Method,
        params: Option<JsonObject>,
    ) -> Result<(), ClientError> {
        let note = Message::Notification(Notification { method: method.clone(), params });
        self.send_line(note.to_json()).await
    }

    async fn send_line(&self, line: String) -> Result<(), ClientError> {
        if let Some(why) = &self.inner.state().closed {
            return Err(ClientError::closed(why.clone()));
        }
        if let Some(tap) = &self.inner.tap {
            tap.sent(&line);
        }
        self.inner.outbox.send(line).await.map_err(|_| ClientError::closed("the connection is closed"))
    }

    /// Sends a request and waits up to `timeout` for its answer. Dropping the future, or
    /// running out of time, cancels the request on the server.
    pub(crate) async fn request(
        &self,
        method: &Method,
        params: Option<JsonObject>,
        timeout: Duration,
    ) -> Result<JsonObject, ClientError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        super::telemetry::record_request_id(&id);
        let (waiter, answer) = oneshot::channel();
        {
            let mut state = self.inner.state();
            if let Some(why) = &state.closed {
                return Err(ClientError::closed(why.clone()));
            }
            state.pending.insert(id.clone(), waiter);
        }
        let mut guard = CancelOnDrop {
            rpc: self,
            id: Some(id.clone()),
            reason: "the caller stopped waiting",
            tell: *method != Method::Initialize,
        };
        let request = Message::Request(Request { id, method: method.clone(), params });
        self.send_line(request.to_json()).await?;
        match tokio::time::timeout(timeout, answer).await {
            Ok(settled) => {
                guard.id = None;
                match settled {
                    Ok(Ok(answer)) => answer.map_err(ClientError::rpc),
                    Ok(Err(why)) => Err(ClientError::closed(why)),
                    Err(_) => Err(ClientError::closed("the connection closed")),
                }
            }
            Err(_) => {
                guard.reason = "timed out";
                Err(ClientError::timeout(method.clone(), timeout))
            }
        }
    }

    /// Answers a request the server sent.
    async fn answer(&self, id: RequestId, answer: Answer) {
        let message = match answer {
            Ok(result) => Message::Response(Response { id, result }),
            Err(error) => Message::Error(ErrorResponse { id: Some(id), error }),
        };
        let _ = self.send_line(message.to_json()).await;
    }
}

/// Writes each queued line to the server. Lines queued together go out in one write: the
/// buffer is flushed only when no other line is waiting.
async fn write_lines<W: AsyncWrite + Unpin>(
    writer: W,
    mut lines: mpsc::Receiver<String>,
    stop: CancellationToken,
) {
    let mut writer = BufWriter::new(writer);
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            () = stop.cancelled() => None,
        };
        let Some(line) = line else { break };
        let written = async {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            if lines.is_empty() { writer.flush().await } else { Ok(()) }
        };
        if written.await.is_err() {
            return;
        }
    }
    // Closing stdin is the first step of a stdio shutdown.
    let _ = writer.shutdown().await;
}

/// Reads until the stream ends; `Some` when it ended for a reason of its own (an unreadable
/// stream), `None` at a plain end of file.
async fn read_messages<R: AsyncRead + Unpin>(
    reader: R,
    inner: &Arc<Inner>,
    limits: ParseLimits,
) -> Option<String> {
    // Bounded lines: a server that never sends a newline cannot make the client buffer
    // without end.
    let mut lines = FramedRead::new(reader, Lines::new(limits));
    let rpc = Rpc { inner: Arc::clone(inner) };
    loop {
        let text = match lines.next().await {
            None => return None,
            Some(Err(e)) => return Some(format!("reading from the server failed: {e}")),
            Some(Ok(Line::Oversize)) => {
                tracing::warn!(
                    limit = limits.max_message_bytes,
                    "the server sent a line over the limit; discarded"
                );
                continue;
            }
            Some(Ok(Line::Bytes(line))) => line,
        };
        if text.trim_ascii().is_empty() {
            continue;
        }
        if let Some(tap) = &inner.tap {
            tap.received(&String::from_utf8_lossy(&text));
        }
        match parse_message_with(&text, &limits) {
            Ok(Message::Response(response)) => settle(inner, &response.id, Ok(response.result)).await,
            Ok(Message::Error(error)) => match error.id {
                Some(id) => settle(inner, &id, Err(error.error)).await,
                None => tracing::warn!(error = %error.error.message, "the server reported an error"),
            },
            Ok(Message::Notification(note)) => {
                inner.handlers.notified(&note.method, note.params.as_ref());
                let _ = inner.notifications.send(note);
            }
            Ok(Message::Request(request)) => {
                // Only legacy servers send requests on stdio (2026-07-28 asks by MRTR).
                let rpc = rpc.clone();
                tokio::spawn(async move {
                    let answer =
                        rpc.inner.handlers.answer(Era::Legacy, &request.method, request.params).await;
                    rpc.answer(request.id, answer).await;
                });
            }
            Err(failure) => tracing::warn!(error = %failure.error.message, "the server sent a bad message"),
        }
    }
}

/// Hands an answer to the request waiting for it, then lets that caller run before the next
/// answer is read: on a one-thread runtime its next request then goes out while the server
/// still has work, instead of after every answer of a read has been handed out.
async fn settle(inner: &Inner, id: &RequestId, answer: Answer) {
    let waiter = inner.state().pending.remove(id);
    match waiter {
        Some(waiter) => {
            let _ = waiter.send(Ok(answer));
            tokio::task::yield_now().await;
        }
        None => tracing::debug!(%id, "an answer to no pending request"),
    }
}
