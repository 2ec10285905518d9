//! Memory per idle peer, and none kept once the peers are gone: a Streamable HTTP server holds
//! `MEMORY_PEERS` (default 10,000) idle legacy sessions, `subscriptions/listen` streams,
//! keep-alive connections (8,000 at most: both ends of each are this process's file
//! descriptors) and finished tasks, one kind at a time; the bytes each costs are printed (the
//! table in docs/security.md comes from here), and after the peers close, end or expire the
//! server holds what it held before, within a stated margin.
//!
//! The server runs on a runtime of its own, whose threads allocate in allocation groups of
//! their own (`tracking_allocator`); what those groups allocate and have not freed (whichever
//! thread frees it) is counted, so the figures are the server's alone — not the test client's,
//! not the allocator's slack — and exact, not resident-set estimates.

use std::alloc::System;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::StreamExt as _;
use http_body_util::Full;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use modelctx::server::tasks::TaskOptions;
use modelctx::server::{Limits, Server, ServerOptions, TaskSupport, ToolDef};
use modelctx::transport::http::{HttpOptions, serve_http};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tracking_allocator::{
    AllocationGroupId, AllocationGroupToken, AllocationRegistry, AllocationTracker, Allocator,
};

#[global_allocator]
static ALLOCATOR: Allocator<System> = Allocator::system();

/// The server's live bytes: allocated by its threads and not freed yet, by whichever thread.
static SERVER_LIVE: AtomicIsize = AtomicIsize::new(0);

/// Allocation groups above this one are the server's threads'.
static SERVER_GROUPS_ABOVE: AtomicUsize = AtomicUsize::new(usize::MAX);

fn is_server(group: &AllocationGroupId) -> bool {
    group.as_usize().get() > SERVER_GROUPS_ABOVE.load(Ordering::Relaxed)
}

/// Counts what the server's threads allocate, and its freeing wherever it happens.
struct ServerBytes;

impl AllocationTracker for ServerBytes {
    fn allocated(&self, _: usize, size: usize, _: usize, group: AllocationGroupId) {
        if is_server(&group) {
            SERVER_LIVE.fetch_add(size as isize, Ordering::Relaxed);
        }
    }

    fn deallocated(&self, _: usize, size: usize, _: usize, source: AllocationGroupId, _: AllocationGroupId) {
        if is_server(&source) {
            SERVER_LIVE.fetch_sub(size as isize, Ordering::Relaxed);
        }
    }
}

/// Tags what the calling thread allocates from now on as the server's.
fn become_server_thread() {
    let token = Box::leak(Box::new(AllocationGroupToken::register().expect("an allocation group")));
    std::mem::forget(token.enter());
}

/// What the server holds now.
fn server_live() -> isize {
    SERVER_LIVE.load(Ordering::Relaxed)
}

/// What the server holds once it has settled (two readings 100 ms apart agree, or 5 s pass).
async fn settled() -> isize {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut last = server_live();
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = server_live();
        if now == last || Instant::now() > deadline {
            return now;
        }
        last = now;
    }
}

/// How far above its baseline the server may stay once its peers are gone: what a few
/// buffers that grew with the load (the tables' capacity, the runtime's queues) keep.
const MARGIN: isize = 512 * 1024;

/// How long sessions and tasks live on the server whose peers are ended, not left to expire.
const LONG_LIFE: Duration = Duration::from_secs(600);

fn peers() -> usize {
    std::env::var("MEMORY_PEERS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000)
}

fn server(peers: usize, lifetime: Duration) -> Server {
    let limits = Limits { max_subscriptions: peers * 2, ..Limits::default() };
    let tasks = TaskOptions { ttl: Some(lifetime), max_tasks: peers * 2, ..TaskOptions::default() };
    Server::builder("memory", "1")
        .options(ServerOptions { limits, tasks, ..ServerOptions::default() })
        .tool(ToolDef::new("echo", || async { "echo" }).tasks(TaskSupport::Optional))
        .resource(modelctx::server::ResourceDef::text("test://a", "a", "a"))
        .build()
        .unwrap()
}

/// One h2c connection to the server, driven on the test's runtime.
async fn h2(address: std::net::SocketAddr) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .max_concurrent_reset_streams(usize::MAX)
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// A POST of `body` with `headers`.
fn post(address: std::net::SocketAddr, headers: &[(&str, &str)], body: &Value) -> http::Request<Full<Bytes>> {
    let mut request = http::Request::post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Full::new(Bytes::from(body.to_string()))).unwrap()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "m", "version": "1"}}})
}

