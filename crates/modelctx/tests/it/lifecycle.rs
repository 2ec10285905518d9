//! One request lifecycle on every transport: each behaviour that stdio and Streamable HTTP
//! used to disagree on, run over both — newline framing on a pipe, and HTTP on 127.0.0.1 —
//! with modelctx's own client (CHECKLIST BASE-05, CANCEL-05, HTTP-16, SUB-01).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::within;
use modelctx::client::{Client, ClientError, ClientOptions, EraMode};
use modelctx::server::{Limits, RequestContext, Server, ServerOptions, ToolDef};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx::transport::serve_connection;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::Implementation;
use modelctx_protocol::v2026::SubscriptionFilter;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, mpsc};

/// The transports the lifecycle serves.
#[derive(Clone, Copy, Debug)]
enum Wire {
    /// Newline-delimited JSON-RPC, as on stdio.
    Stdio,
    /// Streamable HTTP on a loopback port.
    Http,
}

const WIRES: [Wire; 2] = [Wire::Stdio, Wire::Http];

impl Wire {
    async fn connect(self, server: Server, mode: EraMode) -> Client {
        let options =
            ClientOptions { mode, ..ClientOptions::new(Implementation::new("lifecycle-test", "1")) };
        match self {
            Self::Stdio => {
                let (client_end, server_end) = tokio::io::duplex(64 * 1024);
                let (server_read, server_write) = tokio::io::split(server_end);
                tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
                let (read, write) = tokio::io::split(client_end);
                Client::connect(read, write, options).await.expect("connects over stdio framing")
            }
            Self::Http => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let url = format!("http://{}/mcp", listener.local_addr().unwrap());
                let serve = serve_http(server, listener, HttpOptions::default(), std::future::pending());
                tokio::spawn(serve);
                Client::connect_http(&url, Default::default(), options).await.expect("connects over HTTP")
            }
        }
    }
}

