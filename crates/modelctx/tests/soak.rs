//! A bounded soak: one server, served over newline framing and over HTTP on 127.0.0.1 at
//! once, takes thousands of mixed requests — answered, cancelled, timed out, dropped
//! mid-way, oversized, malformed, not UTF-8 — from peers that read slowly or go away. After
//! the load, its tasks, file descriptors and memory are back near where they started, and
//! every request got exactly one answer, or none where the protocol says so (a cancelled
//! request, CANCEL-05).
//!
//! `SOAK_ROUNDS` sets the size (default 200 rounds of 10 requests each; the full form in
//! `scripts/soak.sh` runs 5,000).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use modelctx::server::{Limits, RequestContext, Server, ServerOptions, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx::transport::serve_connection;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The whole soak's bound: it fails rather than run longer.
const DEADLINE: Duration = Duration::from_secs(120);

fn server() -> Server {
    let limits = Limits {
        max_in_flight: 16,
        max_queued: 256,
        request_timeout: Some(Duration::from_secs(2)),
        ..Limits::default()
    };
    Server::builder("soak", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .tool(ToolDef::new("echo", || async { "echo" }))
        .tool(ToolDef::new("nap", || async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            "rested"
        }))
        .tool(ToolDef::new("hang", |ctx: RequestContext| async move {
            ctx.cancellation().cancelled().await;
            "cancelled"
        }))
        .build()
        .unwrap()
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "_meta": meta()}})
}

/// What the process holds: live tokio tasks, open file descriptors, resident bytes.
#[derive(Debug, Clone, Copy)]
struct Holdings {
    tasks: usize,
    fds: usize,
    rss: u64,
}

fn holdings() -> Holdings {
    let fds = std::fs::read_dir("/proc/self/fd").map(|d| d.count()).unwrap_or(0);
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    Holdings { tasks: tokio::runtime::Handle::current().metrics().num_alive_tasks(), fds, rss: pages * 4096 }
}

/// What the stdio side heard: how often each id was answered, the errors that could name no
/// id (lines whose id could not be read), and the ids that were cancelled.
struct Heard {
    answers: HashMap<u64, usize>,
    /// Requests refused because the server was busy (a stdio connection holds them instead).
    refused: std::collections::HashSet<u64>,
    without_id: usize,
    cancelled: Vec<u64>,
}

/// The stdio side: mixed lines, read slowly.
async fn stdio_load(server: Server, rounds: u64) -> Heard {
    let (ours, theirs) = tokio::io::duplex(4 * 1024);
    let (read, write) = tokio::io::split(theirs);
    let serving = tokio::spawn(serve_connection(server, read, write, std::future::pending()));
    let (from_server, mut to_server) = tokio::io::split(ours);
    let reader = tokio::spawn(async move {
        let (mut answers, mut without_id) = (HashMap::<u64, usize>::new(), 0);
        let mut refused = std::collections::HashSet::new();
        let mut lines = BufReader::new(from_server).lines();
        let mut seen = 0u64;
        while let Ok(Some(line)) = lines.next_line().await {
            seen += 1;
            if seen.is_multiple_of(50) {
                tokio::time::sleep(Duration::from_millis(1)).await; // a slow reader
            }
            let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
            match message.get("id").and_then(Value::as_u64) {
                Some(id) => {
                    *answers.entry(id).or_default() += 1;
                    if message["error"]["message"].as_str().is_some_and(|m| m.contains("server busy")) {
                        refused.insert(id);
                    }
                }
                None if message.get("error").is_some() => without_id += 1,
                None => {}
            }
        }
        (answers, without_id, refused)
    });
    let mut cancelled = Vec::new();
    for round in 0..rounds {
        let base = round * 10;
        let mut lines = Vec::new();
        for (offset, tool) in ["echo", "nap", "echo", "echo"].iter().enumerate() {
            lines.push(call(base + offset as u64, tool).to_string());
        }
        lines.push(call(base + 4, "hang").to_string());
        lines.push(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": base + 4, "_meta": meta()}})
            .to_string(),
        );
        cancelled.push(base + 4);
        // Cut short: its id cannot be trusted, so the error names none.
        lines.push(format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\",\"y\":\"\u{fffd}", base + 5));
        lines.push(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/list\",\"params\":{{\"_meta\":{}}}}}",
            base + 6,
            meta()
        ));
        for line in lines {
            to_server.write_all(line.as_bytes()).await.unwrap();
            to_server.write_all(b"\n").await.unwrap();
        }
        // Not UTF-8, and over the 4 MiB line limit now and then: answered without an id.
        to_server.write_all(b"{\"x\":\"\xff\"}\n").await.unwrap();
        if round % 50 == 0 {
            to_server.write_all(&vec![b'a'; 4 * 1024 * 1024 + 10]).await.unwrap();
            to_server.write_all(b"\n").await.unwrap();
        }
    }
    // Close our side: the server reads the end, lets its requests finish, and stops.
    to_server.shutdown().await.unwrap();
    let _ = tokio::time::timeout(DEADLINE, serving).await;
    let (answers, without_id, refused) = reader.await.unwrap();
    Heard { answers, refused, without_id, cancelled }
}

