//! The soak against real processes: `modelctx serve everything` on Streamable HTTP and on
//! stdio, each a child process, under a steady mix for `SOAK_SECONDS` (default 120) —
//! 2026-07-28 calls from clients that reconnect, calls dropped mid-way, tasks followed or
//! cancelled, legacy sessions opened, streamed, ended or left to expire, listen streams
//! opened and dropped; on stdio, calls, cancellations and malformed lines, and short-lived
//! servers started and closed. Every request is answered (but those dropped or cancelled),
//! and each server's resident memory and file descriptors stay flat: sampled every
//! [`SAMPLE_EVERY`], the second half of the run (after a warm-up) holds no more than the first
//! half did, within [`MEMORY_SLACK`], and the descriptors return to where they started.
//!
//! `scripts/test.sh` runs two minutes; `scripts/soak.sh` runs an hour.

use std::collections::HashSet;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

use super::support::http::HttpServer;

const SAMPLE_EVERY: Duration = Duration::from_secs(2);
/// How much the second half's median resident memory may exceed the first half's.
const MEMORY_SLACK: u64 = 8 * 1024 * 1024;
/// The longest any one request may take to be answered.
const DEADLINE: Duration = Duration::from_secs(10);
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// What a process holds, from `/proc`.
#[derive(Clone, Copy, Debug)]
struct Usage {
    rss: u64,
    fds: usize,
}

fn usage(pid: u32) -> Usage {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    Usage { rss: kib * 1024, fds }
}

/// What the load saw.
#[derive(Default)]
struct Tally {
    answered: AtomicU64,
    dropped: AtomicU64,
    failures: Mutex<Vec<String>>,
}

impl Tally {
    fn fail(&self, what: String) {
        self.failures.lock().unwrap().push(what);
    }

    /// Counts `result`: an answer, or a failure named `what`.
    fn count(&self, what: &str, result: Result<(), String>) {
        match result {
            Ok(()) => {
                self.answered.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => self.fail(format!("{what}: {e}")),
        }
    }
}

/// The JSON-RPC message answering a request, from a JSON body or an event stream.
async fn answer(request: reqwest::RequestBuilder) -> Result<(reqwest::header::HeaderMap, Value), String> {
    let response = tokio::time::timeout(DEADLINE, request.send())
        .await
        .map_err(|_| "no answer in time".to_owned())?
        .map_err(|e| format!("{e:?}"))?;
    let (status, headers) = (response.status(), response.headers().clone());
    let body = tokio::time::timeout(DEADLINE, response.text())
        .await
        .map_err(|_| "no body in time".to_owned())?
        .map_err(|e| format!("{e:?}"))?;
    if !status.is_success() {
        return Err(format!("HTTP {status}: {body}"));
    }
    let message = if body.trim_start().starts_with('{') {
        serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?
    } else {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m.get("result").is_some() || m.get("error").is_some())
            .ok_or_else(|| format!("no answer in the stream: {body}"))?
    };
    match message.get("result") {
        Some(_) => Ok((headers, message)),
        None => Err(format!("an error: {message}")),
    }
}

fn modern(http: &reqwest::Client, url: &str, method: &str, params: Value) -> reqwest::RequestBuilder {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
    });
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params.get("name").or_else(|| params.get("taskId")).and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    request.body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
}

