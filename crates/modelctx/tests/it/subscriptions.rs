//! `subscriptions/listen` (2026-07-28): acknowledgement, opt-in filters, tagging,
//! cancellation and graceful close (SUB-*, META-08).

use modelctx_protocol::Method;
use std::time::Duration;

use modelctx::server::{PromptDef, ResourceDef, Server, ToolDef};
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::jsonrpc::Message;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

fn server() -> Server {
    Server::builder("listen-test", "1")
        .tool(ToolDef::new("one", || async { "1" }))
        .tool(ToolDef::new("noisy", |ctx: modelctx::server::RequestContext| async move {
            ctx.progress(1.0, Some(2.0), None).await;
            ctx.log(modelctx_protocol::types::LoggingLevel::Info, Some("noisy"), json!("working")).await;
            "done"
        }))
        .resource(ResourceDef::text("test://docs", "docs", "text"))
        .build()
        .unwrap()
}

/// The next notification with this method, skipping others.
async fn next(client: &TestClient, method: &str) -> Value {
    loop {
        match client.next_notification(WAIT).await {
            Some(Message::Notification(n)) if n.method.as_str() == method => {
                return Value::Object(n.params.unwrap_or_default());
            }
            Some(_) => continue,
            None => panic!("no {method} in time"),
        }
    }
}

async fn listen(client: &TestClient, filter: Value) -> modelctx::testing::PendingRequest {
    client
        .send_request("subscriptions/listen", with_modern_meta(json!({"notifications": filter}), json!({})))
        .await
}

