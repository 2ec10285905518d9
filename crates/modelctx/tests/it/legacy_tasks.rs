//! The experimental core tasks of 2025-11-25 (CHECKLIST §T25), in process: the same tools as
//! the 2026-07-28 extension, spoken to a legacy session — `params.task`, `tasks/get`,
//! `tasks/result`, `tasks/list`, `tasks/cancel`, and a task's question asked on the stream
//! of `tasks/result`.

use modelctx_protocol::Method;
use std::time::Duration;

use crate::common::{WAIT, builder, within};
use modelctx::server::{
    InputError, RequestContext, Server, ServerOptions, TaskOptions, TaskSupport, ToolDef,
};
use modelctx::testing::TestClient;
use modelctx_protocol::jsonrpc::Message;
use modelctx_protocol::model::ElicitRequest;
use serde_json::{Value, json};

const RELATED: &str = "io.modelcontextprotocol/related-task";

fn server(page_size: usize) -> Server {
    let ask = |ctx: RequestContext| async move {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let form = ElicitRequest::Form {
            message: "Name?".into(),
            requested_schema: serde_json::from_value(schema).unwrap(),
        };
        let answer = ctx.elicit(form).await?;
        let name = answer.content.and_then(|content| serde_json::to_value(&content["name"]).ok());
        Ok::<_, InputError>(format!("hello {}", name.unwrap_or_default()))
    };
    let options = ServerOptions {
        page_size,
        tasks: TaskOptions { ttl: Some(Duration::from_secs(60)), ..TaskOptions::default() },
        ..ServerOptions::default()
    };
    builder()
        .options(options)
        .tool(ToolDef::new("quick", || async { "quick done" }).tasks(TaskSupport::Optional))
        .tool(ToolDef::new("required", || async { "required done" }).tasks(TaskSupport::Required))
        .tool(ToolDef::new("plain", || async { "plain done" }))
        .tool(
            ToolDef::new("forever", || async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                "never"
            })
            .tasks(TaskSupport::Optional),
        )
        .tool(ToolDef::new("ask", ask).tasks(TaskSupport::Optional))
        .build()
        .unwrap()
}

/// A legacy session at 2025-11-25 whose client answers elicitations.
async fn session(server: Server) -> (TestClient, Value) {
    let client = TestClient::start(server);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "legacy", "version": "1"}});
    let initialized = within(client.request("initialize", init)).await.unwrap();
    client.notify("notifications/initialized", Value::Null).await;
    (client, Value::Object(initialized))
}

async fn ok(client: &TestClient, method: &str, params: Value) -> Value {
    Value::Object(within(client.request(method, params)).await.unwrap_or_else(|e| panic!("{method}: {e:?}")))
}

async fn err(client: &TestClient, method: &str, params: Value) -> i64 {
    within(client.request(method, params)).await.expect_err(method).code.0
}

/// Starts `tool` as a task; returns its id.
async fn start(client: &TestClient, tool: &str, ttl: u64) -> String {
    let created =
        ok(client, "tools/call", json!({"name": tool, "arguments": {}, "task": {"ttl": ttl}})).await;
    created["task"]["taskId"].as_str().expect("a CreateTaskResult").to_owned()
}

#[tokio::test]
async fn t25_01_03_04_05_tasks_are_declared_per_tool_and_refused_where_the_tool_says() {
    let (client, initialized) = session(server(50)).await;
    let tasks = &initialized["capabilities"]["tasks"];
    assert_eq!(tasks["requests"]["tools"]["call"], json!({}), "T25-01: {initialized}");
    assert!(tasks["list"].is_object() && tasks["cancel"].is_object());
    let listed = ok(&client, "tools/list", json!({})).await;
    let support = |name: &str| {
        listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!(
        (support("quick"), support("required"), support("plain")),
        (json!("optional"), json!("required"), Value::Null)
    );
    assert_eq!(
        err(&client, "tools/call", json!({"name": "required", "arguments": {}})).await,
        -32601,
        "T25-04"
    );
    let forbidden = json!({"name": "plain", "arguments": {}, "task": {}});
    assert_eq!(err(&client, "tools/call", forbidden).await, -32601, "T25-03");
    let plain = ok(&client, "tools/call", json!({"name": "quick", "arguments": {}})).await;
    assert_eq!(plain["content"][0]["text"], "quick done", "optional: a plain call stays plain");

    // T25-05: a server that offers no tasks serves a call with `task` as it would without.
    let (no_tasks, initialized) =
        session(builder().tool(ToolDef::new("plain", || async { "plain" })).build().unwrap()).await;
    assert!(initialized["capabilities"].get("tasks").is_none());
    let call =
        ok(&no_tasks, "tools/call", json!({"name": "plain", "arguments": {}, "task": {"ttl": 1000}})).await;
    assert_eq!(call["content"][0]["text"], "plain");
}

#[tokio::test]
async fn t25_06_07_10_12_13_14_15_19_22_a_task_is_created_polled_and_its_result_is_the_calls_own() {
    let (client, _) = session(server(50)).await;
    let created =
        ok(&client, "tools/call", json!({"name": "quick", "arguments": {}, "task": {"ttl": 600_000}})).await;
    let task = &created["task"];
    assert_eq!(task["status"], "working", "T25-07: {created}");
    assert_eq!(task["ttl"], 60_000, "the server's own bound shortens the request's");
    assert!(task["createdAt"].is_string() && task["lastUpdatedAt"].is_string(), "T25-10");
    assert!(created.get("content").is_none(), "T25-12: the task, not the result");
    let id = task["taskId"].as_str().unwrap();
    assert!(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()), "T25-06/22: 128 random bits");
    let result = ok(&client, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["content"][0]["text"], "quick done", "T25-13");
    assert_eq!(result["_meta"][RELATED]["taskId"], id, "T25-14");
    assert!(result.get("resultType").is_none(), "the 2025-11-25 shape");
    let got = ok(&client, "tasks/get", json!({"taskId": id})).await;
    assert_eq!((got["taskId"].as_str(), got["status"].as_str()), (Some(id), Some("completed")));
    assert!(got.get("_meta").and_then(|m| m.get(RELATED)).is_none(), "T25-15: no related-task on get");
    assert_eq!(err(&client, "tasks/get", json!({"taskId": "nope"})).await, -32602, "T25-19");
}