/// A 2026-07-28 client that reconnects every few rounds: echo, a listing, a call dropped
/// mid-way, a task followed to its end or cancelled.
async fn modern_client(url: String, until: Instant, tally: Arc<Tally>) {
    let mut round = 0u64;
    while Instant::now() < until {
        let http = reqwest::Client::new(); // a new connection every 20 rounds
        for _ in 0..20 {
            round += 1;
            let said = format!("soak {round}");
            let echo =
                modern(&http, &url, "tools/call", json!({"name": "echo", "arguments": {"message": said}}));
            tally.count(
                "echo",
                answer(echo).await.and_then(|(_, m)| {
                    let text = m["result"]["content"][0]["text"].as_str().unwrap_or_default();
                    if text == said { Ok(()) } else { Err(format!("echoed {m}")) }
                }),
            );
            let list = modern(&http, &url, "tools/list", json!({}));
            tally.count("tools/list", answer(list).await.map(drop));
            // Dropped mid-way: the server cancels the handler.
            let long = modern(
                &http,
                &url,
                "tools/call",
                json!({"name": "long_running_operation", "arguments": {"steps": 100, "step_ms": 100}}),
            );
            let _ = tokio::time::timeout(Duration::from_millis(30), long.send()).await;
            tally.dropped.fetch_add(1, Ordering::Relaxed);
            follow_task(&http, &url, round.is_multiple_of(2), &tally).await;
        }
    }
}

/// Creates a task and either cancels it or follows it to its end.
async fn follow_task(http: &reqwest::Client, url: &str, cancel: bool, tally: &Tally) {
    let seconds = if cancel { 30.0 } else { 0.05 };
    let create = modern(
        http,
        url,
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": seconds, "label": "soak"}}),
    );
    let id = match answer(create).await {
        Ok((_, m)) if m["result"]["resultType"] == "task" => {
            m["result"]["taskId"].as_str().unwrap_or_default().to_owned()
        }
        other => return tally.fail(format!("task create: {other:?}")),
    };
    tally.answered.fetch_add(1, Ordering::Relaxed);
    if cancel {
        let cancelled = modern(http, url, "tasks/cancel", json!({"taskId": id}));
        return tally.count("tasks/cancel", answer(cancelled).await.map(drop));
    }
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(30)).await;
        match answer(modern(http, url, "tasks/get", json!({"taskId": id}))).await {
            Ok((_, m)) if m["result"]["status"] == "completed" => return tally.count("tasks/get", Ok(())),
            Ok(_) => {}
            Err(e) => return tally.fail(format!("tasks/get: {e}")),
        }
    }
    tally.fail(format!("task {id} did not complete"));
}

fn legacy(http: &reqwest::Client, url: &str, session: &str, message: &Value) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string())
}

/// A 2025-11-25 client: a session opened, three calls, its GET stream opened and dropped,
/// then ended — or, one time in ten, left to expire.
async fn legacy_client(url: String, until: Instant, tally: Arc<Tally>) {
    let http = reqwest::Client::new();
    let mut round = 0u64;
    while Instant::now() < until {
        round += 1;
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}});
        let request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string());
        let session = match answer(request).await {
            Ok((headers, _)) => match headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
                Some(session) => session.to_owned(),
                None => return tally.fail("initialize: no session id".into()),
            },
            Err(e) => {
                tally.fail(format!("initialize: {e}"));
                continue;
            }
        };
        tally.answered.fetch_add(1, Ordering::Relaxed);
        let _ =
            legacy(&http, &url, &session, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .send()
                .await;
        for id in 1..=3 {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": "legacy"}}});
            tally.count("legacy call", answer(legacy(&http, &url, &session, &call)).await.map(drop));
        }
        let stream = http
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25");
        let _ = tokio::time::timeout(Duration::from_millis(50), stream.send()).await;
        if !round.is_multiple_of(10) {
            let end = http
                .delete(&url)
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", "2025-11-25")
                .send()
                .await;
            if !matches!(&end, Ok(r) if r.status().is_success()) {
                tally.fail(format!("DELETE: {end:?}"));
            }
        }
    }
}

