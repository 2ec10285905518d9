//! Load over Streamable HTTP with hyper's connection API: C keep-alive HTTP/1.1 connections
//! with one request at a time on each (one task per connection, driving its connection and its
//! requests together), or, with `--h2`, one HTTP/2 prior-knowledge (h2c) connection carrying C
//! streams. Each worker writes its request bodies into one reused buffer; answers may be JSON
//! or an SSE stream whose `data:` event holds the response.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::{http1, http2};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, Uri};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{Barrier, mpsc};

use crate::report::{self, Measured};
use crate::workload::{self, Answer, Era, MODERN};
use crate::{Failure, Plan, Run};

/// How long a spawned server may take to print `listening on URL`.
const LISTEN_WAIT: Duration = Duration::from_secs(30);
/// How long a spawned server has to exit after SIGTERM before it is killed.
const STOP_WAIT: Duration = Duration::from_secs(30);
/// The largest answer body accepted.
const MAX_BODY: usize = 64 << 20;

/// `MCP-Protocol-Version`.
static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`.
static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `Mcp-Session-Id`.
static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A request sender on either protocol.
enum Sender {
    /// One HTTP/1.1 connection.
    H1(http1::SendRequest<Full<Bytes>>),
    /// One stream at a time of the shared HTTP/2 connection.
    H2(http2::SendRequest<Full<Bytes>>),
}

impl Sender {
    /// Sends `request` once the connection can take it.
    async fn send(&mut self, request: Request<Full<Bytes>>) -> hyper::Result<Response<Incoming>> {
        match self {
            Sender::H1(sender) => {
                sender.ready().await?;
                sender.send_request(request).await
            }
            Sender::H2(sender) => {
                sender.ready().await?;
                sender.send_request(request).await
            }
        }
    }
}

/// Where the server is, and the request head every load request carries.
struct Target {
    /// `host:port`, to connect to.
    authority: String,
    /// The URI of each request: origin-form for HTTP/1.1 (with a `Host` header), absolute for
    /// HTTP/2 (its `:authority`).
    uri: Uri,
    /// Whether to speak h2c.
    h2: bool,
    /// The headers of every load request, built once and cloned per request.
    headers: HeaderMap,
}

impl Target {
    /// Parses `http://host:port/path`.
    fn new(url: &str, h2: bool) -> Result<Self, String> {
        let rest =
            url.strip_prefix("http://").ok_or_else(|| format!("{url}: only http:// URLs are served"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let path = if path.is_empty() { "/" } else { path };
        let uri = if h2 { url.to_owned() } else { path.to_owned() };
        let uri = uri.parse::<Uri>().map_err(|e| format!("{url}: {e}"))?;
        let mut headers = HeaderMap::with_capacity(8);
        if !h2 {
            headers
                .insert(header::HOST, HeaderValue::from_str(authority).map_err(|e| format!("{url}: {e}"))?);
        }
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        Ok(Self { authority: authority.to_owned(), uri, h2, headers })
    }

    /// A POST of `body` with `headers`.
    fn request(&self, headers: &HeaderMap, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = headers.clone();
        request
    }

    /// Opens one connection: its sender, and (HTTP/1.1) the connection future to drive.
    async fn connect(&self) -> Result<(Sender, Option<H1Connection>), Failure> {
        let stream = TcpStream::connect(&self.authority)
            .await
            .map_err(|e| Failure::Run(format!("cannot connect to {}: {e}", self.authority)))?;
        stream.set_nodelay(true).map_err(|e| Failure::Run(e.to_string()))?;
        let io = TokioIo::new(stream);
        if self.h2 {
            let (sender, connection) = http2::handshake(TokioExecutor::new(), io)
                .await
                .map_err(|e| Failure::NoH2c(e.to_string()))?;
            tokio::spawn(connection);
            Ok((Sender::H2(sender), None))
        } else {
            let (sender, connection) = http1::handshake(io).await.map_err(|e| Failure::Run(e.to_string()))?;
            Ok((Sender::H1(sender), Some(connection)))
        }
    }
}

/// An HTTP/1.1 client connection, driven by its worker's task.
type H1Connection = http1::Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// One POST and its answer: the status, whether it is SSE, and the body.
struct Exchange {
    /// The status.
    status: hyper::StatusCode,
    /// Whether the body is `text/event-stream`.
    sse: bool,
    /// The session header of the answer, if any.
    session: Option<HeaderValue>,
}

/// Per-worker buffers, reused for every request.
struct Buffers {
    /// Request bodies are written here and split off, so the space comes back once hyper is
    /// done with the previous one.
    request: BytesMut,
    /// An answer that came in more than one frame is gathered here.
    gathered: Vec<u8>,
    /// An answer that came in one frame.
    single: Option<Bytes>,
}

impl Buffers {
    /// Empty buffers for requests of up to `len` bytes.
    fn new(len: usize) -> Self {
        Self { request: BytesMut::with_capacity(len * 4), gathered: Vec::new(), single: None }
    }

    /// The body last read.
    fn body(&self) -> &[u8] {
        self.single.as_deref().unwrap_or(&self.gathered)
    }
}

/// Sends `body` with `headers` and reads the whole answer into `buffers`.
async fn exchange(
    sender: &mut Sender,
    target: &Target,
    headers: &HeaderMap,
    body: Bytes,
    buffers: &mut Buffers,
) -> Result<Exchange, hyper::Error> {
    let response = sender.send(target.request(headers, body)).await?;
    let (parts, mut body) = response.into_parts();
    buffers.single = None;
    buffers.gathered.clear();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else { continue };
        if data.is_empty() {
            continue;
        }
        match buffers.single.take() {
            None if buffers.gathered.is_empty() => buffers.single = Some(data),
            None => buffers.gathered.extend_from_slice(&data),
            Some(first) => {
                buffers.gathered.extend_from_slice(&first);
                buffers.gathered.extend_from_slice(&data);
            }
        }
        if buffers.gathered.len() > MAX_BODY {
            break;
        }
    }
    let sse = parts
        .headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    Ok(Exchange { status: parts.status, sse, session: parts.headers.get(&SESSION_ID).cloned() })
}

