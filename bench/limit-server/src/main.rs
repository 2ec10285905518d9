//! `limit-server`: the limit for modelctx's benchmarks. A hand-written MCP server with no MCP
//! library — serde_json for parsing, hyper for HTTP — serving `echo`, `add` and any number of
//! `tool_NNNN` filler tools, as fast as a correct server can: each message is parsed from its
//! bytes into borrowed structs and each answer is written straight into the output buffer.
//!
//! stdio by default (JSON lines, plain blocking I/O on the main thread, answers flushed in one
//! write per batch of lines read); `--http ADDR` serves POST `/mcp` over HTTP/1.1 and h2c
//! (prior knowledge) on the same port.

mod mcp;

use std::collections::HashSet;
use std::convert::Infallible;
use std::hash::{BuildHasher, RandomState};
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;

use mcp::{Failure, Message, Server, Status};

/// The largest message accepted, on either transport.
const MAX_MESSAGE: usize = 16 << 20;

/// The usage text.
const USAGE: &str = "\
usage: limit-server [--extra-tools N] [--http ADDR [--threads N]]

  (no --http)        serve MCP over stdin/stdout (JSON lines); exits on stdin EOF
  --extra-tools N    also serve tool_0000 .. tool_{N-1} (default 0)
  --http ADDR        serve POST http://ADDR/mcp (HTTP/1.1 and h2c), e.g. 127.0.0.1:0
  --threads N        HTTP runtime threads: 1 = one current-thread runtime (default 1)
";

/// Command-line options.
struct Options {
    /// How many `tool_NNNN` tools to serve besides `echo` and `add`.
    extra_tools: usize,
    /// Serve HTTP on this address instead of stdio.
    http: Option<String>,
    /// Worker threads of the HTTP runtime.
    threads: usize,
}

impl Options {
    /// Parses the process arguments; `Err("")` asks for the usage text.
    fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        let mut options = Options { extra_tools: 0, http: None, threads: 1 };
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
                _ => (arg, None),
            };
            let mut value =
                |name: &str| inline.clone().or_else(|| args.next()).ok_or(format!("{name} needs a value"));
            let count = |name: &str, raw: String| {
                raw.parse::<usize>().map_err(|_| format!("{name}: not a count: {raw}"))
            };
            match flag.as_str() {
                "--extra-tools" => options.extra_tools = count("--extra-tools", value("--extra-tools")?)?,
                "--http" => options.http = Some(value("--http")?),
                "--threads" => options.threads = count("--threads", value("--threads")?)?.max(1),
                "-h" | "--help" => return Err(String::new()),
                other => return Err(format!("unknown argument: {other}")),
            }
        }
        Ok(options)
    }
}