/// A listener: `subscriptions/listen` opened, acknowledged, held a moment and dropped.
async fn listener(url: String, until: Instant, tally: Arc<Tally>) {
    let http = reqwest::Client::new();
    let mut round = 0u64;
    while Instant::now() < until {
        round += 1;
        let listen =
            modern(&http, &url, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
        let acknowledged = async {
            let mut response = listen.send().await.map_err(|e| format!("{e:?}"))?;
            let mut text = String::new();
            while !text.contains("notifications/subscriptions/acknowledged") {
                match response.chunk().await {
                    Ok(Some(chunk)) => text.push_str(&String::from_utf8_lossy(&chunk)),
                    other => return Err(format!("ended before its acknowledgement: {other:?} {text}")),
                }
            }
            Ok(response)
        };
        match tokio::time::timeout(DEADLINE, acknowledged).await {
            Ok(Ok(held)) => {
                tally.answered.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(round % 7 * 100)).await;
                drop(held);
            }
            Ok(Err(e)) => tally.fail(format!("listen: {e}")),
            Err(_) => tally.fail("listen: no acknowledgement in time".into()),
        }
    }
}

/// A stdio server's line protocol: the child, its stdin, and its answers by id.
struct StdioPeer {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl StdioPeer {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_modelctx"))
            .args(["serve", "everything"])
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("modelctx serve everything starts");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self { child, stdin, lines }
    }

    async fn send(&mut self, message: &str) {
        self.stdin.write_all(message.as_bytes()).await.expect("the server reads");
        self.stdin.write_all(b"\n").await.expect("the server reads");
    }

    /// Reads answers until every id in `waiting` has one (or [`DEADLINE`] passes); returns
    /// the ids still waiting, and counts answers to ids not waited for in `extra`.
    async fn await_answers(&mut self, waiting: &mut HashSet<u64>, extra: &mut u64) {
        let read = async {
            while !waiting.is_empty() {
                let Ok(Some(line)) = self.lines.next_line().await else { return };
                let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
                if let Some(id) = message.get("id").and_then(Value::as_u64)
                    && !waiting.remove(&id)
                {
                    *extra += 1;
                }
            }
        };
        let _ = tokio::time::timeout(DEADLINE, read).await;
    }
}

