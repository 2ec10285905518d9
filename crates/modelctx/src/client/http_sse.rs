//! The deprecated HTTP+SSE transport (2024-11-05), the last fallback for old servers: a GET
//! opens an event stream whose first `endpoint` event names where to POST messages; the
//! server's messages arrive as `message` events on the stream. Both directions are turned into
//! JSON lines, so the stdio peer ([`super::rpc::Rpc`]) runs over them unchanged.

use modelctx_protocol::jsonrpc::ParseLimits;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio_util::sync::CancellationToken;

use super::ClientError;
use super::sse::SseReader;

/// Bytes buffered between the HTTP tasks and the JSON-RPC peer.
const PIPE: usize = 256 * 1024;

/// The stream pair of an HTTP+SSE session: messages from the server as lines, and lines to
/// POST to it. The session ends when `closing` trips or the server closes its stream.
pub(super) type Lines = (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>);

/// Opens the event stream at `url` and waits for its `endpoint` event.
pub(super) async fn open(
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    limits: &ParseLimits,
    closing: CancellationToken,
) -> Result<Lines, ClientError> {
    let transport =
        |e: reqwest::Error| ClientError::transport(format!("GET {url} (HTTP+SSE) failed: {e}"), e);
    let response =
        http.get(url.clone()).headers(headers.clone()).header(ACCEPT, "text/event-stream").send().await;
    let response = response.map_err(transport)?;
    let is_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !response.status().is_success() || !is_stream {
        let status = response.status().as_u16();
        return Err(ClientError::http(status, "no HTTP+SSE event stream here either"));
    }
    let mut events = SseReader::new(response, limits);
    let endpoint = loop {
        let Some(event) = events.next().await else {
            return Err(ClientError::closed("the event stream ended before its endpoint event"));
        };
        if event.event.as_deref() == Some("endpoint") {
            let endpoint = url
                .join(event.data.trim())
                .map_err(|e| ClientError::malformed(format!("the endpoint event {:?}: {e}", event.data)))?;
            // Every POST carries this client's headers (a bearer token): never to another origin.
            if endpoint.origin() != url.origin() {
                return Err(ClientError::malformed(format!(
                    "the endpoint event: {endpoint} is not on the origin of the event stream {url}; its messages would carry this client's headers there"
                )));
            }
            break endpoint;
        }
    };
    let (ours, theirs) = tokio::io::duplex(PIPE);
    let (from_server, to_server) = tokio::io::split(ours);
    let (outgoing, mut incoming) = tokio::io::split(theirs);
    // The server's messages, one line each.
    let stop = closing.clone();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => return,
                event = events.next() => event,
            };
            // The stream's end drops `incoming`, which ends the peer's input: pending requests fail.
            let Some(event) = event else { return };
            if event.event.as_deref().unwrap_or("message") == "message" && !event.data.trim().is_empty() {
                let line = format!("{}\n", event.data.replace('\n', " "));
                if incoming.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    });
    // Our messages, each POSTed to the endpoint.
    tokio::spawn(async move {
        let mut lines = BufReader::new(outgoing).lines();
        loop {
            let line = tokio::select! {
                () = closing.cancelled() => return,
                line = lines.next_line() => line,
            };
            let Ok(Some(line)) = line else { return };
            let posted = http
                .post(endpoint.clone())
                .headers(headers.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(line)
                .send()
                .await;
            match posted {
                Ok(response) if response.status().is_success() => {}
                Ok(response) => {
                    tracing::warn!(status = %response.status(), "the HTTP+SSE endpoint refused a message")
                }
                Err(e) => tracing::warn!(error = %e, "posting to the HTTP+SSE endpoint failed"),
            }
        }
    });
    Ok((from_server, to_server))
}