/// Parses the options and serves until stdin closes (stdio) or the process is signalled (HTTP).
fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) if message.is_empty() => {
            eprint!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("limit-server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = Server::new(options.extra_tools);
    let outcome = match &options.http {
        Some(addr) => serve_http(server, addr, options.threads),
        None => serve_stdio(&server),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("limit-server: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Serves JSON lines on stdin/stdout until stdin closes. Reads as much as the pipe holds,
/// answers every complete line into one buffer, writes that buffer once, and only then blocks
/// on the next read: one read and one write per batch, no thread hand-off.
fn serve_stdio(server: &Server) -> std::io::Result<()> {
    // Owned duplicates of fds 0 and 1: plain files, with no std lock or buffer in the way.
    let mut input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let mut output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    let mut buf = vec![0u8; 64 << 10];
    let (mut start, mut filled, mut scanned) = (0usize, 0usize, 0usize);
    let mut out = Vec::with_capacity(64 << 10);
    // Whether an `initialize` has opened the (one, process-wide) legacy session.
    let mut legacy = false;
    loop {
        while let Some(newline) = memchr::memchr(b'\n', &buf[scanned..filled]) {
            let end = scanned + newline;
            answer_line(server, &buf[start..end], &mut legacy, &mut out);
            start = end + 1;
            scanned = start;
        }
        scanned = filled;
        if !out.is_empty() {
            output.write_all(&out)?;
            out.clear();
        }
        if start == filled {
            (start, filled, scanned) = (0, 0, 0);
        } else if start > 0 {
            // Only the start of one line is left: move it to the front.
            buf.copy_within(start..filled, 0);
            (filled, scanned) = (filled - start, scanned - start);
            start = 0;
        }
        if buf.len() - filled < 16 << 10 {
            if filled - start > MAX_MESSAGE {
                return Err(std::io::Error::other("a line longer than 16 MiB"));
            }
            let grown = buf.len() * 2;
            buf.resize(grown, 0);
        }
        let read = match input.read(&mut buf[filled..]) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if read == 0 {
            // EOF: a last line without its newline is still a message.
            if start < filled {
                answer_line(server, &buf[start..filled], &mut legacy, &mut out);
                output.write_all(&out)?;
            }
            return Ok(());
        }
        filled += read;
    }
}

/// Answers one stdio line (if it asks for an answer), newline included.
fn answer_line(server: &Server, line: &[u8], legacy: &mut bool, out: &mut Vec<u8>) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let before = out.len();
    match mcp::parse(line) {
        Message::Request(request) => {
            let status = server.respond(&request, *legacy, out);
            if request.method == "initialize" && status == Status::Ok {
                *legacy = true;
            }
        }
        Message::Invalid(failure) => {
            failure.write(out);
        }
        Message::Notification => {}
    }
    if out.len() > before {
        out.push(b'\n');
    }
}

/// What every HTTP connection shares: the server and the legacy sessions.
struct Shared {
    /// The MCP server.
    server: Server,
    /// The open 2025-11-25 sessions, by id.
    sessions: Mutex<HashSet<u128>>,
    /// The secret keys of the session-id generator (SipHash keyed from the OS at start-up).
    keys: RandomState,
    /// How many session ids have been made.
    minted: AtomicU64,
}

impl Shared {
    /// A new session: 128 bits of SipHash over a counter under the process's random keys,
    /// as 32 hex digits.
    fn open_session(&self) -> HeaderValue {
        let n = self.minted.fetch_add(1, Ordering::Relaxed);
        let id = (u128::from(self.keys.hash_one((n, 0u8))) << 64) | u128::from(self.keys.hash_one((n, 1u8)));
        self.sessions.lock().expect("the session set is never poisoned").insert(id);
        HeaderValue::from_str(&format!("{id:032x}")).expect("hex digits are a header value")
    }

    /// Whether `value` names an open session; removes it when `close`.
    fn session(&self, value: &HeaderValue, close: bool) -> bool {
        let bytes = value.as_bytes();
        let Some(id) = (bytes.len() == 32)
            .then(|| std::str::from_utf8(bytes).ok())
            .flatten()
            .and_then(|hex| u128::from_str_radix(hex, 16).ok())
        else {
            return false;
        };
        let mut sessions = self.sessions.lock().expect("the session set is never poisoned");
        if close { sessions.remove(&id) } else { sessions.contains(&id) }
    }
}

/// Serves `/mcp` on `addr` (HTTP/1.1 and h2c) until the process is killed.
fn serve_http(server: Server, addr: &str, threads: usize) -> std::io::Result<()> {
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_io().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_io().build()?
    };
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    let shared = Arc::new(Shared {
        server,
        sessions: Mutex::new(HashSet::new()),
        keys: RandomState::new(),
        minted: AtomicU64::new(0),
    });
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let builder = auto::Builder::new(TokioExecutor::new());
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(error) => {
                    eprintln!("limit-server: accept: {error}");
                    continue;
                }
            };
            // No Nagle delay on small answers.
            let _ = stream.set_nodelay(true);
            let shared = Arc::clone(&shared);
            let builder = builder.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let shared = Arc::clone(&shared);
                    async move { Ok::<_, Infallible>(handle(request, &shared).await) }
                });
                let _ = builder.serve_connection(TokioIo::new(stream), service).await;
            });
        }
    })
}

/// The `Mcp-Session-Id` header.
static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// The `MCP-Protocol-Version` header.
static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// The `Mcp-Method` header.
static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// The `Mcp-Name` header.
static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// Answers one HTTP request.
async fn handle(request: Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    if request.uri().path() != "/mcp" {
        return empty(StatusCode::NOT_FOUND);
    }
    if request.headers().get(header::ORIGIN).is_some_and(|origin| !is_local_origin(origin.as_bytes())) {
        return empty(StatusCode::FORBIDDEN);
    }
    match *request.method() {
        Method::POST => post(request, shared).await,
        Method::DELETE => match request.headers().get(&SESSION_ID) {
            Some(id) if shared.session(id, true) => empty(StatusCode::OK),
            Some(_) => empty(StatusCode::NOT_FOUND),
            None => empty(StatusCode::BAD_REQUEST),
        },
        _ => {
            let mut response = empty(StatusCode::METHOD_NOT_ALLOWED);
            response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
            response
        }
    }
}