#[tokio::test]
async fn sub_02_the_acknowledgement_comes_first_and_names_what_is_honoured() {
    let client = TestClient::start(server());
    let pending = listen(
        &client,
        json!({"toolsListChanged": true, "promptsListChanged": true,
                                          "resourceSubscriptions": ["test://docs"]}),
    )
    .await;
    let ack = next(&client, "notifications/subscriptions/acknowledged").await;
    // SUB-03: no prompts on this server, so promptsListChanged is not honoured.
    assert_eq!(
        ack["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://docs"]})
    );
    assert_eq!(ack["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(pending.id()));
}

#[tokio::test]
async fn sub_01_only_requested_changes_arrive_tagged_with_the_subscription_id() {
    let server = server();
    let client = TestClient::start(server.clone());
    let pending = listen(&client, json!({"resourceSubscriptions": ["test://docs"]})).await;
    next(&client, "notifications/subscriptions/acknowledged").await;
    // Not asked for: no tools/list_changed.
    server.add_tool(ToolDef::new("two", || async { "2" })).unwrap();
    server.resource_updated("test://other");
    server.resource_updated("test://docs/part");
    let updated = next(&client, "notifications/resources/updated").await;
    assert_eq!(updated["uri"], "test://docs/part");
    assert_eq!(updated["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(pending.id()), "META-08");
    let seen = client.take_notifications().await;
    assert!(
        seen.iter().all(|m| m.method() != Some(&Method::ToolListChanged)),
        "SUB-01: nothing that was not asked for: {seen:?}"
    );
}

/// SUB-09: log messages and progress of a request travel with that request, never on a listen
/// stream (nothing of them carries the subscription's id).
#[tokio::test]
async fn sub_09_logs_and_progress_never_ride_a_listen_stream() {
    let client = TestClient::start(server());
    let _pending =
        listen(&client, json!({"toolsListChanged": true, "resourceSubscriptions": ["test://docs"]})).await;
    next(&client, "notifications/subscriptions/acknowledged").await;
    let mut params = with_modern_meta(json!({"name": "noisy"}), json!({}));
    params["_meta"]["progressToken"] = json!("t");
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let answer = tokio::time::timeout(WAIT, client.request("tools/call", params)).await.unwrap().unwrap();
    assert_eq!(answer["content"][0]["text"], "done");
    let seen = client.take_notifications().await;
    let carried: Vec<_> = seen
        .iter()
        .filter(|m| matches!(m.method(), Some(&Method::LoggingMessage | &Method::Progress)))
        .collect();
    assert_eq!(carried.len(), 2, "the request's log and progress arrived: {seen:?}");
    for message in carried {
        let Message::Notification(note) = message else { continue };
        let meta = note.params.as_ref().and_then(|p| p.get("_meta"));
        assert!(
            meta.is_none_or(|meta| meta.get("io.modelcontextprotocol/subscriptionId").is_none()),
            "on the listen stream: {note:?}"
        );
    }
}

#[tokio::test]
async fn list_changes_reach_each_listener_that_asked() {
    let server = Server::builder("t", "1")
        .tool(ToolDef::new("one", || async { "1" }))
        .tool(ToolDef::new("noisy", |ctx: modelctx::server::RequestContext| async move {
            ctx.progress(1.0, Some(2.0), None).await;
            ctx.log(modelctx_protocol::types::LoggingLevel::Info, Some("noisy"), json!("working")).await;
            "done"
        }))
        .prompt(PromptDef::new("p", || async { Ok(vec![]) }))
        .build()
        .unwrap();
    let client = TestClient::start(server.clone());
    let tools = listen(&client, json!({"toolsListChanged": true})).await;
    next(&client, "notifications/subscriptions/acknowledged").await;
    let both = listen(&client, json!({"toolsListChanged": true, "promptsListChanged": true})).await;
    next(&client, "notifications/subscriptions/acknowledged").await;
    server.remove_tool("one");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let changed = next(&client, "notifications/tools/list_changed").await;
        ids.push(changed["_meta"]["io.modelcontextprotocol/subscriptionId"].clone());
    }
    ids.sort_by_key(Value::to_string);
    let mut expected = vec![json!(tools.id()), json!(both.id())];
    expected.sort_by_key(Value::to_string);
    assert_eq!(ids, expected, "one notification per subscription, demultiplexed by id (SUB-05)");
}

#[tokio::test]
async fn cancelling_a_subscription_ends_it_without_a_response() {
    let server = server();
    let client = TestClient::start(server.clone());
    let mut pending = listen(&client, json!({"toolsListChanged": true})).await;
    next(&client, "notifications/subscriptions/acknowledged").await;
    client.notify("notifications/cancelled", json!({"requestId": pending.id()})).await;
    // A later request is answered; the listen request never is, and hears nothing more.
    let later = client.modern("tools/list", json!({})).await.unwrap();
    assert!(later["tools"].is_array());
    server.add_tool(ToolDef::new("late", || async { "late" })).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(pending.try_response().is_none());
    assert!(client.take_notifications().await.iter().all(|m| m.method() != Some(&Method::ToolListChanged)));
}

#[tokio::test]
async fn tx_15_task_ids_need_the_tasks_extension() {
    let client = TestClient::start(server());
    let error = listen(&client, json!({"taskIds": ["t-1"]})).await.response().await.unwrap_err();
    assert_eq!(error.code.0, -32021);
}

/// A listen naming more resource URIs or task ids than `max_subscriptions`, or more bytes of
/// them than `max_subscription_bytes`, is refused at once (each task id was a store read, and
/// URIs of any length were kept while the listen lasted).
#[tokio::test]
async fn a_listen_naming_too_much_is_refused() {
    use modelctx::server::{Limits, ServerOptions};
    let limits = Limits { max_subscriptions: 2, max_subscription_bytes: 1024, ..Limits::default() };
    let server = Server::builder("listen-test", "1")
        .options(ServerOptions { limits, ..ServerOptions::default() })
        .resource(ResourceDef::text("test://docs", "docs", "text"))
        .build()
        .unwrap();
    let client = TestClient::start(server);
    let long = format!("test://{}", "x".repeat(2000));
    for (filter, says) in [
        (
            json!({"resourceSubscriptions": ["test://a", "test://b", "test://c"]}),
            "resourceSubscriptions names 3 entries",
        ),
        (json!({"resourceSubscriptions": [long]}), "hold 2007 bytes, more than the 1024"),
    ] {
        let error = listen(&client, filter).await.response().await.unwrap_err();
        assert_eq!(error.code.0, -32602, "{}", error.message);
        assert!(error.message.contains(says), "{}", error.message);
    }
    let within = listen(&client, json!({"resourceSubscriptions": ["test://docs"]})).await;
    assert_eq!(
        next(&client, "notifications/subscriptions/acknowledged").await["notifications"]["resourceSubscriptions"],
        json!(["test://docs"])
    );
    drop(within);
}

#[tokio::test]
/// SUB-06, SUB-07: a server that ends a subscription (here, shutting down) says so with
/// `notifications/cancelled` naming the listen request, then answers that request with the
/// graceful result.
async fn sub_06_07_a_closing_connection_ends_listens_gracefully() {
    use modelctx::transport::serve_connection;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_side, server_side) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_side);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(serve_connection(server(), server_read, server_write, async move {
        let _ = stopped.await;
    }));
    let (client_read, mut client_write) = tokio::io::split(client_side);
    let request = json!({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
        "params": with_modern_meta(json!({"notifications": {"toolsListChanged": true}}), json!({}))});
    client_write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
    let mut lines = BufReader::new(client_read).lines();
    let ack: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    stop.send(()).unwrap();
    let cancelled: Value =
        serde_json::from_str(&tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap())
            .unwrap();
    assert_eq!(cancelled["method"], "notifications/cancelled", "{cancelled}");
    assert_eq!(cancelled["params"]["requestId"], "L");
    let last: Value =
        serde_json::from_str(&tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap())
            .unwrap();
    assert_eq!(last["id"], "L");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L");
    tokio::time::timeout(WAIT, served).await.unwrap().unwrap().unwrap();
}