/// Sends a message when dropped: proof that a handler's future was dropped (cancelled).
struct Dropped(mpsc::UnboundedSender<&'static str>);

impl Drop for Dropped {
    fn drop(&mut self) {
        let _ = self.0.send("dropped");
    }
}

/// What the tools of [`server`] report.
struct Probe {
    /// Opened by the test to let `gate` calls through.
    gate: Arc<Semaphore>,
    /// `gate` and `hang` calls announce here that they run.
    started: mpsc::UnboundedReceiver<&'static str>,
    /// A `hang` call's future was dropped.
    dropped: mpsc::UnboundedReceiver<&'static str>,
}

fn server(limits: Limits) -> (Server, Probe) {
    let gate = Arc::new(Semaphore::new(0));
    let (started_tx, started) = mpsc::unbounded_channel();
    let (dropped_tx, dropped) = mpsc::unbounded_channel();
    let (pass, started_gate) = (gate.clone(), started_tx.clone());
    let server = Server::builder("lifecycle", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .tool(ToolDef::new("quick", || async { "quick" }))
        .tool(ToolDef::new("gate", move || {
            let (pass, started) = (pass.clone(), started_gate.clone());
            async move {
                let _ = started.send("gate");
                let _permit = pass.acquire().await;
                "through the gate"
            }
        }))
        .tool(ToolDef::new("nap", || async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            "rested"
        }))
        .tool(ToolDef::new("hang", move |_ctx: RequestContext| {
            let (started, dropped) = (started_tx.clone(), dropped_tx.clone());
            async move {
                let _dropped = Dropped(dropped);
                let _ = started.send("hang");
                std::future::pending::<()>().await;
                "never"
            }
        }))
        .tool(ToolDef::new("panic", || async {
            if true {
                panic!("the handler broke");
            }
            "unreachable"
        }))
        .build()
        .unwrap();
    (server, Probe { gate, started, dropped })
}

fn rpc_error(outcome: Result<impl std::fmt::Debug, ClientError>) -> ErrorObject {
    match outcome {
        Err(ClientError::Rpc(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

async fn text(client: &Client, tool: &str) -> String {
    let result = within(client.call_tool(tool, json!({}))).await.expect("the call succeeds");
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

fn tools_changes() -> SubscriptionFilter {
    SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() }
}

#[tokio::test]
async fn sub_01_subscriptions_hold_no_permit_on_any_transport() {
    let limits = Limits { max_in_flight: 1, ..Limits::default() };
    for wire in WIRES {
        let (server, _probe) = server(limits);
        let client = wire.connect(server, EraMode::Modern).await;
        // More subscriptions than there are permits: each is acknowledged...
        let first = within(client.listen(tools_changes())).await.expect("the first subscription");
        let second = within(client.listen(tools_changes())).await.expect("the second subscription");
        // ...and the one permit is still free for work.
        assert_eq!(text(&client, "quick").await, "quick", "{wire:?}");
        drop((first, second));
    }
}

#[tokio::test]
async fn subscriptions_beyond_the_cap_are_refused_as_busy() {
    let limits = Limits { max_subscriptions: 1, ..Limits::default() };
    for wire in WIRES {
        let (server, _probe) = server(limits);
        let client = wire.connect(server, EraMode::Modern).await;
        let held = within(client.listen(tools_changes())).await.expect("the first subscription");
        let error = rpc_error(within(client.listen(tools_changes())).await.map(|_| ()));
        assert_eq!(error.code.0, -32603, "{wire:?}: {}", error.message);
        assert!(error.message.contains("1 subscriptions"), "{wire:?}: {}", error.message);
        drop(held);
    }
}

#[tokio::test]
async fn a_full_queue_is_refused_at_once_with_a_busy_error_and_the_rest_run() {
    // Two turns and no waiting room: two running calls fill the lifecycle.
    let limits = Limits { max_in_flight: 2, max_queued: 0, ..Limits::default() };
    for wire in WIRES {
        for mode in [EraMode::Modern, EraMode::Legacy] {
            let (server, mut probe) = server(limits);
            let client = Arc::new(wire.connect(server, mode).await);
            let running: Vec<_> = (0..2)
                .map(|_| {
                    let client = client.clone();
                    tokio::spawn(async move { client.call_tool("gate", json!({})).await })
                })
                .collect();
            for _ in 0..2 {
                assert_eq!(within(probe.started.recv()).await, Some("gate"), "{wire:?} {mode:?}");
            }
            let refused = rpc_error(within(client.call_tool("quick", json!({}))).await);
            assert_eq!(refused.code.0, -32603, "{wire:?} {mode:?}: {}", refused.message);
            assert!(refused.message.contains("busy"), "{wire:?} {mode:?}: {}", refused.message);

            probe.gate.add_permits(2);
            for pending in running {
                let result = within(pending).await.unwrap().expect("the admitted calls run");
                let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
                assert_eq!(text, "through the gate", "{wire:?} {mode:?}");
            }
            assert_eq!(text(&client, "quick").await, "quick", "{wire:?} {mode:?}");
        }
    }
}

#[tokio::test]
async fn the_time_limit_counts_from_arrival_not_from_the_turn() {
    let limits =
        Limits { max_in_flight: 1, request_timeout: Some(Duration::from_millis(300)), ..Limits::default() };
    for wire in WIRES {
        let (server, mut probe) = server(limits);
        let client = Arc::new(wire.connect(server, EraMode::Modern).await);
        let holder = client.clone();
        let hang = tokio::spawn(async move { holder.call_tool("hang", json!({})).await });
        assert_eq!(within(probe.started.recv()).await, Some("hang"));
        // `nap` needs 200 ms but waits ~300 ms for its turn: counted from its turn it would
        // finish in time; counted from its arrival it cannot.
        let sent = Instant::now();
        let error = rpc_error(within(client.call_tool("nap", json!({}))).await);
        assert_eq!(error.code.0, -32603, "{wire:?}: {}", error.message);
        assert!(error.message.contains("within 0.3s of its arrival"), "{wire:?}: {}", error.message);
        assert!(sent.elapsed() < Duration::from_millis(450), "{wire:?}: {:?}", sent.elapsed());
        // The request that held the turn ran out of time too, and its handler was stopped.
        let error = rpc_error(within(hang).await.unwrap());
        assert_eq!(error.code.0, -32603, "{wire:?}: {}", error.message);
        assert_eq!(within(probe.dropped.recv()).await, Some("dropped"), "{wire:?}");
    }
}

#[tokio::test]
async fn http_16_a_closed_stream_cancels_the_handler() {
    let limits = Limits { shutdown_grace: Duration::from_millis(100), ..Limits::default() };
    for wire in WIRES {
        let (server, mut probe) = server(limits);
        match wire {
            // Over HTTP the request's own response stream closes (the client gives up on it).
            Wire::Http => {
                let client = Arc::new(wire.connect(server, EraMode::Modern).await);
                let caller = client.clone();
                let call = tokio::spawn(async move { caller.call_tool("hang", json!({})).await });
                assert_eq!(within(probe.started.recv()).await, Some("hang"));
                call.abort();
            }
            // Over stdio the connection's input closes, with no `notifications/cancelled`:
            // after the grace period the handler is cancelled.
            Wire::Stdio => {
                let (mut client_end, server_end) = tokio::io::duplex(64 * 1024);
                let (server_read, server_write) = tokio::io::split(server_end);
                let served =
                    tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
                let params = with_modern_meta(json!({"name": "hang"}), json!({}));
                let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
                client_end.write_all(format!("{request}\n").as_bytes()).await.unwrap();
                assert_eq!(within(probe.started.recv()).await, Some("hang"));
                drop(client_end);
                within(served).await.unwrap().ok();
            }
        }
        assert_eq!(within(probe.dropped.recv()).await, Some("dropped"), "{wire:?}");
    }
}

#[tokio::test]
async fn a_panicking_handler_is_answered_internal_error_and_the_server_keeps_serving() {
    for wire in WIRES {
        for mode in [EraMode::Modern, EraMode::Legacy] {
            let (server, _probe) = server(Limits::default());
            let client = wire.connect(server, mode).await;
            let error = rpc_error(within(client.call_tool("panic", json!({}))).await);
            assert_eq!(error.code.0, -32603, "{wire:?} {mode:?}: {}", error.message);
            assert!(error.message.contains("the handler broke"), "{wire:?} {mode:?}: {}", error.message);
            assert_eq!(text(&client, "quick").await, "quick", "{wire:?} {mode:?}");
        }
    }
}
