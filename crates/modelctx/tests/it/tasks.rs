//! The tasks extension on the server (CHECKLIST §TX), in process: tools that run as tasks, the
//! `tasks/*` methods, questions inside a task, cancellation and the refusals.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::common::{builder, within};
use modelctx::server::tasks::MemoryTaskStore;
use modelctx::server::{
    InputError, RequestContext, Server, ServerBuilder, TaskSupport, ToolDef, ToolOutcome,
};
use modelctx::store::LocalBus;
use modelctx::testing::{TestClient, with_modern_meta};
use modelctx_protocol::JsonObject;
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::ElicitRequest;
use serde_json::{Value, json};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Sets a flag when dropped: proves a task's work was dropped, not left running.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn confirm_form() -> ElicitRequest {
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    ElicitRequest::Form { message: "Sure?".into(), requested_schema: serde_json::from_value(schema).unwrap() }
}

fn server(dropped: Arc<AtomicBool>) -> Server {
    with_tools(builder(), dropped).build().unwrap()
}

fn with_tools(builder: ServerBuilder, dropped: Arc<AtomicBool>) -> ServerBuilder {
    builder
        .tool(ToolDef::new("quick", || async { "quick done" }).tasks(TaskSupport::Optional))
        .tool(ToolDef::new("required", || async { "required done" }).tasks(TaskSupport::Required))
        .tool(ToolDef::new("plain", || async { "plain done" }))
        .tool(
            ToolDef::new("forever", move |ctx: RequestContext| {
                let guard = Dropped(dropped.clone());
                async move {
                    let _guard = guard;
                    ctx.progress(1.0, None, None).await;
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    "never"
                }
            })
            .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("ask", |ctx: RequestContext| async move {
                let answer = ctx.elicit(confirm_form()).await?;
                Ok::<_, InputError>(format!("{:?}", answer.action))
            })
            .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("broken", || async {
                ToolOutcome::<String>(Err(ErrorObject::internal("the backend is down")))
            })
            .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("refusing", || async { Err::<String, _>("not today") }).tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("ask_first", |ctx: RequestContext| async move {
                let answer = ctx.elicit(confirm_form()).await?;
                let task = ctx.continue_as_task().await;
                Ok::<_, InputError>(format!("{:?} in {}", answer.action, task.is_some()))
            })
            .tasks(TaskSupport::Required)
            .task_starts_in_handler(),
        )
}

fn with_extension() -> Value {
    json!({"extensions": {EXTENSION: {}}, "elicitation": {}})
}

async fn call(client: &TestClient, tool: &str, capabilities: Value) -> Result<JsonObject, ErrorObject> {
    let params = with_modern_meta(json!({"name": tool, "arguments": {}}), capabilities);
    within(client.request("tools/call", params)).await
}

async fn task(client: &TestClient, method: &str, params: Value) -> Result<JsonObject, ErrorObject> {
    within(client.request(method, with_modern_meta(params, with_extension()))).await
}

