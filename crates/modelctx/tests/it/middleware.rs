//! MCP middleware: `tower` layers around the whole server and around one tool, prompt or
//! resource, with `tower`'s own timeout and concurrency layers and modelctx's rate limit
//! and audit hook (CHECKLIST TOOL-14, COMP-04).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{ERAS, Era, builder, within};
use modelctx::client::{Client, ClientOptions};
use modelctx::server::middleware::tower::limit::ConcurrencyLimitLayer;
use modelctx::server::middleware::tower::load_shed::LoadShedLayer;
use modelctx::server::middleware::tower::timeout::TimeoutLayer;
use modelctx::server::middleware::tower::util::MapRequestLayer;
use modelctx::server::middleware::{Audit, AuditOutcome, AuditRecord, McpRequest, RateLimit};
use modelctx::server::{PromptDef, ResourceRequest, ResourceTemplateDef, ToolDef, text_contents};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::jsonrpc::ErrorCode;
use modelctx_protocol::types::{ContentBlock, Implementation, PromptMessage, Role};
use serde_json::json;
use tokio::sync::Semaphore;

/// Every record an [`Audit`] layer produced, in order.
#[derive(Clone, Default)]
struct Records(Arc<Mutex<Vec<AuditRecord>>>);

impl Records {
    fn layer(&self) -> Audit {
        let records = self.0.clone();
        Audit::new(move |record| records.lock().unwrap().push(record.clone()))
    }

    fn take(&self) -> Vec<AuditRecord> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn greet_prompt() -> PromptDef {
    PromptDef::new("greet", || async {
        Ok(vec![PromptMessage { role: Role::User, content: ContentBlock::text("hello") }])
    })
}

#[tokio::test]
async fn the_last_layer_added_sees_the_request_first() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let tag = |name: &'static str| {
        let order = order.clone();
        MapRequestLayer::new(move |request: McpRequest| {
            order.lock().unwrap().push(name);
            request
        })
    };
    let server = builder()
        .tool(ToolDef::new("echo", || async { "echo" }).layer(tag("tool, first")).layer(tag("tool, second")))
        .layer(tag("server, first"))
        .layer(tag("server, second"))
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    Era::Modern.ok(&client, "tools/call", json!({"name": "echo"})).await;
    assert_eq!(*order.lock().unwrap(), ["server, second", "server, first", "tool, second", "tool, first"]);
    // A request about nothing with layers of its own passes the server's layers only.
    order.lock().unwrap().clear();
    Era::Modern.ok(&client, "tools/list", json!({})).await;
    assert_eq!(*order.lock().unwrap(), ["server, second", "server, first"]);
}

#[tokio::test]
async fn audit_records_each_request_with_its_target_and_outcome() {
    for era in ERAS {
        let records = Records::default();
        let server =
            builder().tool(ToolDef::new("echo", || async { "echo" })).layer(records.layer()).build().unwrap();
        let client = era.connect(server).await;
        era.ok(&client, "tools/call", json!({"name": "echo"})).await;
        let error = era.err(&client, "tools/call", json!({"name": "missing"})).await;
        let records = records.take();
        assert_eq!(records.len(), 2, "{era:?}: one record per request, initialize aside: {records:?}");
        assert_eq!((records[0].method.as_str(), records[0].target.as_deref()), ("tools/call", Some("echo")));
        assert_eq!(records[0].outcome, AuditOutcome::Answered, "{era:?}");
        assert_eq!(
            records[0].era,
            if era == Era::Modern { modelctx_protocol::Era::Modern } else { modelctx_protocol::Era::Legacy }
        );
        assert_eq!(records[1].target.as_deref(), Some("missing"));
        assert_eq!(records[1].outcome, AuditOutcome::Failed(error), "{era:?}");
    }
}