/// The JSON-RPC response with `id` in an answer body: the body itself, or the `data` of the
/// SSE event that holds it. Calls `found` with the message and its parse.
fn find_response<T>(
    exchange: &Exchange,
    body: &[u8],
    id: u64,
    found: impl FnOnce(&Answer<'_>, &[u8]) -> Result<T, String>,
) -> Result<T, String> {
    if !exchange.sse {
        let answer = Answer::parse(body)?;
        if answer.number() != Some(id) {
            return Err(format!("the answer to request {id} has another id: {}", shown(body)));
        }
        return found(&answer, body);
    }
    for data in Events::new(body) {
        let Ok(answer) = Answer::parse(&data) else { continue };
        if answer.method.is_none() && answer.number() == Some(id) {
            return found(&answer, &data);
        }
    }
    Err(format!("the event stream answering request {id} holds no response to it: {}", shown(body)))
}

/// The start of a body, for an error message.
fn shown(body: &[u8]) -> String {
    let more = if body.len() > 400 { " …" } else { "" };
    format!("{}{more}", String::from_utf8_lossy(&body[..body.len().min(400)]))
}

/// The `data` of each event of an SSE stream (lines joined with `\n`), in order; events with
/// no data are skipped. Lines end with `\n` or `\r\n`.
struct Events<'a> {
    /// What is left of the stream.
    rest: &'a [u8],
}

impl<'a> Events<'a> {
    /// The events of `stream`.
    fn new(stream: &'a [u8]) -> Self {
        Self { rest: stream }
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Cow<'a, [u8]>;

    fn next(&mut self) -> Option<Cow<'a, [u8]>> {
        let mut data: Option<Cow<'a, [u8]>> = None;
        while !self.rest.is_empty() {
            let (line, rest) = match memchr::memchr(b'\n', self.rest) {
                Some(at) => (&self.rest[..at], &self.rest[at + 1..]),
                None => (self.rest, &b""[..]),
            };
            self.rest = rest;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                match data {
                    Some(data) if !data.is_empty() => return Some(data),
                    _ => {
                        data = None;
                        continue;
                    }
                }
            }
            let (field, value) = match memchr::memchr(b':', line) {
                Some(at) => (&line[..at], &line[at + 1..]),
                None => (line, &b""[..]),
            };
            if field != b"data" {
                continue; // a comment (empty field), id, event or retry
            }
            let value = value.strip_prefix(b" ").unwrap_or(value);
            data = Some(match data {
                None => Cow::Borrowed(value),
                Some(earlier) => {
                    let mut joined = earlier.into_owned();
                    joined.push(b'\n');
                    joined.extend_from_slice(value);
                    Cow::Owned(joined)
                }
            });
        }
        // A stream that ends without a blank line still delivers its last event.
        data.filter(|data| !data.is_empty())
    }
}

