//! The client's side of tasks — the tasks extension (CHECKLIST §TX, client rows) and the core
//! tasks of 2025-11-25 — against modelctx's server over Streamable HTTP on 127.0.0.1.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::{WAIT, builder, within};
use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode, Started};
use modelctx::server::{InputError, RequestContext, TaskSupport, ToolDef, ToolOutcome};
use modelctx::transport::http::{HttpOptions, serve_http};
use modelctx_protocol::jsonrpc::ErrorObject;
use modelctx_protocol::model::ElicitRequest;
use modelctx_protocol::types::Implementation;
use modelctx_protocol::v2026;
use serde_json::json;
use tokio::sync::oneshot;

struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Serves tools that run as tasks; returns the URL and the flag of the endless one's drop.
async fn serve() -> (String, Arc<AtomicBool>, oneshot::Sender<()>) {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = dropped.clone();
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let server = builder()
        .tool(
            ToolDef::new("ask", move |ctx: RequestContext| {
                let schema = schema.clone();
                async move {
                    let form = ElicitRequest::Form {
                        message: "Name?".into(),
                        requested_schema: serde_json::from_value(schema).unwrap(),
                    };
                    // Slow enough that the client polls the question more than once.
                    let answer = ctx.elicit(form).await?;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let name = answer.content.and_then(|c| c.get("name").cloned());
                    Ok::<_, InputError>(format!("hello {}", serde_json::to_value(name).unwrap()))
                }
            })
            .tasks(TaskSupport::Optional),
        )
        .tool(
            ToolDef::new("broken", || async { ToolOutcome::<String>(Err(ErrorObject::internal("down"))) })
                .tasks(TaskSupport::Required),
        )
        .tool(
            ToolDef::new("endless", move || {
                let guard = Dropped(flag.clone());
                async move {
                    let _guard = guard;
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    "never"
                }
            })
            .tasks(TaskSupport::Optional),
        )
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(serve_http(server, listener, HttpOptions::default(), async move {
        let _ = stopped.await;
    }));
    (url, dropped, stop)
}

fn options(tasks: bool, asked: Arc<AtomicUsize>) -> ClientOptions {
    let handlers = ClientHandlers::default().on_elicit(move |_| {
        asked.fetch_add(1, Ordering::SeqCst);
        async move {
            serde_json::from_value::<v2026::ElicitResult>(
                json!({"action": "accept", "content": {"name": "Ada"}}),
            )
            .unwrap()
        }
    });
    ClientOptions { tasks, handlers, ..ClientOptions::new(Implementation::new("tasks-client", "1")) }
}

fn text(result: &modelctx_protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn tx_02_09_11_a_task_is_followed_to_its_result_and_each_question_answered_once() {
    let (url, _, _stop) = serve().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let mut with_tasks = options(true, asked.clone());
    with_tasks.mode = EraMode::Modern;
    let client = Client::connect_http(&url, Default::default(), with_tasks).await.unwrap();
    let result = within(client.call_tool("ask", json!({}))).await.unwrap();
    assert_eq!(text(&result), "hello \"Ada\"");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "a question polled twice is answered once");
    // A JSON-RPC error of the task is the call's error.
    let failed = within(client.call_tool("broken", json!({}))).await.unwrap_err();
    assert_eq!(failed.rpc_error().map(|e| e.code.0), Some(-32603), "{failed:?}");
    // A client that does not declare the extension gets no task, and the required tool
    // refuses it.
    let plain = Client::connect_http(&url, Default::default(), options(false, asked.clone())).await.unwrap();
    assert_eq!(text(&within(plain.call_tool("ask", json!({}))).await.unwrap()), "hello \"Ada\"");
    assert_eq!(
        within(plain.call_tool("broken", json!({}))).await.unwrap_err().rpc_error().map(|e| e.code.0),
        Some(-32021)
    );
}

/// 2025-11-25: the client asks for a task where the listed tool allows one and the client
/// wants them (or the tool requires one), follows it with `tasks/get` and `tasks/result` (the
/// question coming on that request's stream), and reads, lists and waits for its tasks.
#[tokio::test]
async fn t25_a_legacy_task_is_asked_for_where_the_tool_allows_followed_listed_and_waited_for() {
    let (url, _, _stop) = serve().await;
    let asked = Arc::new(AtomicUsize::new(0));
    let legacy = |tasks: bool| ClientOptions { mode: EraMode::Legacy, ..options(tasks, asked.clone()) };
    let client = Client::connect_http(&url, Default::default(), legacy(true)).await.unwrap();
    assert_eq!(text(&within(client.call_tool("ask", json!({}))).await.unwrap()), "hello \"Ada\"");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "the task's question is answered once");
    let failed = within(client.call_tool("broken", json!({}))).await.unwrap_err();
    assert_eq!(failed.rpc_error().map(|e| e.code.0), Some(-32603), "{failed:?}");
    // Started and left running: shown, listed, waited for from its id.
    let Started::Task(id) = within(client.start_tool("ask", json!({}))).await.unwrap() else {
        panic!("ask runs as a task when the client wants tasks")
    };
    let task = within(client.get_task(&id)).await.unwrap();
    assert!(["working", "input_required"].contains(&task["status"].as_str().unwrap()), "{task:?}");
    let listed = within(client.list_tasks()).await.unwrap();
    assert_eq!(listed.len(), 3, "the session's three tasks: {listed:?}");
    assert!(listed.iter().any(|task| task["taskId"] == id.as_str()));
    assert_eq!(text(&within(client.task_result(&id)).await.unwrap()), "hello \"Ada\"");
    assert_eq!(within(client.get_task(&id)).await.unwrap()["status"], "completed");
    // A client that does not want tasks calls plainly, but a tool that requires one gets one.
    let plain = Client::connect_http(&url, Default::default(), legacy(false)).await.unwrap();
    assert!(matches!(within(plain.start_tool("ask", json!({}))).await.unwrap(), Started::Done(_)));
    let failed = within(plain.call_tool("broken", json!({}))).await.unwrap_err();
    assert_eq!(failed.rpc_error().map(|e| e.code.0), Some(-32603), "required: run as a task all the same");
    assert_eq!(within(plain.list_tasks()).await.unwrap().len(), 1, "the required tool's task only");
}

#[tokio::test]
async fn tx_13_a_task_past_the_callers_patience_is_cancelled_with_tasks_cancel() {
    for mode in [EraMode::Modern, EraMode::Legacy] {
        cancelled_past_patience(mode).await;
    }
}

async fn cancelled_past_patience(mode: EraMode) {
    let (url, dropped, _stop) = serve().await;
    let mut impatient = options(true, Arc::new(AtomicUsize::new(0)));
    impatient.mode = mode;
    // Past one poll (500 ms), so the work has started when the client gives up: cancelled
    // before it ever ran, a task's work is never started at all.
    impatient.task_timeout = Duration::from_millis(1200);
    let client = Client::connect_http(&url, Default::default(), impatient).await.unwrap();
    let gave_up = within(client.call_tool("endless", json!({}))).await.unwrap_err();
    assert!(gave_up.is_timeout(), "{mode:?}: {gave_up:?}");
    // The server heard tasks/cancel: the work is dropped.
    tokio::time::timeout(WAIT, async {
        while !dropped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{mode:?}: the task's work was dropped"));
}