#[tokio::test]
async fn audit_records_a_cancelled_request_as_cancelled() {
    let records = Records::default();
    let (started, mut running) = tokio::sync::mpsc::unbounded_channel();
    let server = builder()
        .tool(ToolDef::new("hang", move || {
            let started = started.clone();
            async move {
                let _ = started.send(());
                std::future::pending::<()>().await;
                "never"
            }
        }))
        .layer(records.layer())
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    let params = modelctx::testing::with_modern_meta(json!({"name": "hang"}), json!({}));
    let pending = client.send_request("tools/call", params).await;
    within(running.recv()).await.expect("the handler runs");
    client.notify("notifications/cancelled", json!({"requestId": pending.id()})).await;
    within(async {
        while records.0.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(records.take()[0].outcome, AuditOutcome::Cancelled);
}

/// TOOL-14: servers MUST rate-limit tool invocations; a tool's own limit refuses the calls
/// over its budget with the time to wait, and leaves other tools alone.
#[tokio::test]
async fn tool_14_a_tools_rate_limit_refuses_calls_past_its_budget() {
    for era in ERAS {
        let server = builder()
            .tool(
                ToolDef::new("search", || async { "found" })
                    .layer(RateLimit::new(2, Duration::from_secs(60))),
            )
            .tool(ToolDef::new("echo", || async { "echo" }))
            .build()
            .unwrap();
        let client = era.connect(server).await;
        for _ in 0..2 {
            era.ok(&client, "tools/call", json!({"name": "search"})).await;
        }
        let refused = era.err(&client, "tools/call", json!({"name": "search"})).await;
        assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR, "{era:?}");
        assert!(
            refused.message.contains("rate limit: search allows 2 requests per 60s"),
            "{}",
            refused.message
        );
        let wait = refused.data.as_ref().and_then(|d| d["retryAfterMs"].as_u64()).expect("retryAfterMs");
        assert!(wait > 0 && wait <= 30_000, "the next call is allowed within 30 s, not {wait} ms");
        era.ok(&client, "tools/call", json!({"name": "echo"})).await;
    }
}

/// COMP-04 (rate-limit) on prompts, and a resource template's own layers.
#[tokio::test]
async fn prompts_and_resources_take_layers_of_their_own() {
    let records = Records::default();
    let server = builder()
        .prompt(greet_prompt().layer(RateLimit::new(1, Duration::from_secs(60))))
        .resource_template(
            ResourceTemplateDef::new("notes:///{id}", "note", |request: ResourceRequest| async move {
                Ok(vec![text_contents(request.uri, None, "a note")])
            })
            .layer(records.layer()),
        )
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    Era::Modern.ok(&client, "prompts/get", json!({"name": "greet"})).await;
    let refused = Era::Modern.err(&client, "prompts/get", json!({"name": "greet"})).await;
    assert!(refused.message.contains("rate limit: greet"), "{}", refused.message);
    Era::Modern.ok(&client, "resources/read", json!({"uri": "notes:///7"})).await;
    Era::Modern.ok(&client, "resources/list", json!({})).await;
    let records = records.take();
    assert_eq!(records.len(), 1, "only the template's own reads: {records:?}");
    assert_eq!(records[0].target.as_deref(), Some("notes:///7"));
}

#[tokio::test]
async fn towers_timeout_layer_answers_32603_and_drops_the_handler() {
    /// Tells the test when the handler's future is dropped.
    struct Dropped(tokio::sync::mpsc::UnboundedSender<()>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let (dropped, mut drops) = tokio::sync::mpsc::unbounded_channel();
    let server = builder()
        .tool(
            ToolDef::new("slow", move || {
                let guard = Dropped(dropped.clone());
                async move {
                    let _guard = guard;
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    "late"
                }
            })
            .layer(TimeoutLayer::new(Duration::from_millis(50))),
        )
        .build()
        .unwrap();
    for era in ERAS {
        let client = era.connect(server.clone()).await;
        let error = era.err(&client, "tools/call", json!({"name": "slow"})).await;
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.message.contains("time limit a layer sets"), "{}", error.message);
        within(drops.recv()).await.expect("the handler's future was dropped");
    }
}

#[tokio::test]
async fn load_shed_over_a_concurrency_limit_refuses_at_once() {
    let gate = Arc::new(Semaphore::new(0));
    let (started, mut running) = tokio::sync::mpsc::unbounded_channel();
    let pass = gate.clone();
    let server = builder()
        .tool(
            ToolDef::new("exclusive", move || {
                let (pass, started) = (pass.clone(), started.clone());
                async move {
                    let _ = started.send(());
                    let _permit = pass.acquire().await;
                    "done"
                }
            })
            .layer(ConcurrencyLimitLayer::new(1))
            .layer(LoadShedLayer::new()),
        )
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    let params = modelctx::testing::with_modern_meta(json!({"name": "exclusive"}), json!({}));
    let first = client.send_request("tools/call", params).await;
    within(running.recv()).await.expect("the first call holds the only place");
    let refused = Era::Modern.err(&client, "tools/call", json!({"name": "exclusive"})).await;
    assert!(refused.message.contains("server busy"), "{}", refused.message);
    gate.add_permits(1);
    within(first.response()).await.expect("the first call finishes");
    Era::Modern.ok(&client, "tools/call", json!({"name": "exclusive"})).await;
}

/// A per-caller limit over HTTP with modelctx's own client: each client name has its own
/// budget.
#[tokio::test]
async fn a_per_caller_rate_limit_keeps_one_budget_per_caller() {
    let limit = RateLimit::new(1, Duration::from_secs(60)).per_caller(|request: &McpRequest| {
        request.ctx.client_info().map(|c| c.name.clone()).unwrap_or_default()
    });
    // On the tool: connecting (`server/discover`) does not spend the budget.
    let server = builder().tool(ToolDef::new("echo", || async { "echo" }).layer(limit)).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), std::future::pending()));
    let connect = |name: &'static str| {
        let url = url.clone();
        async move {
            let options = ClientOptions::new(Implementation::new(name, "1"));
            Client::connect_http(&url, Default::default(), options).await.expect("connects")
        }
    };
    let (alice, bob) = (within(connect("alice")).await, within(connect("bob")).await);
    within(alice.call_tool("echo", json!({}))).await.expect("alice's first call");
    let refused = within(alice.call_tool("echo", json!({}))).await.expect_err("alice's second call");
    let refused = refused.rpc_error().expect("a JSON-RPC error");
    assert!(refused.message.contains("per caller"), "{}", refused.message);
    within(bob.call_tool("echo", json!({}))).await.expect("bob has a budget of his own");
}