/// Polls `tasks/get` until the task is no longer `working`.
async fn settled(client: &TestClient, id: &str) -> JsonObject {
    within(async {
        loop {
            let got = task(client, "tasks/get", json!({"taskId": id})).await.unwrap();
            if got["status"] != "working" {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
}

fn start() -> (TestClient, Arc<AtomicBool>) {
    let dropped = Arc::new(AtomicBool::new(false));
    (TestClient::start(server(dropped.clone())), dropped)
}

#[tokio::test]
async fn tx_01_03_21_ext_02_ver_07_no_task_without_the_extension_and_a_required_tool_refuses_the_call() {
    let (client, _) = start();
    let plain = call(&client, "quick", json!({})).await.unwrap();
    assert_eq!(plain["resultType"], "complete");
    assert!(plain.get("taskId").is_none() && plain["content"][0]["text"] == "quick done");
    // Only the extension counts: the 2025-11-25 capability does not.
    let legacy_only =
        call(&client, "quick", json!({"tasks": {"requests": {"tools": {"call": {}}}}})).await.unwrap();
    assert!(legacy_only.get("taskId").is_none());
    let refused = call(&client, "required", json!({})).await.unwrap_err();
    assert_eq!(refused.code.0, -32021);
    assert_eq!(refused.data.unwrap()["requiredCapabilities"]["extensions"][EXTENSION], json!({}));
    let discovered = within(client.modern("server/discover", json!({}))).await.unwrap();
    assert_eq!(discovered["capabilities"]["extensions"][EXTENSION], json!({}));
    assert!(discovered["capabilities"].get("tasks").is_none());
}

#[tokio::test]
async fn tx_04_05_08_a_task_is_there_as_soon_as_it_is_announced_and_ends_with_its_result() {
    let (client, _) = start();
    let created = call(&client, "quick", with_extension()).await.unwrap();
    assert_eq!(created["resultType"], "task");
    for absent in ["result", "error", "inputRequests", "requestState", "content"] {
        assert!(created.get(absent).is_none(), "{absent} in {created:?}");
    }
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 random bits");
    assert!(created["ttlMs"].as_u64().is_some() && created["pollIntervalMs"].as_u64().is_some());
    let done = settled(&client, &id).await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "quick done");
    assert!(done["createdAt"].as_str().unwrap().ends_with('Z'));
    // A tool that never runs as a task answers plainly even for a client that could take one.
    let plain = call(&client, "plain", with_extension()).await.unwrap();
    assert_eq!(plain["resultType"], "complete");
}

#[tokio::test]
async fn tx_08_10_12_a_tasks_question_is_answered_by_tasks_update() {
    let (client, _) = start();
    let created = call(&client, "ask", with_extension()).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = settled(&client, &id).await;
    assert_eq!(waiting["status"], "input_required");
    let key = waiting["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    assert_eq!(waiting["inputRequests"][&key]["method"], "elicitation/create");
    // A key that is not outstanding is passed over, whatever its value.
    let ack = task(&client, "tasks/update", json!({"taskId": id, "inputResponses": {"nope": {"x": 1}}}))
        .await
        .unwrap();
    assert_eq!(Value::Object(ack), json!({"resultType": "complete"}));
    assert_eq!(task(&client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "input_required");
    let answer =
        json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}});
    task(&client, "tasks/update", answer).await.unwrap();
    let done = settled(&client, &id).await;
    assert_eq!(done["status"], "completed", "{done:?}");
    assert_eq!(done["result"]["content"][0]["text"], "Accept");
}

#[tokio::test]
async fn tx_14_16_cancelling_drops_the_work_at_once_and_an_ended_task_is_acked_again() {
    let (client, dropped) = start();
    let params = with_modern_meta(
        json!({"name": "forever", "arguments": {}, "_meta": {"progressToken": 7}}),
        with_extension(),
    );
    let created = within(client.request("tools/call", params)).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let ack = task(&client, "tasks/cancel", json!({"taskId": id})).await.unwrap();
    assert_eq!(Value::Object(ack), json!({"resultType": "complete"}));
    assert_eq!(task(&client, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "cancelled");
    within(async {
        while !dropped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(
        task(&client, "tasks/cancel", json!({"taskId": id})).await.is_ok(),
        "an ended task: the same ack"
    );
    // The task's progress went nowhere (TX-16).
    assert!(client.take_notifications().await.is_empty());
}

#[tokio::test]
async fn tx_18_21_unknown_tasks_undeclared_clients_and_removed_methods() {
    let (client, _) = start();
    let unknown = task(&client, "tasks/get", json!({"taskId": "no-such-task"})).await.unwrap_err();
    assert_eq!(unknown.code.0, -32602);
    for method in ["tasks/update", "tasks/cancel"] {
        let params = json!({"taskId": "no-such-task", "inputResponses": {}});
        assert_eq!(task(&client, method, params).await.unwrap_err().code.0, -32602, "{method}");
    }
    let created = call(&client, "quick", with_extension()).await.unwrap();
    let undeclared =
        within(client.modern("tasks/get", json!({"taskId": created["taskId"]}))).await.unwrap_err();
    assert_eq!(undeclared.code.0, -32021, "before the task is looked up");
    for removed in ["tasks/result", "tasks/list"] {
        assert_eq!(
            task(&client, removed, json!({"taskId": "x"})).await.unwrap_err().code.0,
            -32601,
            "{removed}"
        );
    }
}

#[tokio::test]
async fn tx_19_a_json_rpc_error_fails_the_task_and_a_tool_error_completes_it() {
    let (client, _) = start();
    let broken = call(&client, "broken", with_extension()).await.unwrap();
    let failed = settled(&client, broken["taskId"].as_str().unwrap()).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["statusMessage"], "Internal error: the backend is down");
    assert!(failed.get("result").is_none());
    let refusing = call(&client, "refusing", with_extension()).await.unwrap();
    let completed = settled(&client, refusing["taskId"].as_str().unwrap()).await;
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["result"]["isError"], true);
    // Without a task the same error is the call's own.
    assert_eq!(
        call(&client, "broken", json!({})).await.unwrap_err().message,
        "Internal error: the backend is down"
    );
}

#[tokio::test]
async fn tx_06_what_must_be_known_before_the_task_is_a_round_of_the_call() {
    let (client, _) = start();
    let asked = call(&client, "ask_first", with_extension()).await.unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert!(asked.get("taskId").is_none());
    let key = asked["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let mut retry = json!({"name": "ask_first", "arguments": {},
                           "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}});
    if let Some(state) = asked.get("requestState") {
        retry["requestState"] = state.clone();
    }
    let created =
        within(client.request("tools/call", with_modern_meta(retry, with_extension()))).await.unwrap();
    assert_eq!(created["resultType"], "task");
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none());
    let done = settled(&client, created["taskId"].as_str().unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "Accept in true");
}

#[tokio::test]
async fn tx_15_a_listener_hears_each_change_of_its_tasks_as_the_whole_task() {
    let (client, _) = start();
    let created = call(&client, "ask", with_extension()).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = settled(&client, &id).await;
    let key = waiting["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let filter = json!({"notifications": {"taskIds": [id, "someone-elses"]}});
    let _listening =
        client.send_request("subscriptions/listen", with_modern_meta(filter, with_extension())).await;
    let ack = within(client.next_notification(crate::common::WAIT)).await.expect("an acknowledgement");
    let ack = serde_json::to_value(ack).unwrap();
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id]),
        "only tasks that exist and are the caller's"
    );
    let answer = json!({"taskId": id, "inputResponses": {key: {"action": "decline"}}});
    task(&client, "tasks/update", answer).await.unwrap();
    let completed = within(async {
        loop {
            let heard = serde_json::to_value(
                client.next_notification(crate::common::WAIT).await.expect("a notification"),
            )
            .unwrap();
            assert_eq!(heard["method"], "notifications/tasks");
            assert!(heard["params"].get("resultType").is_none());
            assert!(
                heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_string()
                    || heard["params"]["_meta"].is_object()
            );
            if heard["params"]["status"] == "completed" {
                return heard;
            }
        }
    })
    .await;
    assert_eq!(completed["params"]["taskId"], id.as_str());
    assert_eq!(completed["params"]["result"]["content"][0]["text"], "Decline");
}

/// Instances sharing a task store and a bus answer for each other's tasks: a task created on
/// one is read, answered and cancelled on another, while its work runs where it started.
#[tokio::test]
async fn a_task_is_read_answered_and_cancelled_on_another_instance() {
    let (store, bus) = (Arc::new(MemoryTaskStore::new()), Arc::new(LocalBus::new()));
    let dropped = Arc::new(AtomicBool::new(false));
    let instance = || {
        let builder = builder().task_store(store.clone()).bus(bus.clone());
        TestClient::start(with_tools(builder, dropped.clone()).build().unwrap())
    };
    let (a, b) = (instance(), instance());
    let created = call(&a, "ask", with_extension()).await.unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = settled(&b, &id).await;
    assert_eq!(waiting["status"], "input_required", "the question asked on a is seen on b");
    let key = waiting["inputRequests"].as_object().unwrap().keys().next().unwrap().clone();
    let answer =
        json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"ok": true}}}});
    task(&b, "tasks/update", answer).await.unwrap();
    let done = within(async {
        loop {
            let got = task(&a, "tasks/get", json!({"taskId": id})).await.unwrap();
            if got["status"] == "completed" {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "Accept", "the work on a got the answer given on b");

    let forever = call(&a, "forever", with_extension()).await.unwrap();
    let id = forever["taskId"].as_str().unwrap().to_owned();
    task(&b, "tasks/cancel", json!({"taskId": id})).await.unwrap();
    within(async {
        while !dropped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert_eq!(task(&a, "tasks/get", json!({"taskId": id})).await.unwrap()["status"], "cancelled");
}