/// Opens `n` legacy sessions; their ids.
async fn open_sessions(
    sender: &SendRequest<Full<Bytes>>,
    address: std::net::SocketAddr,
    n: usize,
) -> Vec<String> {
    futures::stream::iter(0..n)
        .map(|_| {
            let mut sender = sender.clone();
            async move {
                let response = sender.send_request(post(address, &[], &initialize())).await.unwrap();
                assert_eq!(response.status(), 200);
                response.headers()["mcp-session-id"].to_str().unwrap().to_owned()
            }
        })
        .buffer_unordered(64)
        .collect()
        .await
}

/// What `n` peers of a kind cost: what the server holds above `baseline` now, and once `end`
/// has ended them.
async fn measure(
    what: &'static str,
    n: usize,
    baseline: isize,
    end: impl std::future::Future<Output = ()>,
) -> Figure {
    let held = settled().await - baseline;
    end.await;
    let after = released(baseline).await;
    Figure { what, count: n, per_peer: held / n as isize, after }
}

/// What the server holds above `baseline` once it has given back what it can: looked at until
/// it is within [`MARGIN`] or [`RELEASE`] has passed. On a loaded machine the server may pause
/// longer than [`settled`]'s look while it frees 10,000 peers; what is left after
/// [`RELEASE`] was kept.
async fn released(baseline: isize) -> isize {
    let deadline = Instant::now() + RELEASE;
    loop {
        let after = settled().await - baseline;
        if after <= MARGIN || Instant::now() > deadline {
            return after;
        }
    }
}

/// How long a server gets to give back what its peers held once they are gone.
const RELEASE: Duration = Duration::from_secs(30);

/// One kind of peer's figures.
struct Figure {
    what: &'static str,
    count: usize,
    per_peer: isize,
    after: isize,
}

/// Serves a server for `peers` whose sessions and tasks live `lifetime`, on `runtime`.
fn serve_on(runtime: &tokio::runtime::Runtime, peers: usize, lifetime: Duration) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let options = HttpOptions {
        max_sessions: peers * 2,
        session_idle_timeout: lifetime,
        max_connections: peers * 2,
        max_streams_per_connection: u32::try_from(peers * 2).unwrap(),
        max_listens_per_connection: peers * 2,
        ..HttpOptions::default()
    };
    let served = server(peers, lifetime);
    runtime.spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        serve_http(served, listener, options, std::future::pending()).await
    });
    address
}

#[test]
fn idle_peers_cost_what_docs_say_and_leave_nothing_behind() {
    let peers = peers();
    AllocationRegistry::set_global_tracker(ServerBytes).expect("the only tracker");
    let before = AllocationGroupToken::register().expect("an allocation group").id();
    SERVER_GROUPS_ABOVE.store(before.as_usize().get(), Ordering::Relaxed);
    AllocationRegistry::enable_tracking();
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .on_thread_start(become_server_thread)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let figures = runtime.block_on(async {
        let address = serve_on(&server_runtime, peers, LONG_LIFE);
        let sender = h2(address).await;
        // Warm up, so that what is made once (tables, caches) is in the baseline.
        drop(open_sessions(&sender, address, 1).await);
        let started = Instant::now();
        let deleted = sessions_deleted(&sender, address, peers).await;
        // Sessions and tasks left to expire must outlive their own opening: twice what
        // opening them took here, and a second.
        let lifetime = started.elapsed() + Duration::from_secs(1);
        let mut figures = vec![
            deleted,
            store_copies(&server_runtime, peers).await,
            listens(address, peers).await,
            connections(address, peers.min(8_000)).await,
        ];
        let address = serve_on(&server_runtime, peers, lifetime);
        let sender = h2(address).await;
        drop(open_sessions(&sender, address, 1).await);
        figures.push(sessions_expired(&sender, address, peers, lifetime).await);
        figures.push(tasks(&sender, address, peers, lifetime).await);
        figures
    });
    println!("| idle peer | count | bytes each | left after, in all |");
    println!("|---|---:|---:|---:|");
    for figure in &figures {
        println!("| {} | {} | {} | {} |", figure.what, figure.count, figure.per_peer, figure.after);
    }
    for figure in &figures {
        assert!(figure.after <= MARGIN, "{}: {} bytes were left behind", figure.what, figure.after);
    }
}

/// Legacy sessions opened, then ended by DELETE.
async fn sessions_deleted(
    sender: &SendRequest<Full<Bytes>>,
    address: std::net::SocketAddr,
    n: usize,
) -> Figure {
    let baseline = settled().await;
    let ids = open_sessions(sender, address, n).await;
    let deleted = futures::stream::iter(ids)
        .map(|id| {
            let mut sender = sender.clone();
            async move {
                let request = http::Request::delete(format!("http://{address}/mcp"))
                    .header("mcp-session-id", id)
                    .body(Full::new(Bytes::new()))
                    .unwrap();
                assert_eq!(sender.send_request(request).await.unwrap().status(), 200);
            }
        })
        .buffer_unordered(64)
        .collect::<Vec<()>>();
    measure("legacy session (in-memory store), ended by DELETE", n, baseline, async {
        deleted.await;
    })
    .await
}