/// A one-turn server whose `gate` calls announce that they run and wait to be let through,
/// and whose `panic` tool panics; `lifecycle` says whether the builder keeps the lifecycle's own
/// layers, `layers` what it adds itself.
fn gated(
    lifecycle: bool,
    layers: impl FnOnce(modelctx::server::ServerBuilder) -> modelctx::server::ServerBuilder,
) -> (modelctx::server::Server, Arc<Semaphore>, tokio::sync::mpsc::UnboundedReceiver<()>) {
    let (gate, (started, running)) = (Arc::new(Semaphore::new(0)), tokio::sync::mpsc::unbounded_channel());
    let pass = gate.clone();
    let limits = modelctx::server::Limits { max_in_flight: 1, ..Default::default() };
    let mut server = builder()
        .options(modelctx::server::ServerOptions { limits, ..Default::default() })
        .tool(ToolDef::new("gate", move || {
            let (pass, started) = (pass.clone(), started.clone());
            async move {
                let _ = started.send(());
                let _turn = pass.acquire().await;
                "through"
            }
        }))
        .tool(ToolDef::new("panic", || async {
            if true {
                panic!("the handler broke");
            }
            "unreachable"
        }));
    if !lifecycle {
        server = server.without_lifecycle_layers();
    }
    (layers(server).build().unwrap(), gate, running)
}

/// How many `gate` calls of two sent at once run before either is let through.
async fn running_at_once(
    server: modelctx::server::Server,
    mut running: tokio::sync::mpsc::UnboundedReceiver<()>,
) -> usize {
    let client = Era::Modern.connect(server).await;
    let params = modelctx::testing::with_modern_meta(json!({"name": "gate"}), json!({}));
    let _calls = [
        client.send_request(modelctx_protocol::Method::CallTool, params.clone()).await,
        client.send_request(modelctx_protocol::Method::CallTool, params).await,
    ];
    let mut count = 0;
    while tokio::time::timeout(Duration::from_millis(300), running.recv()).await.is_ok() {
        count += 1;
    }
    count
}

/// The lifecycle's own layers are named layers: on by default (one turn: one call at a time),
/// left out on request (both calls run), and put back where the server wants them (`Turn`
/// alone: one at a time again; `CatchPanic` alone: a panic is answered `-32603`).
#[tokio::test]
async fn the_lifecycle_layers_can_be_left_out_and_put_back_where_a_server_wants_them() {
    let (server, _gate, running) = gated(true, |builder| builder);
    assert_eq!(running_at_once(server, running).await, 1, "by default a request waits for its turn");
    let (server, _gate, running) = gated(false, |builder| builder);
    assert_eq!(running_at_once(server, running).await, 2, "without the lifecycle's layers, no turns");
    let (server, _gate, running) = gated(false, |builder| builder.layer(modelctx::server::middleware::Turn));
    assert_eq!(running_at_once(server, running).await, 1, "Turn put back among the server's layers");

    let (server, _gate, _running) =
        gated(false, |builder| builder.layer(modelctx::server::middleware::CatchPanic));
    let client = Era::Modern.connect(server).await;
    let error = Era::Modern.err(&client, "tools/call", json!({"name": "panic"})).await;
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR, "{}", error.message);
    assert!(error.message.contains("the handler broke"), "{}", error.message);
}

/// A layer matches on the typed method: the request of a `tools/call` is
/// `Method::CallTool`, an extension's method is `Method::Other`.
#[tokio::test]
async fn a_layer_matches_on_the_typed_method() {
    use modelctx_protocol::Method;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let server = builder()
        .tool(ToolDef::new("echo", || async { "echo" }))
        .layer(MapRequestLayer::new(move |request: McpRequest| {
            record.lock().unwrap().push(matches!(request.method, Method::CallTool));
            request
        }))
        .build()
        .unwrap();
    let client = Era::Modern.connect(server).await;
    Era::Modern.ok(&client, "tools/call", json!({"name": "echo"})).await;
    Era::Modern.ok(&client, "tools/list", json!({})).await;
    assert_eq!(*seen.lock().unwrap(), [true, false]);
}