fn stdio_call(id: u64, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

/// The long-lived stdio server's load: batches of calls, a call cancelled, a malformed line;
/// each batch's answers awaited before the next.
async fn stdio_load(peer: &mut StdioPeer, until: Instant, tally: &Tally) {
    let mut id = 0u64;
    let mut extra = 0u64;
    while Instant::now() < until {
        let mut waiting = HashSet::new();
        for _ in 0..8 {
            id += 1;
            peer.send(&stdio_call(id, "echo", json!({"message": "stdio"}))).await;
            waiting.insert(id);
        }
        id += 1;
        peer.send(&stdio_call(id, "long_running_operation", json!({"steps": 100, "step_ms": 100}))).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        peer.send(&cancel.to_string()).await;
        tally.dropped.fetch_add(1, Ordering::Relaxed);
        peer.send("{\"jsonrpc\":\"2.0\",\"id\":").await; // malformed: an error naming no id
        let sent = waiting.len() as u64;
        peer.await_answers(&mut waiting, &mut extra).await;
        tally.answered.fetch_add(sent - waiting.len() as u64, Ordering::Relaxed);
        if !waiting.is_empty() {
            tally.fail(format!("stdio: no answer to {waiting:?}"));
        }
    }
    if extra > 0 {
        tally.fail(format!("stdio: {extra} answers to requests not awaited (a cancelled one answered?)"));
    }
}

/// Short-lived stdio servers: started, one call answered, stdin closed, exited.
async fn stdio_reconnects(until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        let mut peer = StdioPeer::start();
        peer.send(&stdio_call(1, "echo", json!({"message": "hello"}))).await;
        let mut waiting = HashSet::from([1]);
        peer.await_answers(&mut waiting, &mut 0).await;
        drop(peer.stdin);
        let exited = tokio::time::timeout(DEADLINE, peer.child.wait()).await;
        tally.count(
            "a short-lived stdio server",
            match (waiting.is_empty(), exited) {
                (true, Ok(Ok(status))) if status.success() => Ok(()),
                other => Err(format!("answered and exited: {other:?}")),
            },
        );
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// Samples `pid` every [`SAMPLE_EVERY`] until `until`.
async fn sample(pid: u32, until: Instant) -> Vec<Usage> {
    let mut samples = Vec::new();
    while Instant::now() < until {
        samples.push(usage(pid));
        tokio::time::sleep(SAMPLE_EVERY).await;
    }
    samples
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// Whether the samples after the warm-up stayed flat: the median resident memory of the
/// second half within [`MEMORY_SLACK`] of the first half's. Says what it saw.
fn flat(what: &str, samples: &[Usage], before: Usage, after: Usage, tally: &Tally) {
    let steady = &samples[samples.len() / 5..];
    let (first, second) = steady.split_at(steady.len() / 2);
    let first_rss = median(&mut first.iter().map(|u| u.rss).collect::<Vec<_>>());
    let second_rss = median(&mut second.iter().map(|u| u.rss).collect::<Vec<_>>());
    let most_fds = samples.iter().map(|u| u.fds).max().unwrap_or(0);
    println!(
        "soak: {what}: resident {} MiB before, {} → {} MiB (medians of the steady halves), {} MiB after; \
         descriptors {} before, at most {most_fds}, {} after",
        before.rss >> 20,
        first_rss >> 20,
        second_rss >> 20,
        after.rss >> 20,
        before.fds,
        after.fds
    );
    if second_rss > first_rss + MEMORY_SLACK {
        tally.fail(format!("{what}: resident memory grew from {first_rss} to {second_rss} bytes"));
    }
    if after.fds > before.fds + 4 {
        tally.fail(format!("{what}: {} descriptors before, {} after", before.fds, after.fds));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "minutes long: scripts/test.sh runs two minutes of it, scripts/soak.sh an hour"]
async fn soak_serve_everything_on_http_and_stdio_stays_flat() {
    let seconds: u64 = std::env::var("SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]).env("RUST_LOG", "error");
    let http_server = HttpServer::start(command);
    let mut stdio = StdioPeer::start();
    let stdio_pid = stdio.child.id().expect("a pid");
    let url = http_server.url();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (http_before, stdio_before) = (usage(http_server.pid()), usage(stdio_pid));

    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tally = Arc::new(Tally::default());
    let mut load = tokio::task::JoinSet::new();
    for _ in 0..4 {
        load.spawn(modern_client(url.clone(), until, tally.clone()));
    }
    for _ in 0..2 {
        load.spawn(legacy_client(url.clone(), until, tally.clone()));
        load.spawn(listener(url.clone(), until, tally.clone()));
    }
    load.spawn(stdio_reconnects(until, tally.clone()));
    let http_samples = tokio::spawn(sample(http_server.pid(), until));
    let stdio_samples = tokio::spawn(sample(stdio_pid, until));
    stdio_load(&mut stdio, until, &tally).await;
    let bounded = async { while load.join_next().await.is_some() {} };
    tokio::time::timeout(Duration::from_secs(60), bounded).await.expect("the load ends in time");
    let (http_samples, stdio_samples) = (http_samples.await.unwrap(), stdio_samples.await.unwrap());

    // What the load took is given back: connections closing, streams ending.
    tokio::time::sleep(Duration::from_secs(3)).await;
    flat("HTTP server", &http_samples, http_before, usage(http_server.pid()), &tally);
    flat("stdio server", &stdio_samples, stdio_before, usage(stdio_pid), &tally);
    println!(
        "soak: {seconds} s: {} requests answered, {} dropped or cancelled on purpose",
        tally.answered.load(Ordering::Relaxed),
        tally.dropped.load(Ordering::Relaxed)
    );
    let failures = tally.failures.lock().unwrap();
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(failures.is_empty(), "{} failures, the first: {shown:#?}", failures.len());
}
