//! Request bodies (bounded) and response bodies (JSON, empty, SSE).

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderName, HeaderValue, Response, StatusCode, header};
use http_body::Frame;
use http_body_util::{BodyExt, Empty, Full, StreamBody};
use modelctx_protocol::jsonrpc::{ErrorObject, ErrorResponse, Message, RequestId};
use tokio::sync::{Semaphore, SemaphorePermit, mpsc};
use tokio_util::sync::DropGuard;

use super::live::LiveFrame;
use super::{HttpOptions, McpBody};
use crate::server::outgoing::Outgoing;

/// How one endpoint reads request bodies: each within `HttpOptions::max_body_bytes` (else
/// 413) and `HttpOptions::body_read_timeout` (else 408), and every body being read at once
/// within `HttpOptions::max_reading_bytes` (else 503): a body holds its bytes of that budget
/// as they arrive, until it is read.
pub(crate) struct BodyReader {
    limit: usize,
    timeout: Duration,
    reading: Semaphore,
    reading_bound: usize,
}

impl BodyReader {
    /// The reader `options` describe.
    pub(crate) fn new(options: &HttpOptions) -> Self {
        // One body of the largest size allowed always fits.
        let reading_bound =
            options.max_reading_bytes.max(options.max_body_bytes).clamp(1, Semaphore::MAX_PERMITS);
        Self {
            limit: options.max_body_bytes,
            timeout: options.body_read_timeout,
            reading: Semaphore::new(reading_bound),
            reading_bound,
        }
    }

    /// Reads the whole body, or answers why not.
    pub(crate) async fn read<B>(&self, body: B) -> Result<Bytes, Response<McpBody>>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let mut read = std::pin::pin!(self.read_within(body));
        // A body that arrived with its headers (most do) is read without setting a timer.
        let read = match futures::FutureExt::now_or_never(read.as_mut()) {
            Some(read) => Ok(read),
            None => tokio::time::timeout(self.timeout, read).await,
        };
        let read = match read {
            Ok(read) => read,
            Err(_) => Err(error_response(
                StatusCode::REQUEST_TIMEOUT.as_u16(),
                None,
                ErrorObject::invalid_request(format!(
                    "the request body did not arrive within {}s",
                    self.timeout.as_secs_f64()
                )),
            )),
        };
        // The rest of a refused body is never read, so the connection cannot carry another
        // request: say so, or a client reusing it loses its next request.
        read.map_err(|mut refused| {
            refused.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
            refused
        })
    }

    /// [`BodyReader::read`] without the time limit.
    async fn read_within<B>(&self, body: B) -> Result<Bytes, Response<McpBody>>
    where
        B: http_body::Body<Data = Bytes>,
        B::Error: std::fmt::Display,
    {
        let limit = self.limit;
        let too_large = || {
            error_response(
                StatusCode::PAYLOAD_TOO_LARGE.as_u16(),
                None,
                ErrorObject::invalid_request(format!(
                    "the request body is larger than the limit of {limit} bytes"
                )),
            )
        };
        let mut body = std::pin::pin!(body);
        // A body of one frame (most are) is kept as it came; more frames are copied together.
        let (mut first, mut collected) = (Bytes::new(), None::<Vec<u8>>);
        let mut held: Option<SemaphorePermit<'_>> = None;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                error_response(
                    400,
                    None,
                    ErrorObject::invalid_request(format!("reading the request body failed: {e}")),
                )
            })?;
            if let Ok(data) = frame.into_data() {
                if collected.as_ref().map_or(first.len(), Vec::len) + data.len() > limit {
                    return Err(too_large());
                }
                let permits = u32::try_from(data.len()).unwrap_or(u32::MAX);
                match (self.reading.try_acquire_many(permits), &mut held) {
                    (Ok(permit), Some(held)) => held.merge(permit),
                    (Ok(permit), None) => held = Some(permit),
                    (Err(_), _) => return Err(self.busy()),
                }
                match &mut collected {
                    Some(collected) => collected.extend_from_slice(&data),
                    None if first.is_empty() => first = data,
                    None => collected = Some([&first[..], &data[..]].concat()),
                }
            }
        }
        Ok(collected.map_or(first, Bytes::from))
    }

    /// The answer when the bodies being read fill the budget.
    fn busy(&self) -> Response<McpBody> {
        error_response(
            StatusCode::SERVICE_UNAVAILABLE.as_u16(),
            None,
            ErrorObject::internal(format!(
                "server busy: request bodies being read hold the {} bytes allowed; try again later",
                self.reading_bound
            )),
        )
    }
}

