//! `modelctx serve everything` as a child process, driven with raw JSON-RPC lines on its stdin
//! and stdout. Shared by the integration tests; each uses only part of it.
#![allow(dead_code)]

pub mod authorization_server;
pub mod browser;
pub mod conformance;
pub mod http;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Runs `command` to the end with its output captured, at most `limit` (then it is killed and
/// the test fails).
pub fn run_bounded(mut command: std::process::Command, limit: Duration) -> std::process::Output {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = command.spawn().expect("the command starts");
    let pid = child.id().to_string();
    let (done, finished) = channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match finished.recv_timeout(limit) {
        Ok(output) => output.expect("its output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("{command:?} did not finish within {limit:?}")
        }
    }
}

/// The longest any single wait lasts.
pub const WAIT: Duration = Duration::from_secs(10);

/// The running server.
pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
}

/// What one request brought back: its response, and what came before it.
#[derive(Debug)]
pub struct Exchange {
    /// The response (with `result` or `error`).
    pub response: Value,
    /// Notifications that arrived before the response, in order.
    pub notifications: Vec<Value>,
    /// Requests the server sent the client (and the test answered) before the response.
    pub requests: Vec<Value>,
}

impl Exchange {
    /// The response's `result`, or a panic naming the error.
    pub fn result(&self) -> &Value {
        assert!(self.response.get("error").is_none(), "expected a result, got {}", self.response);
        &self.response["result"]
    }

    /// The notifications of `method`.
    pub fn notifications_of(&self, method: &str) -> Vec<&Value> {
        self.notifications.iter().filter(|n| n["method"] == method).collect()
    }
}

impl Server {
    pub fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_modelctx"))
            .args(["serve", "everything"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("modelctx starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self { child, stdin, lines }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    pub fn send_json(&mut self, message: &Value) {
        self.send(&message.to_string());
    }

    /// The next line, as JSON (every line on stdout must be a JSON-RPC message: STDIO-02).
    pub fn next(&self) -> Value {
        let line = self.lines.recv_timeout(WAIT).expect("the server answers in time");
        parse(&line)
    }

    /// The response to `id`, skipping notifications (collected into `seen`).
    pub fn response(&self, id: Value, seen: &mut Vec<Value>) -> Value {
        loop {
            let message = self.next();
            if message.get("id") == Some(&id) && message.get("method").is_none() {
                return message;
            }
            seen.push(message);
        }
    }

    pub fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_request(id, method, params);
        self.response(json!(id), &mut Vec::new())
    }

    pub fn send_request(&mut self, id: i64, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send_json(&message);
    }

    /// Sends a request and reads until its response, answering each request the server sends
    /// meanwhile with `answer(request)` as the result.
    pub fn exchange(
        &mut self,
        id: i64,
        method: &str,
        params: Value,
        mut answer: impl FnMut(&Value) -> Value,
    ) -> Exchange {
        self.send_request(id, method, params);
        let (mut notifications, mut requests) = (Vec::new(), Vec::new());
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next_before(deadline);
            match (message.get("method").is_some(), message.get("id").is_some()) {
                (true, true) => {
                    let result = answer(&message);
                    self.send_json(&json!({"jsonrpc": "2.0", "id": message["id"], "result": result}));
                    requests.push(message);
                }
                (true, false) => notifications.push(message),
                _ if message["id"] == json!(id) => {
                    return Exchange { response: message, notifications, requests };
                }
                _ => panic!("a response to another request arrived while waiting for {id}: {message}"),
            }
        }
    }

    /// [`Server::exchange`] for a server that must not send requests.
    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Exchange {
        self.exchange(id, method, params, |request| panic!("unexpected request from the server: {request}"))
    }

    /// Reads until a message satisfies `wanted`; returns it and what came before it.
    pub fn wait_for(&self, mut wanted: impl FnMut(&Value) -> bool) -> (Value, Vec<Value>) {
        let deadline = Instant::now() + WAIT;
        let mut before = Vec::new();
        loop {
            let message = self.next_before(deadline);
            if wanted(&message) {
                return (message, before);
            }
            before.push(message);
        }
    }

    fn next_before(&self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => parse(&line),
            Err(RecvTimeoutError::Timeout) => panic!("the server did not answer in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its stdout"),
        }
    }

    /// Opens a 2025-11-25 session declaring `capabilities`; returns the `initialize` result.
    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let init = self.request(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "conformance-test-client", "version": "1.0.0"},
            }),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        init.result().clone()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits (bounded) for the process to exit and requires a clean exit.
    pub fn assert_exits_cleanly(&mut self, why: &str) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "{why}: {status}");
                return;
            }
            assert!(started.elapsed() < WAIT, "{why}: the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"))
}

/// `params` as a 2026-07-28 request whose client declares no capabilities.
pub fn modern(params: Value) -> Value {
    modern_as(params, json!({}))
}

/// `params` as a 2026-07-28 request whose client declares `capabilities`.
pub fn modern_as(params: Value, capabilities: Value) -> Value {
    let mut params = if params.is_null() { json!({}) } else { params };
    let mut meta = params.get("_meta").cloned().unwrap_or_else(|| json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    params["_meta"] = meta;
    params
}
