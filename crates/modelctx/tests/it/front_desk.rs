//! One front desk on every transport (`transport::desk`): each behaviour that stdio, HTTP+SSE
//! and Streamable HTTP used to handle each in its own way, run over all three — newline
//! framing on a pipe, the deprecated HTTP+SSE transport and Streamable HTTP on 127.0.0.1 —
//! with modelctx's own client, in every era the transport carries (CHECKLIST BASE-05,
//! CANCEL-05, HTTP-16, SUB-01, ROOTS-03).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::within;
use modelctx::client::{Client, ClientError, ClientHandlers, ClientOptions, EraMode};
use modelctx::server::{Limits, RequestContext, ResourceDef, Server, ServerOptions, ToolDef};
use modelctx::testing::with_modern_meta;
use modelctx::transport::http::{HttpOptions, serve_http, serve_http_with_sse};
use modelctx::transport::serve_connection;
use modelctx_protocol::Method;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::types::{Implementation, LoggingLevel};
use modelctx_protocol::v2026::SubscriptionFilter;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, mpsc};

/// The transports the front desk serves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    /// Newline-delimited JSON-RPC, as on stdio.
    Stdio,
    /// The deprecated HTTP+SSE transport (2024-11-05) on a loopback port.
    HttpSse,
    /// Streamable HTTP on a loopback port.
    Http,
}

const WIRES: [Wire; 3] = [Wire::Stdio, Wire::HttpSse, Wire::Http];