/// Answers a POST of one JSON-RPC message.
async fn post(request: Request<Incoming>, shared: &Shared) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let json = parts.headers.get(header::CONTENT_TYPE).is_some_and(|t| {
        let t = t.as_bytes();
        t.len() >= 16 && t[..16].eq_ignore_ascii_case(b"application/json")
    });
    if !json {
        return empty(StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let body = match Limited::new(body, MAX_MESSAGE).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return empty(StatusCode::PAYLOAD_TOO_LARGE),
    };
    let headers = &parts.headers;
    let mut out = Vec::with_capacity(body.len() + 256);
    let mut session = None;
    let status = match mcp::parse(&body) {
        Message::Notification => return empty(StatusCode::ACCEPTED),
        Message::Invalid(failure) => failure.write(&mut out),
        Message::Request(request) if request.method == "initialize" => {
            let status = shared.server.respond(&request, false, &mut out);
            if status == Status::Ok {
                session = Some(shared.open_session());
            }
            status
        }
        Message::Request(request) => match request.modern_version() {
            Some(version) => match check_modern_headers(headers, &request, version) {
                Ok(()) => shared.server.respond(&request, false, &mut out),
                Err(message) => {
                    Failure::new(Some(request.id), mcp::HEADER_MISMATCH, message, Status::BadRequest)
                        .write(&mut out)
                }
            },
            None => {
                let id = Some(request.id);
                match headers.get(&SESSION_ID) {
                    None => Failure::new(
                        id,
                        mcp::INVALID_REQUEST,
                        "Bad Request: no Mcp-Session-Id",
                        Status::BadRequest,
                    )
                    .write(&mut out),
                    Some(value) if !shared.session(value, false) => {
                        Failure::new(id, -32001, "Session not found", Status::NotFound).write(&mut out)
                    }
                    Some(_) => match headers.get(&PROTOCOL_VERSION) {
                        Some(v) if !mcp::LEGACY.iter().any(|l| l.as_bytes() == v.as_bytes()) => {
                            let message = "Bad Request: unsupported MCP-Protocol-Version";
                            Failure::new(id, mcp::INVALID_REQUEST, message, Status::BadRequest)
                                .write(&mut out)
                        }
                        _ => shared.server.respond(&request, true, &mut out),
                    },
                }
            }
        },
    };
    let mut response = Response::new(Full::new(Bytes::from(out)));
    *response.status_mut() = match status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    };
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(session) = session {
        response.headers_mut().insert(SESSION_ID.clone(), session);
    }
    response
}

/// The 2026-07-28 header rules: `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`)
/// `Mcp-Name` must be there and match the body.
fn check_modern_headers(
    headers: &HeaderMap,
    request: &mcp::Request<'_>,
    version: &str,
) -> Result<(), String> {
    let header = |name: &HeaderName| headers.get(name).map(HeaderValue::as_bytes);
    match header(&PROTOCOL_VERSION) {
        None => return Err("Header mismatch: missing MCP-Protocol-Version header".into()),
        Some(value) if value != version.as_bytes() => {
            return Err(format!(
                "Header mismatch: MCP-Protocol-Version header value '{}' does not match body value '{version}'",
                String::from_utf8_lossy(value)
            ));
        }
        Some(_) => {}
    }
    match header(&MCP_METHOD) {
        None => return Err("Header mismatch: missing Mcp-Method header".into()),
        Some(value) if value != request.method.as_bytes() => {
            return Err(format!(
                "Header mismatch: Mcp-Method header value '{}' does not match body value '{}'",
                String::from_utf8_lossy(value),
                request.method
            ));
        }
        Some(_) => {}
    }
    if request.method == "tools/call"
        && let Some(name) = request.name()
    {
        let matches = match header(&MCP_NAME) {
            None => return Err("Header mismatch: missing Mcp-Name header".into()),
            Some(value) => match value.strip_prefix(b"=?base64?").and_then(|v| v.strip_suffix(b"?=")) {
                Some(encoded) => base64_decode(encoded).is_some_and(|decoded| decoded == name.as_bytes()),
                None => value == name.as_bytes(),
            },
        };
        if !matches {
            return Err(format!("Header mismatch: Mcp-Name header does not match body value '{name}'"));
        }
    }
    Ok(())
}

/// Decodes standard Base64 (with or without `=` padding); `None` if it is not Base64.
fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let text = text.strip_suffix(b"==").or_else(|| text.strip_suffix(b"=")).unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in text {
        let sextet = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(sextet);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    (bits < 6).then_some(out)
}

/// Whether an `Origin` names this machine (`localhost`, `127.0.0.1` or `[::1]`, any scheme
/// and port): the DNS-rebinding check the transport requires.
fn is_local_origin(origin: &[u8]) -> bool {
    let Some(rest) = origin.windows(3).position(|w| w == b"://").map(|at| &origin[at + 3..]) else {
        return false;
    };
    let host = if rest.starts_with(b"[") {
        rest.iter().position(|&b| b == b']').map_or(rest, |end| &rest[..=end])
    } else {
        rest.iter().position(|&b| b == b':' || b == b'/').map_or(rest, |end| &rest[..end])
    };
    host.eq_ignore_ascii_case(b"localhost") || host == b"127.0.0.1" || host == b"[::1]"
}

/// A response with no body.
fn empty(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_origins() {
        assert_eq!(base64_decode(b"SGVsbG8sIOS4lueVjA==").as_deref(), Some("Hello, 世界".as_bytes()));
        assert_eq!(base64_decode(b"ZWNobw").as_deref(), Some(&b"echo"[..]));
        assert!(base64_decode(b"e!").is_none());
        assert!(is_local_origin(b"http://localhost:3000"));
        assert!(is_local_origin(b"https://[::1]"));
        assert!(!is_local_origin(b"http://evil.example"));
        assert!(!is_local_origin(b"null"));
    }
}
