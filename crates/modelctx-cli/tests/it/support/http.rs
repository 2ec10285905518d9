//! `modelctx serve … --http 127.0.0.1:0` as a child process: started, its address read from
//! its `listening on` line, killed and reaped when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::WAIT;

/// A child process, killed (and reaped) when dropped, whatever the test did before.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Guard {
    /// Waits, at most [`WAIT`], for the process to exit.
    pub fn wait_bounded(&mut self, what: &str) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.0.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "{what}: the process did not exit in time");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A server listening on loopback.
pub struct HttpServer {
    /// Killed when the server is dropped.
    _process: Guard,
    /// Where it listens.
    pub address: SocketAddr,
    /// What it wrote on stderr before `listening on`.
    pub log: Vec<String>,
    /// Later stderr lines (kept flowing, so the pipe never fills).
    stderr: Receiver<String>,
}

impl HttpServer {
    /// Starts `command` (a `modelctx serve … --http 127.0.0.1:0`) and waits, at most
    /// [`WAIT`], for its `listening on http://ADDRESS/mcp` line.
    pub fn start(mut command: Command) -> Self {
        let mut child =
            command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("the server starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut process = Guard(child);
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + WAIT;
        let mut log = Vec::new();
        let address = loop {
            match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    match line.strip_prefix("listening on http://").and_then(|l| l.strip_suffix("/mcp")) {
                        Some(address) => break address.parse::<SocketAddr>().expect("a socket address"),
                        None => log.push(line),
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no `listening on` line in time: {log:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = process.wait_bounded("a server that closed stderr");
                    panic!("the server exited ({status}) before listening: {log:?}")
                }
            }
        };
        assert!(address.ip().is_loopback() && address.port() != 0, "{address}");
        Self { _process: process, address, log, stderr: lines }
    }

    /// The first later stderr line `wanted` accepts, waiting at most [`WAIT`]; the lines
    /// before it are passed over.
    pub fn log_line(&self, mut wanted: impl FnMut(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.stderr.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if wanted(&line) => return line,
                Ok(_) => {}
                Err(e) => panic!("no such stderr line in time: {e}"),
            }
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self._process.0.id()
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }
}

impl HttpServer {
    /// POSTs one 2026-07-28 request to `/mcp` over a fresh connection, with the headers that
    /// mirror its body; returns the HTTP status and the JSON-RPC response.
    pub fn post(&self, request: &Value) -> (u16, Value) {
        self.post_as(&self.address.to_string(), request)
    }

    /// Like [`HttpServer::post`], with `host` in the `Host` header (as a client reaching the
    /// server under that name sends it).
    pub fn post_as(&self, host: &str, request: &Value) -> (u16, Value) {
        let method = request["method"].as_str().expect("a request");
        let body = request.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: {method}\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if let Some(name) = request["params"]["name"].as_str().filter(|_| method == "tools/call") {
            assert!(name.is_ascii(), "plain Mcp-Name values only");
            head.push_str(&format!("Mcp-Name: {name}\r\n"));
        }
        let mut stream = TcpStream::connect_timeout(&self.address, WAIT).expect("connect");
        stream.set_read_timeout(Some(WAIT)).expect("read timeout");
        stream.set_write_timeout(Some(WAIT)).expect("write timeout");
        stream.write_all(format!("{head}\r\n{body}").as_bytes()).expect("send the request");
        let deadline = Instant::now() + WAIT;
        let mut raw = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            assert!(Instant::now() < deadline, "{method}: the answer did not end in time");
            match stream.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => raw.extend_from_slice(&buffer[..n]),
                Err(e) => panic!("{method}: reading the answer failed: {e}"),
            }
        }
        parse_answer(&raw)
    }
}

/// The status and the JSON-RPC response of an HTTP/1.1 answer: plain JSON, or the response
/// at the end of an SSE stream; either may be chunked.
fn parse_answer(raw: &[u8]) -> (u16, Value) {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete head");
    let head = std::str::from_utf8(&raw[..split]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok());
    let status: u16 = status.unwrap_or_else(|| panic!("a status line: {head}"));
    let headers: Vec<(String, &str)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim()))
        .collect();
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let mut body = raw[split + 4..].to_vec();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body);
    }
    let body = String::from_utf8(body).expect("a UTF-8 body");
    let response = if header("content-type").is_some_and(|v| v.starts_with("text/event-stream")) {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
            .map(|data| serde_json::from_str::<Value>(data).expect("an SSE event of JSON"))
            .rfind(|message| message.get("method").is_none())
            .unwrap_or_else(|| panic!("no response in the stream: {body}"))
    } else {
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {body}"))
    };
    (status, response)
}

/// The body of a `Transfer-Encoding: chunked` message.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = body.windows(2).position(|w| w == b"\r\n").expect("a chunk size line");
        let size = std::str::from_utf8(&body[..end]).expect("an ASCII chunk size");
        let size = usize::from_str_radix(size.split(';').next().unwrap_or(size).trim(), 16).expect("hex");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 2 + size + 2..];
    }
}