#[tokio::test]
async fn t25_08_a_tasks_question_is_asked_on_the_stream_of_tasks_result_tied_to_the_task() {
    let (client, _) = session(server(50)).await;
    let id = start(&client, "ask", 60_000).await;
    within(async {
        while ok(&client, "tasks/get", json!({"taskId": id})).await["status"] != "input_required" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    let pending = client.send_request("tasks/result", json!({"taskId": id})).await;
    let question = loop {
        match client.next_notification(WAIT).await.expect("the question in time") {
            Message::Request(request) => break request,
            _ => continue,
        }
    };
    assert_eq!(question.method, Method::Elicit);
    let params = Value::Object(question.params.unwrap_or_default());
    assert_eq!(params["_meta"][RELATED]["taskId"], id, "T25-08/14: tied to the task");
    let answer = json!({"jsonrpc": "2.0", "id": question.id, "result": {"action": "accept", "content": {"name": "Ada"}}});
    client.send_line(&answer.to_string()).await;
    let result = within(pending.response()).await.unwrap();
    assert_eq!(result["content"][0]["text"], "hello \"Ada\"");
}

#[tokio::test]
async fn t25_17_19_tasks_are_listed_page_by_page() {
    let (client, _) = session(server(2)).await;
    let mut started = Vec::new();
    for _ in 0..3 {
        started.push(start(&client, "quick", 60_000).await);
    }
    started.sort();
    let first = ok(&client, "tasks/list", json!({})).await;
    assert_eq!(first["tasks"].as_array().unwrap().len(), 2);
    let cursor = first["nextCursor"].as_str().expect("T25-17: a cursor while more remain");
    let second = ok(&client, "tasks/list", json!({"cursor": cursor})).await;
    assert!(second.get("nextCursor").is_none());
    let listed: Vec<String> = [&first, &second]
        .iter()
        .flat_map(|page| {
            page["tasks"].as_array().unwrap().iter().map(|t| t["taskId"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(listed, started, "every task once, in order");
    assert_eq!(err(&client, "tasks/list", json!({"cursor": "not-ours"})).await, -32602, "T25-19");
}

#[tokio::test]
async fn t25_18_a_running_task_is_cancelled_before_the_answer_and_an_ended_one_is_refused() {
    let (client, _) = session(server(50)).await;
    let id = start(&client, "forever", 60_000).await;
    let cancelled = ok(&client, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled");
    assert_eq!(
        ok(&client, "tasks/get", json!({"taskId": id})).await["status"],
        "cancelled",
        "it stays cancelled"
    );
    assert_eq!(err(&client, "tasks/cancel", json!({"taskId": id})).await, -32602, "an ended task");
    assert!(
        within(client.request("tasks/result", json!({"taskId": id}))).await.is_err(),
        "no result to give"
    );
}

/// PROG-06: the progress of a task-augmented call goes on under the call's own
/// `progressToken` after the `CreateTaskResult`, until the task ends, and stops then; T25-14:
/// each of those notifications names its task (`related-task`).
#[tokio::test]
async fn prog_06_t25_14_a_tasks_progress_keeps_the_calls_token_until_it_ends_and_names_the_task() {
    let (go, gate) = tokio::sync::watch::channel(false);
    let stepping = move |ctx: RequestContext| {
        let mut gate = gate.clone();
        async move {
            let _ = gate.wait_for(|open| *open).await;
            for step in 1..=3 {
                ctx.progress(f64::from(step), Some(3.0), None).await;
            }
            "stepped"
        }
    };
    let server =
        builder().tool(ToolDef::new("stepping", stepping).tasks(TaskSupport::Optional)).build().unwrap();
    let (client, _) = session(server).await;
    let call = json!({"name": "stepping", "arguments": {}, "task": {"ttl": 60_000}, "_meta": {"progressToken": "p-7"}});
    let created = ok(&client, "tools/call", call).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_owned();
    go.send(true).unwrap();
    let result = ok(&client, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(result["content"][0]["text"], "stepped");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let progress: Vec<Value> = client
        .take_notifications()
        .await
        .into_iter()
        .filter_map(|message| match message {
            Message::Notification(note) if note.method == Method::Progress => note.params.map(Value::Object),
            _ => None,
        })
        .collect();
    assert_eq!(progress.len(), 3, "every step, after the CreateTaskResult: {progress:?}");
    assert!(progress.iter().all(|p| p["progressToken"] == "p-7"), "{progress:?}");
    let named = progress
        .iter()
        .filter(|p| p["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == id.as_str());
    assert_eq!(named.count(), 3, "each names the task: {progress:?}");
    let second = ok(&client, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(second["status"], "completed");
    assert!(client.take_notifications().await.is_empty(), "nothing after the task ended");
}