impl Wire {
    /// The eras a client speaks over this transport: HTTP+SSE knows only sessions.
    fn modes(self) -> &'static [EraMode] {
        match self {
            Self::HttpSse => &[EraMode::Legacy],
            Self::Stdio | Self::Http => &[EraMode::Modern, EraMode::Legacy],
        }
    }

    /// Whether a 2026-07-28 client can speak over this transport.
    fn modern(self) -> bool {
        self.modes().contains(&EraMode::Modern)
    }

    async fn connect(self, server: Server, mode: EraMode) -> Client {
        self.connect_with(server, mode, ClientHandlers::default()).await
    }

    async fn connect_with(self, server: Server, mode: EraMode, handlers: ClientHandlers) -> Client {
        let options = ClientOptions {
            mode,
            handlers,
            ..ClientOptions::new(Implementation::new("front-desk-test", "1"))
        };
        match self {
            Self::Stdio => {
                let (client_end, server_end) = tokio::io::duplex(64 * 1024);
                let (server_read, server_write) = tokio::io::split(server_end);
                tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
                let (read, write) = tokio::io::split(client_end);
                Client::connect(read, write, options).await.expect("connects over stdio framing")
            }
            Self::HttpSse | Self::Http => {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let address = listener.local_addr().unwrap();
                let (url, serve) = if self == Self::Http {
                    let serve = serve_http(server, listener, HttpOptions::default(), std::future::pending());
                    (format!("http://{address}/mcp"), tokio::spawn(serve))
                } else {
                    let serve =
                        serve_http_with_sse(server, listener, HttpOptions::default(), std::future::pending());
                    (format!("http://{address}/sse"), tokio::spawn(serve))
                };
                drop(serve);
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
        .tool(ToolDef::new("ask", |ctx: RequestContext| async move {
            let answer = ctx.elicit(crate::common::name_form()).await.map_err(|e| e.to_string())?;
            let content = serde_json::to_value(&answer.content).unwrap_or_default();
            Ok::<_, String>(content["name"].as_str().unwrap_or("no name").to_owned())
        }))
        .resource(ResourceDef::text("test://docs", "docs", "text"))
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
        Err(error) if error.is_rpc() => error.rpc_error().cloned().unwrap_or_else(|| unreachable!()),
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
    // `subscriptions/listen` is 2026-07-28's, which HTTP+SSE does not carry.
    for wire in WIRES.into_iter().filter(|wire| wire.modern()) {
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
    for wire in WIRES.into_iter().filter(|wire| wire.modern()) {
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
async fn a_full_queue_holds_a_connections_requests_and_refuses_a_streamable_http_post_at_once() {
    // Two turns and no waiting room: two running calls fill the lifecycle.
    let limits = Limits { max_in_flight: 2, max_queued: 0, ..Limits::default() };
    full_lifecycle_holds_or_refuses(limits, 2, "requests are already in flight or queued").await;
}

/// The bytes of the requests let in are bounded as their count is (a 4 MiB body of small
/// values parses to some 70 MiB, and 1,088 could queue): here one running call's bytes fill
/// the lifecycle.
#[tokio::test]
async fn requests_past_the_admitted_bytes_are_held_or_refused_as_past_a_full_queue() {
    let limits = Limits { max_admitted_bytes: 1, ..Limits::default() };
    full_lifecycle_holds_or_refuses(limits, 1, "would pass the 1 allowed").await;
}

/// `filling` calls of `gate` fill a lifecycle under `limits`: on every wire a further call is
/// held by a connection, or refused at once over Streamable HTTP saying `says`, and runs (or
/// runs again) once the gate opens.
async fn full_lifecycle_holds_or_refuses(limits: Limits, filling: usize, says: &str) {
    for wire in WIRES {
        for &mode in wire.modes() {
            let (server, mut probe) = server(limits);
            let client = Arc::new(wire.connect(server, mode).await);
            let running: Vec<_> = (0..filling)
                .map(|_| {
                    let client = client.clone();
                    tokio::spawn(async move { client.call_tool("gate", json!({})).await })
                })
                .collect();
            for _ in 0..filling {
                assert_eq!(within(probe.started.recv()).await, Some("gate"), "{wire:?} {mode:?}");
            }
            let quick = {
                let client = client.clone();
                tokio::spawn(async move { client.call_tool("quick", json!({})).await })
            };
            let held = if wire == Wire::Http {
                // Each POST is a request of its own, which the server answers: busy, at once.
                let refused = rpc_error(within(quick).await.unwrap());
                assert_eq!(refused.code.0, -32603, "{wire:?} {mode:?}: {}", refused.message);
                assert!(refused.message.contains(says), "{wire:?} {mode:?}: {}", refused.message);
                None
            } else {
                // The peer writes into the connection: the call is held until a turn frees.
                tokio::time::sleep(Duration::from_millis(100)).await;
                assert!(!quick.is_finished(), "{wire:?} {mode:?}: held, not answered");
                Some(quick)
            };
            probe.gate.add_permits(2);
            for pending in running {
                let result = within(pending).await.unwrap().expect("the admitted calls run");
                let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
                assert_eq!(text, "through the gate", "{wire:?} {mode:?}");
            }
            if let Some(held) = held {
                let result = within(held).await.unwrap().expect("the held call runs once a turn frees");
                assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "quick");
            }
            assert_eq!(text(&client, "quick").await, "quick", "{wire:?} {mode:?}");
        }
    }
}

#[tokio::test]
async fn the_time_limit_counts_from_arrival_not_from_the_turn() {
    let limits =
        Limits { max_in_flight: 1, request_timeout: Some(Duration::from_millis(300)), ..Limits::default() };
    for (wire, &mode) in WIRES.into_iter().flat_map(|wire| wire.modes().iter().map(move |mode| (wire, mode)))
    {
        let (server, mut probe) = server(limits);
        let client = Arc::new(wire.connect(server, mode).await);
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
    // HTTP+SSE ends a session's requests when its event stream closes
    // (`http_sse::a_session_is_gone_once_its_stream_closes`).
    for wire in [Wire::Stdio, Wire::Http] {
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
                let request =
                    json!({"jsonrpc": "2.0", "id": 1, "method": Method::CallTool, "params": params});
                client_end.write_all(format!("{request}\n").as_bytes()).await.unwrap();
                assert_eq!(within(probe.started.recv()).await, Some("hang"));
                drop(client_end);
                within(served).await.unwrap().ok();
            }
            Wire::HttpSse => unreachable!("not in this test"),
        }
        assert_eq!(within(probe.dropped.recv()).await, Some("dropped"), "{wire:?}");
    }
}

#[tokio::test]
async fn a_panicking_handler_is_answered_internal_error_and_the_server_keeps_serving() {
    for wire in WIRES {
        for &mode in wire.modes() {
            let (server, _probe) = server(Limits::default());
            let client = wire.connect(server, mode).await;
            let error = rpc_error(within(client.call_tool("panic", json!({}))).await);
            assert_eq!(error.code.0, -32603, "{wire:?} {mode:?}: {}", error.message);
            assert!(error.message.contains("the handler broke"), "{wire:?} {mode:?}: {}", error.message);
            assert_eq!(text(&client, "quick").await, "quick", "{wire:?} {mode:?}");
        }
    }
}

/// Every transport and era a client speaks over it.
fn every_wire_and_era() -> impl Iterator<Item = (Wire, EraMode)> {
    WIRES.into_iter().flat_map(|wire| wire.modes().iter().map(move |&mode| (wire, mode)))
}

/// The session's own requests — `ping`, `logging/setLevel`, `resources/subscribe` and
/// `resources/unsubscribe` — are answered by the session, in order, the same on every
/// transport; a method only a session has is `-32601` without one.
#[tokio::test]
async fn a_sessions_own_requests_are_answered_alike_on_every_transport() {
    let mut answers = Vec::new();
    for wire in WIRES {
        let (served, _probe) = server(Limits::default());
        let client = wire.connect(served, EraMode::Legacy).await;
        within(client.ping()).await.expect("ping");
        within(client.set_log_level(LoggingLevel::Debug)).await.expect("logging/setLevel");
        let uri = json!({"uri": "test://docs"});
        let subscribed = within(client.request(Method::Subscribe, uri.clone())).await.expect("subscribe");
        let unsubscribed = within(client.request(Method::Unsubscribe, uri)).await.expect("unsubscribe");
        answers.push((wire, subscribed, unsubscribed));
        if wire.modern() {
            let (served, _probe) = server(Limits::default());
            let modern = wire.connect(served, EraMode::Modern).await;
            let error = rpc_error(within(modern.request(Method::SetLevel, json!({"level": "debug"}))).await);
            assert_eq!(error.code.0, -32601, "{wire:?}: {}", error.message);
            assert!(error.message.contains("2025-11-25 session method"), "{wire:?}: {}", error.message);
        }
    }
    let (_, first_subscribed, first_unsubscribed) = &answers[0];
    for (wire, subscribed, unsubscribed) in &answers {
        assert_eq!((subscribed, unsubscribed), (first_subscribed, first_unsubscribed), "{wire:?}");
    }
}

/// A request the client gives up on is cancelled — `notifications/cancelled` in a session or
/// on a connection of its own, the closed stream of a 2026-07-28 request over Streamable HTTP
/// — and its handler stops, on every transport and era; the next request is answered.
#[tokio::test]
async fn cancel_05_a_cancelled_request_stops_its_handler_on_every_transport() {
    for (wire, mode) in every_wire_and_era() {
        let (server, mut probe) = server(Limits::default());
        let client = Arc::new(wire.connect(server, mode).await);
        let caller = client.clone();
        let call = tokio::spawn(async move { caller.call_tool("hang", json!({})).await });
        assert_eq!(within(probe.started.recv()).await, Some("hang"), "{wire:?} {mode:?}");
        call.abort();
        assert_eq!(within(probe.dropped.recv()).await, Some("dropped"), "{wire:?} {mode:?}");
        assert_eq!(text(&client, "quick").await, "quick", "{wire:?} {mode:?}");
    }
}

/// A handler's question reaches the client and the client's answer reaches the handler: a
/// live request answered in a session (by a POST over HTTP), a round of input in 2026-07-28.
#[tokio::test]
async fn the_clients_answer_reaches_the_handler_that_asked_on_every_transport() {
    for (wire, mode) in every_wire_and_era() {
        let (server, _probe) = server(Limits::default());
        let handlers = ClientHandlers::default().on_elicit(|_| async {
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap()
        });
        let client = wire.connect_with(server, mode, handlers).await;
        assert_eq!(text(&client, "ask").await, "Ada", "{wire:?} {mode:?}");
    }
}

/// ROOTS-03, server side: `notifications/roots/list_changed` from a 2025-11-25 client runs the
/// server's `on_roots_changed` hook on every transport, told the session's id where the
/// transport names sessions (HTTP+SSE, Streamable HTTP) and none on a connection of its own.
#[tokio::test]
async fn roots_03_the_server_hears_that_a_legacy_clients_roots_changed() {
    let (told, mut heard) = mpsc::unbounded_channel::<Option<String>>();
    for wire in WIRES {
        let told = told.clone();
        let server = Server::builder("roots-test", "1")
            .tool(ToolDef::new("hello", || async { "hello" }))
            .on_roots_changed(move |session| {
                let told = told.clone();
                async move {
                    let _ = told.send(session);
                }
            })
            .build()
            .unwrap();
        let handlers = ClientHandlers::default()
            .on_roots(|| async { vec![serde_json::from_value(json!({"uri": "file:///work"})).unwrap()] })
            .roots_list_changed();
        let client = wire.connect_with(server, EraMode::Legacy, handlers).await;
        assert!(within(client.roots_changed()).await.unwrap(), "{wire:?}");
        let session = within(heard.recv()).await.expect("the hook ran");
        match wire {
            Wire::Stdio => assert_eq!(session, None),
            Wire::HttpSse | Wire::Http => {
                assert!(session.is_some_and(|id| !id.is_empty()), "{wire:?} names its session")
            }
        }
    }
}

/// A refused message is answered with its error where it was a request, on every transport;
/// Streamable HTTP, which answers every POST, gives the status too.
#[tokio::test]
async fn a_request_outside_any_era_is_refused_alike_on_every_transport() {
    for (wire, mode) in every_wire_and_era() {
        let (server, _probe) = server(Limits::default());
        let client = wire.connect(server, mode).await;
        // A method no era has: `-32601` naming it, in the era of the session or the request.
        let error = rpc_error(within(client.request("acme/frobnicate", Value::Null)).await);
        assert_eq!(error.code.0, -32601, "{wire:?} {mode:?}: {}", error.message);
        assert!(error.message.contains("acme/frobnicate"), "{wire:?} {mode:?}: {}", error.message);
    }
}