/// `Content-Type` of a JSON answer: a value made once (one spelled as text is checked and
/// copied at every response).
const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");
/// `Content-Type` of an SSE stream.
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");
/// `Cache-Control` of an SSE stream.
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");
/// Asks a proxy (nginx's `X-Accel-Buffering`) whether to buffer an SSE stream.
const ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");
/// The value of [`ACCEL_BUFFERING`] that turns buffering off.
const NO: HeaderValue = HeaderValue::from_static("no");

/// A JSON response with `status`.
pub(crate) fn json_response(status: u16, message: &Outgoing) -> Response<McpBody> {
    let mut response = Response::new(Full::new(Bytes::from(message.framed_json("", ""))).boxed_unsync());
    *response.status_mut() = StatusCode::from_u16(status).expect("a valid status");
    response.headers_mut().insert(header::CONTENT_TYPE, APPLICATION_JSON);
    response
}

/// A JSON-RPC error response with `status`.
pub(crate) fn error_response(status: u16, id: Option<RequestId>, error: ErrorObject) -> Response<McpBody> {
    json_response(status, &Message::Error(ErrorResponse { id, error }).into())
}

/// An empty response (202 for accepted notifications and answers, 200 for DELETE).
pub(crate) fn empty(status: StatusCode) -> Response<McpBody> {
    Response::builder().status(status).body(Empty::new().boxed_unsync()).expect("a valid response")
}

/// One SSE event carrying a message.
pub(crate) fn sse_event(message: &Outgoing) -> Bytes {
    Bytes::from(message.framed_json("event: message\ndata: ", "\n\n"))
}

/// An SSE response: `first` frames, then every message from `messages` until it closes.
/// Dropping the body (the client went away) drops `guard`, which cancels the work behind
/// the stream (HTTP-16).
pub(super) fn sse_response(
    first: Vec<Bytes>,
    messages: mpsc::Receiver<Outgoing>,
    guard: Option<DropGuard>,
) -> Response<McpBody> {
    let rest = futures::stream::unfold((messages, guard), |(mut messages, guard)| async move {
        let message = messages.recv().await?;
        Some((sse_event(&message), (messages, guard)))
    });
    sse_body(futures::stream::iter(first).chain(rest))
}

/// An SSE response of ready frames: `first`, then the live events numbered after `after`
/// (earlier ones were in `first`).
pub(super) fn sse_frames(
    first: Vec<Bytes>,
    live: Option<mpsc::Receiver<LiveFrame>>,
    after: u64,
) -> Response<McpBody> {
    let rest = futures::stream::unfold(live, move |live| async move {
        let mut live = live?;
        loop {
            let (event, bytes) = live.recv().await?;
            if event > after {
                return Some((bytes, Some(live)));
            }
        }
    });
    sse_body(futures::stream::iter(first).chain(rest))
}

/// An SSE response carrying `frames` (never buffered by proxies).
pub(crate) fn sse_body(frames: impl futures::Stream<Item = Bytes> + Send + 'static) -> Response<McpBody> {
    let frames = frames.map(|bytes| Ok::<_, Infallible>(Frame::data(bytes)));
    let mut response = Response::new(StreamBody::new(frames).boxed_unsync());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, EVENT_STREAM);
    headers.insert(header::CACHE_CONTROL, NO_CACHE);
    headers.insert(ACCEL_BUFFERING, NO);
    response
}