/// The store's copy of a legacy session alone (in memory): what an instance whose sessions
/// live in Redis does not hold of each.
async fn store_copies(server_runtime: &tokio::runtime::Runtime, n: usize) -> Figure {
    use modelctx::transport::http::{MemorySessionStore, SessionStore as _};
    let baseline = settled().await;
    let (held_tx, held_rx) = tokio::sync::oneshot::channel();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    server_runtime.spawn(async move {
        let server = server(1, LONG_LIFE);
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": {"name": "m", "version": "1"}});
        let store = MemorySessionStore::new(LONG_LIFE, n + 1);
        for id in 0..n {
            let params = params.as_object().cloned();
            let (session, _) = modelctx::server::LegacySession::initialize(
                &server,
                modelctx::protocol::ProtocolVersion::V2025_11_25,
                params,
            )
            .unwrap();
            store.create(&format!("{id:032}"), session).await.unwrap();
        }
        let _ = held_tx.send(());
        let _ = done_rx.await;
        drop(store);
    });
    held_rx.await.unwrap();
    measure("of which the store's copy (in memory)", n, baseline, async {
        let _ = done_tx.send(());
    })
    .await
}

/// Legacy sessions opened, then left to expire (the next `initialize` sweeps them).
async fn sessions_expired(
    sender: &SendRequest<Full<Bytes>>,
    address: std::net::SocketAddr,
    n: usize,
    lifetime: Duration,
) -> Figure {
    let baseline = settled().await;
    let ids = open_sessions(sender, address, n).await;
    drop(ids);
    measure("legacy session, expired", n, baseline, async {
        tokio::time::sleep(lifetime + Duration::from_millis(500)).await;
        drop(open_sessions(sender, address, 1).await);
    })
    .await
}

/// `subscriptions/listen` streams opened on an HTTP/2 connection of their own, then closed by
/// the client, and the connection with them (a connection keeps the room of the most streams
/// it held at once while it lasts).
async fn listens(address: std::net::SocketAddr, n: usize) -> Figure {
    let baseline = settled().await;
    let sender = h2(address).await;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "subscriptions/listen")];
    let streams: Vec<_> = futures::stream::iter(0..n)
        .map(|id| {
            let mut sender = sender.clone();
            let listen = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
                "notifications": {"resourceSubscriptions": ["test://a"]}, "_meta": meta}});
            async move {
                let response = sender.send_request(post(address, &headers, &listen)).await.unwrap();
                assert_eq!(response.status(), 200);
                response.into_body()
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    measure("`subscriptions/listen` stream (HTTP/2)", n, baseline, async {
        drop(streams);
        drop(sender);
    })
    .await
}

/// Keep-alive HTTP/1.1 connections, each after one request, then closed by the client.
async fn connections(address: std::net::SocketAddr, n: usize) -> Figure {
    let baseline = settled().await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\n\r\n{call}",
        call.len()
    );
    let open: Vec<tokio::net::TcpStream> = futures::stream::iter(0..n)
        .map(|_| {
            let head = head.clone();
            async move {
                let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
                stream.write_all(head.as_bytes()).await.unwrap();
                let mut answer = [0u8; 4096];
                let read = stream.read(&mut answer).await.unwrap();
                assert!(
                    answer[..read].starts_with(b"HTTP/1.1 200"),
                    "{}",
                    String::from_utf8_lossy(&answer[..read])
                );
                stream
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    measure("keep-alive HTTP/1.1 connection, idle", n, baseline, async { drop(open) }).await
}

/// Tasks of a legacy session, finished and kept for their TTL, then expired (the next task
/// created sweeps them).
async fn tasks(
    sender: &SendRequest<Full<Bytes>>,
    address: std::net::SocketAddr,
    n: usize,
    lifetime: Duration,
) -> Figure {
    let create = |session: String, id: usize| {
        let mut sender = sender.clone();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "echo", "task": {"ttl": lifetime.as_millis() as u64}}});
        async move {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
            let response = sender.send_request(post(address, &headers, &call)).await.unwrap();
            assert_eq!(response.status(), 200);
            drop(http_body_util::BodyExt::collect(response.into_body()).await.unwrap());
        }
    };
    let session = open_sessions(sender, address, 1).await.remove(0);
    create(session.clone(), 0).await;
    let baseline = settled().await;
    let all = futures::stream::iter(1..=n).map(|id| create(session.clone(), id));
    all.buffer_unordered(64).collect::<Vec<()>>().await;
    measure("finished task, kept for its TTL, then expired", n, baseline, async {
        tokio::time::sleep(lifetime + Duration::from_millis(500)).await;
        // The session expired meanwhile too: a new one makes the task that sweeps the others.
        let session = open_sessions(sender, address, 1).await.remove(0);
        create(session, n + 1).await;
    })
    .await
}