/// The HTTP side: workers posting mixed requests, some dropped mid-way; returns the requests
/// that got no HTTP answer while the client waited for one (there must be none).
async fn http_load(url: String, rounds: u64) -> Vec<String> {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let post = |body: Vec<u8>, method: &'static str, name: Option<&'static str>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body);
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        request.send()
    };
    let mut unanswered = Vec::new();
    for round in 0..rounds {
        let id = 1_000_000 + round;
        let echo = post(call(id, "echo").to_string().into_bytes(), "tools/call", Some("echo"));
        let malformed = post(b"{\"jsonrpc\":".to_vec(), "tools/call", None);
        let listing = post(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta()}})
                .to_string()
                .into_bytes(),
            "tools/list",
            None,
        );
        // Dropped mid-way: the server cancels the handler (HTTP-16) and moves on.
        let dropped = tokio::time::timeout(
            Duration::from_millis(20),
            post(call(id, "hang").to_string().into_bytes(), "tools/call", Some("hang")),
        );
        let (echo, malformed, listing, _) = tokio::join!(echo, malformed, listing, dropped);
        for (what, answer) in [("echo", echo), ("malformed", malformed), ("tools/list", listing)] {
            match answer {
                Ok(response) => {
                    let _ = response.bytes().await;
                }
                Err(e) => unanswered.push(format!("{what} of round {round}: {e:?}")),
            }
        }
        if round % 50 == 0 {
            match post(vec![b' '; 5 * 1024 * 1024], "tools/call", Some("echo")).await {
                Ok(response) if response.status() == 413 => {}
                // The server answers 413 and closes as soon as the limit is passed; a client
                // still sending the rest may see the close before the answer.
                Err(e) if e.is_request() && format!("{e:?}").contains("BrokenPipe") => {}
                other => unanswered.push(format!("oversized of round {round}: {other:?}")),
            }
        }
    }
    unanswered
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_under_mixed_load_on_two_transports_gives_back_what_it_took() {
    let started = Instant::now();
    let rounds: u64 = std::env::var("SOAK_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(200);
    let server = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let serving =
        tokio::spawn(serve_http(server.clone(), listener, HttpOptions::default(), std::future::pending()));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = holdings();

    let load = async { tokio::join!(stdio_load(server.clone(), rounds), http_load(url, rounds)) };
    let (heard, unanswered) =
        tokio::time::timeout(DEADLINE, load).await.expect("the soak finishes within its bound");

    // Every stdio request answered exactly once, but the cancelled ones (never); a full queue
    // holds a stdio connection's requests rather than refusing them; every bad line (cut
    // short, not UTF-8, oversized) answered once without an id.
    assert!(heard.refused.is_empty(), "stdio requests refused as busy: {:?}", heard.refused);
    for round in 0..rounds {
        for offset in [0, 1, 2, 3, 6] {
            let id = round * 10 + offset;
            let times = heard.answers.get(&id);
            assert_eq!(times, Some(&1), "request {id} was answered {times:?} times");
        }
    }
    for id in &heard.cancelled {
        assert_eq!(heard.answers.get(id), None, "cancelled request {id}");
    }
    let bad_lines = rounds * 2 + rounds.div_ceil(50);
    assert_eq!(heard.without_id as u64, bad_lines, "one answer per bad line");
    assert!(unanswered.is_empty(), "HTTP requests without an answer: {unanswered:#?}");

    // What the load took is given back: tasks and descriptors to where they were (a few
    // connections may still be closing), memory within a bound.
    let settle = Instant::now() + Duration::from_secs(10);
    let after = loop {
        let now = holdings();
        if (now.tasks <= before.tasks + 2 && now.fds <= before.fds + 4) || Instant::now() > settle {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(after.tasks <= before.tasks + 2, "tasks: {before:?} before, {after:?} after");
    assert!(after.fds <= before.fds + 4, "file descriptors: {before:?} before, {after:?} after");
    assert!(after.rss <= before.rss + 128 * 1024 * 1024, "memory: {before:?} before, {after:?} after");
    serving.abort();
    eprintln!("soak: {rounds} rounds in {:?}; {before:?} before, {after:?} after", started.elapsed());
}