/// A range of request ids, handed out one at a time to every worker.
struct Phase {
    /// The id of the phase's first request.
    first: u64,
    /// How many requests the phase sends.
    count: u64,
    /// How many have been taken.
    next: AtomicU64,
}

/// What the workers share.
struct Shared {
    /// The workload.
    plan: Arc<Plan>,
    /// The target.
    target: Target,
    /// The headers of each load request.
    headers: HeaderMap,
    /// The warm-up, then the measured requests.
    phases: [Phase; 2],
    /// Where the workers and the main task meet between phases.
    barrier: Barrier,
    /// The first failure of any worker.
    failures: mpsc::UnboundedSender<String>,
}

/// One worker: the warm-up and the measured phase on one sender; the measured latencies.
async fn worker(mut sender: Sender, shared: Arc<Shared>) -> Histogram<u64> {
    let mut buffers = Buffers::new(shared.plan.workload.max_request_len());
    let mut warmup = report::histogram();
    let mut latencies = report::histogram();
    let limit = Duration::from_secs_f64(shared.plan.max_seconds);
    shared.barrier.wait().await; // every connection is open
    if let Err(error) = phase(&mut sender, &shared, &shared.phases[0], limit, &mut buffers, &mut warmup).await
    {
        let _ = shared.failures.send(error);
        return latencies;
    }
    shared.barrier.wait().await; // the warm-up is over
    shared.barrier.wait().await; // the window opens
    if let Err(error) =
        phase(&mut sender, &shared, &shared.phases[1], limit, &mut buffers, &mut latencies).await
    {
        let _ = shared.failures.send(error);
        return latencies;
    }
    shared.barrier.wait().await; // the window closes
    latencies
}

/// Takes requests of `phase` until they run out or `limit` has passed, one at a time.
async fn phase(
    sender: &mut Sender,
    shared: &Shared,
    phase: &Phase,
    limit: Duration,
    buffers: &mut Buffers,
    latencies: &mut Histogram<u64>,
) -> Result<(), String> {
    let workload = &shared.plan.workload;
    let len = workload.max_request_len();
    let mut now = Instant::now();
    let deadline = now + limit;
    loop {
        let taken = phase.next.fetch_add(1, Ordering::Relaxed);
        if taken >= phase.count || now >= deadline {
            return Ok(());
        }
        let id = phase.first + taken;
        buffers.request.reserve(len);
        workload.write_request(&mut buffers.request, id);
        let body = buffers.request.split().freeze();
        let sent_at = Instant::now();
        let exchange = exchange(sender, &shared.target, &shared.headers, body, buffers)
            .await
            .map_err(|e| format!("request {id} ({}) failed: {e}", workload.describe()))?;
        now = Instant::now();
        if !exchange.status.is_success() {
            return Err(format!(
                "request {id} ({}) was answered with HTTP {}: {}",
                workload.describe(),
                exchange.status,
                shown(buffers.body())
            ));
        }
        find_response(&exchange, buffers.body(), id, |answer, text| workload.check(id, answer, text))?;
        report::record(latencies, now - sent_at);
    }
}

/// The handshake on the first connection: `server/discover` (modern), or `initialize` and
/// `notifications/initialized` (legacy). The version agreed and the headers of load requests.
async fn handshake(
    sender: &mut Sender,
    target: &Target,
    plan: &Plan,
) -> Result<(String, HeaderMap), Failure> {
    let era = plan.workload.era;
    let mut headers = target.headers.clone();
    if era == Era::Modern {
        headers.insert(PROTOCOL_VERSION.clone(), HeaderValue::from_static(MODERN));
        headers.insert(MCP_METHOD.clone(), HeaderValue::from_static("server/discover"));
    }
    let mut buffers = Buffers::new(1024);
    let body = Bytes::from(workload::handshake_request(era));
    let no_h2 = |e: hyper::Error| {
        if target.h2 {
            Failure::NoH2c(e.to_string())
        } else {
            Failure::Run(format!("the handshake failed: {e}"))
        }
    };
    let answer = exchange(sender, target, &headers, body, &mut buffers).await.map_err(no_h2)?;
    if !answer.status.is_success() {
        let what = if era == Era::Modern { "server/discover" } else { "initialize" };
        return Err(Failure::Run(format!(
            "{what} was answered with HTTP {}: {}",
            answer.status,
            shown(buffers.body())
        )));
    }
    let version = find_response(&answer, buffers.body(), 0, |_, text| workload::check_handshake(era, text))
        .map_err(Failure::Run)?;
    let mut headers = target.headers.clone();
    headers.insert(
        PROTOCOL_VERSION.clone(),
        HeaderValue::from_str(&version).map_err(|e| Failure::Run(e.to_string()))?,
    );
    match era {
        Era::Modern => {
            headers.insert(MCP_METHOD.clone(), HeaderValue::from_static(plan.workload.method()));
            if let Some(tool) = plan.workload.tool() {
                headers.insert(MCP_NAME.clone(), HeaderValue::from_static(tool));
            }
        }
        Era::Legacy => {
            if let Some(session) = answer.session {
                headers.insert(SESSION_ID.clone(), session);
            }
            let done =
                exchange(sender, target, &headers, Bytes::from_static(workload::INITIALIZED), &mut buffers)
                    .await
                    .map_err(|e| Failure::Run(format!("notifications/initialized failed: {e}")))?;
            if !done.status.is_success() {
                return Err(Failure::Run(format!(
                    "notifications/initialized was answered with HTTP {}: {}",
                    done.status,
                    shown(buffers.body())
                )));
            }
        }
    }
    Ok((version, headers))
}

/// A spawned HTTP server: the process and the last lines of its stderr.
struct Server {
    /// The process (killed if dropped before it is stopped).
    child: tokio::process::Child,
    /// The last lines it wrote to stderr.
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl Server {
    /// Starts `command` and waits for its `listening on URL` line; the server and the URL.
    async fn start(command: &[String]) -> Result<(Self, String), Failure> {
        let (program, args) =
            command.split_first().ok_or(Failure::Run("--http needs a command after --".into()))?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Failure::Run(format!("{program} could not be started: {e}")))?;
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let url = tokio::time::timeout(LISTEN_WAIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.split("listening on ").nth(1) {
                    return Some(url.split_whitespace().next().unwrap_or_default().to_owned());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| Failure::Run(format!("{program} printed no `listening on URL` line within 30 s")))?;
        // Keep its stderr flowing so that it never blocks on a full pipe; keep the last lines.
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let mut tail = tail.lock().expect("never poisoned");
                if tail.len() == 20 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        Ok((Self { child, stderr }, url))
    }

    /// Stops the server with SIGTERM; SIGKILL if it is still there after [`STOP_WAIT`].
    async fn stop(mut self) {
        let pid =
            self.child.id().and_then(|pid| i32::try_from(pid).ok()).and_then(rustix::process::Pid::from_raw);
        if let Some(pid) = pid {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        if tokio::time::timeout(STOP_WAIT, self.child.wait()).await.is_err() {
            let _ = self.child.kill().await;
        }
    }

    /// What the server last wrote to stderr, for an error message.
    fn tail(&self) -> String {
        let tail = self.stderr.lock().expect("never poisoned");
        if tail.is_empty() {
            return String::new();
        }
        format!("\nthe server's last stderr lines:\n{}", Vec::from(tail.clone()).join("\n"))
    }
}

/// Runs the plan over HTTP: against the server `command` starts (with `--http`), or against
/// `url` with `pid` the server's process.
pub async fn run(
    command: &[String],
    url: Option<&str>,
    pid: Option<u32>,
    plan: Arc<Plan>,
) -> Result<Run, Failure> {
    let started = Instant::now();
    let (server, url) = match url {
        Some(url) => (None, url.to_owned()),
        None => {
            let (server, url) = Server::start(command).await?;
            (Some(server), url)
        }
    };
    let pid = server.as_ref().and_then(|s| s.child.id()).or(pid);
    let outcome = drive(&url, pid, started, server.is_some(), plan).await;
    match (outcome, server) {
        (Ok(run), Some(server)) => {
            server.stop().await;
            Ok(run)
        }
        (Ok(run), None) => Ok(run),
        (Err(Failure::Run(message)), Some(server)) => {
            Err(Failure::Run(format!("{message}{}", server.tail())))
        }
        (Err(failure), _) => Err(failure),
    }
}

/// Connects, does the handshake, runs both phases and measures the window.
async fn drive(
    url: &str,
    pid: Option<u32>,
    started: Instant,
    spawned: bool,
    plan: Arc<Plan>,
) -> Result<Run, Failure> {
    let target = Target::new(url, plan.h2)?;
    let concurrency = plan.concurrency.max(1);
    let (mut first, mut first_connection) = target.connect().await?;
    let handshake = tokio::time::timeout(LISTEN_WAIT, async {
        match first_connection.as_mut() {
            // The HTTP/1.1 connection is driven here until the handshake is done.
            Some(connection) => tokio::select! {
                done = handshake(&mut first, &target, &plan) => done,
                closed = connection => Err(Failure::Run(format!("the connection closed during the handshake: {closed:?}"))),
            },
            None => handshake(&mut first, &target, &plan).await,
        }
    })
    .await;
    let (version, headers) = match handshake {
        Ok(Ok(done)) => done,
        Ok(Err(failure)) => return Err(failure),
        Err(_) if target.h2 => {
            return Err(Failure::NoH2c(format!("no answer within {} s", LISTEN_WAIT.as_secs())));
        }
        Err(_) => {
            return Err(Failure::Run(format!(
                "the handshake had no answer within {} s",
                LISTEN_WAIT.as_secs()
            )));
        }
    };
    let cold_start = spawned.then(|| started.elapsed());

    let (failures, mut failed) = mpsc::unbounded_channel();
    let phases = [
        Phase { first: 1, count: plan.warmup, next: AtomicU64::new(0) },
        Phase { first: 1 + plan.warmup, count: plan.requests, next: AtomicU64::new(0) },
    ];
    let mut senders = vec![(first, first_connection)];
    for _ in 1..concurrency {
        senders.push(match (&senders[0].0, target.h2) {
            (Sender::H2(shared), true) => (Sender::H2(shared.clone()), None),
            _ => target.connect().await?,
        });
    }
    let shared = Arc::new(Shared {
        plan: Arc::clone(&plan),
        target,
        headers,
        phases,
        barrier: Barrier::new(concurrency + 1),
        failures,
    });
    let workers: Vec<_> = senders
        .into_iter()
        .map(|(sender, connection)| {
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                match connection {
                    // One task drives the connection and its requests together; the
                    // connection ends when the worker drops its sender.
                    Some(connection) => tokio::join!(worker(sender, shared), connection).0,
                    None => worker(sender, shared).await,
                }
            })
        })
        .collect();
    // Waits at the barrier unless a worker fails first.
    macro_rules! meet {
        () => {
            tokio::select! {
                _ = shared.barrier.wait() => {}
                Some(error) = failed.recv() => return Err(Failure::Run(error)),
            }
        };
    }
    meet!(); // connected
    meet!(); // warmed up
    let cpu_before = pid.and_then(report::cpu_time);
    let window_start = Instant::now();
    meet!(); // measuring
    meet!(); // done
    let window = window_start.elapsed();
    let cpu_after = pid.and_then(report::cpu_time);
    let peak_rss = pid.and_then(report::peak_rss);
    let mut latencies = report::histogram();
    for worker in workers {
        let worker = worker.await.map_err(|e| Failure::Run(format!("a worker failed: {e}")))?;
        latencies.add(worker).map_err(|e| Failure::Run(e.to_string()))?;
    }
    let server_cpu = cpu_before.zip(cpu_after).map(|(before, after)| after.saturating_sub(before));
    Ok(Run { version, measured: Measured { latencies, window, server_cpu, peak_rss }, cold_start })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read() {
        let stream =
            b"data: \nid: 0\nretry: 3000\n\ndata: {\"id\":1}\r\nid: 1/0\r\n\r\n: comment\ndata:a\ndata: b\n";
        let events: Vec<_> = Events::new(stream).collect();
        assert_eq!(events, vec![Cow::Borrowed(&b"{\"id\":1}"[..]), Cow::Owned(b"a\nb".to_vec())]);
        let exchange = Exchange { status: hyper::StatusCode::OK, sse: true, session: None };
        let body = b"data: \n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n";
        assert!(find_response(&exchange, body, 7, |_, text| Ok(text.len())).is_ok());
        assert!(find_response(&exchange, body, 8, |_, _| Ok(())).is_err());
    }

    #[test]
    fn urls_are_split() {
        let target = Target::new("http://127.0.0.1:8080/mcp", false).unwrap();
        assert_eq!((target.authority.as_str(), target.uri.to_string().as_str()), ("127.0.0.1:8080", "/mcp"));
        assert_eq!(target.headers[header::HOST], "127.0.0.1:8080");
        let target = Target::new("http://[::1]:9/mcp", true).unwrap();
        assert_eq!(target.uri.to_string(), "http://[::1]:9/mcp");
        assert!(Target::new("https://x/mcp", false).is_err());
    }
}
