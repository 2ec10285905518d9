//! Tasks through `modelctx gateway`: two `modelctx serve everything` backends, one spoken to in
//! 2026-07-28 and one in 2025-11-25, each with its standard input copied to a file, behind a
//! gateway child on loopback HTTP; modelctx's client drives it in both eras. (The suite's
//! tasks scenarios run through the gateway in `scripts/gateway.sh`.)

use std::time::Duration;

use modelctx::client::{ClientHandlers, Started};
use modelctx::protocol::types::{ElicitAction, ElicitValue};
use modelctx::protocol::v2025::TaskSupport;
use modelctx::protocol::v2026::ElicitResult;
use serde_json::json;

use crate::gateway::{MODES, connect, gateway, options, text};
use crate::support::WAIT;

/// Confirms whatever is asked.
fn confirm() -> ElicitResult {
    let content = [("confirm".to_owned(), ElicitValue::Boolean(true))];
    ElicitResult { action: ElicitAction::Accept, content: Some(content.into()) }
}

/// How many times `needle` is in the file at `path` once it holds `count` of them, or when
/// [`WAIT`] has passed.
async fn seen(path: &std::path::Path, needle: &str, count: usize) -> usize {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let seen = std::fs::read_to_string(path).unwrap_or_default().matches(needle).count();
        if seen >= count || tokio::time::Instant::now() > deadline {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A task asked of the gateway runs as a task on its backend (whatever era each side speaks),
/// under the gateway's own task id: the listing says which tools run as tasks, a question of
/// the backend's task is answered through the gateway's, the result comes back, `tasks/list`
/// (2025-11-25) shows the caller its tasks (the gateway binds them to its callers as any server
/// does: `tasks::…`, `legacy_tasks::…`), and a task cancelled at the gateway is cancelled on its
/// backend (`tasks/cancel` reaches the backend's input). A call that asks no task is answered
/// plainly.
#[tokio::test]
async fn tasks_are_relayed_to_backends_of_either_era_and_cancelled_there() {
    let dir = tempfile::tempdir().unwrap();
    let input = |name: &str| dir.path().join(format!("{name}-input.jsonl"));
    let backend = |name: &str, protocol: &str| {
        format!(
            r#""{name}": {{"command": "sh", "args": ["-c", "tee {} | exec \"$0\" serve everything", "${{BIN}}"]{protocol}}}"#,
            input(name).display()
        )
    };
    let config = format!(
        r#"{{"mcpServers": {{{}, {}}}}}"#,
        backend("m", ""),
        backend("l", r#", "protocol": "2025-11-25""#)
    );
    let (gateway, _dir) = gateway(&config);
    for (mode, era) in MODES {
        let mut with_tasks = options(mode);
        with_tasks.tasks = true;
        with_tasks.handlers = ClientHandlers::default().on_elicit(|_| async { confirm() });
        let client = connect(&gateway, with_tasks).await;
        let plain = connect(&gateway, options(mode)).await;
        assert_eq!(client.era(), era);
        client.list_tools().await.unwrap();
        for prefix in ["m", "l"] {
            let tool = |name: &str| format!("{prefix}__{name}");
            let label = format!("{era:?} client, backend {prefix}");
            if era == modelctx::protocol::Era::Legacy {
                // A 2026-07-28 backend decides per call: each of its tools may be a task.
                let (required, never) = match prefix {
                    "m" => (TaskSupport::Optional, TaskSupport::Optional),
                    _ => (TaskSupport::Required, TaskSupport::Forbidden),
                };
                assert_eq!(client.task_support(&tool("slow_compute")), TaskSupport::Optional, "{label}");
                assert_eq!(client.task_support(&tool("failing_job")), required, "{label}");
                assert_eq!(client.task_support(&tool("echo")), never, "{label}");
            }

            let arguments = json!({"seconds": 60, "label": "long"});
            let Started::Task(long) = client.start_tool(&tool("slow_compute"), arguments).await.unwrap()
            else {
                panic!("{label}: slow_compute runs as a task");
            };
            let arguments = json!({"filename": "a.txt"});
            let Started::Task(asking) = client.start_tool(&tool("confirm_delete"), arguments).await.unwrap()
            else {
                panic!("{label}: confirm_delete runs as a task");
            };
            let done = client.task_result(&asking).await.unwrap();
            assert_eq!(
                text(&done),
                "Deleted a.txt",
                "{label}: the backend's question answered through the gateway"
            );
            if era == modelctx::protocol::Era::Legacy {
                let listed = client.list_tasks().await.unwrap();
                let ids: Vec<&str> = listed.iter().filter_map(|task| task["taskId"].as_str()).collect();
                assert!(ids.contains(&long.as_str()) && ids.contains(&asking.as_str()), "{label}: {ids:?}");
            }
            client.cancel_task(&long).await.unwrap();
            let status = client.get_task(&long).await.unwrap();
            assert_eq!(status["status"], "cancelled", "{label}");

            let answered =
                plain.call_tool(&tool("slow_compute"), json!({"seconds": 0.1, "label": "short"})).await;
            assert_eq!(
                text(&answered.unwrap()),
                "computed short after 0.1s",
                "{label}: a plain call stays plain"
            );
        }
    }
    for name in ["m", "l"] {
        assert_eq!(
            seen(&input(name), "tasks/cancel", 2).await,
            2,
            "backend {name}: each cancelled task is cancelled there"
        );
    }
    let updates = seen(&input("m"), "tasks/update", 2).await;
    assert_eq!(updates, 2, "the 2026-07-28 backend's question answered with tasks/update, once per client");
}

/// Over stdio a 2025-11-25 backend's log message carries nothing that ties it to a call but,
/// from a task's work, the task it belongs to (`related-task`): with two clients' tasks running
/// at once on that backend, each client gets its own task's log line and not the other's.
#[tokio::test]
async fn a_legacy_backends_task_logs_reach_their_own_caller_while_tasks_overlap() {
    let config = r#"{"mcpServers": {"l": {"command": "${BIN}", "args": ["serve", "everything"], "protocol": "2025-11-25"}}}"#;
    let (gateway, _dir) = gateway(config);
    let mut clients = Vec::new();
    for _ in 0..2 {
        let mut with_tasks = options(modelctx::client::EraMode::Legacy);
        with_tasks.tasks = true;
        let client = connect(&gateway, with_tasks).await;
        client.set_log_level(modelctx::protocol::types::LoggingLevel::Info).await.unwrap();
        clients.push(client);
    }
    let mut notes: Vec<_> = clients.iter().map(|client| client.notifications()).collect();
    let calls = clients.iter().zip(["first", "second"]).map(|(client, label)| async move {
        let arguments = json!({"seconds": 0.5, "label": label});
        client.call_tool("l__slow_compute", arguments).await.unwrap()
    });
    let done = futures::future::join_all(calls).await;
    assert_eq!(text(&done[1]), "computed second after 0.5s");
    for (received, label) in notes.iter_mut().zip(["first", "second"]) {
        let mut lines = Vec::new();
        while let Ok(note) = received.try_recv() {
            if note.method == modelctx::protocol::Method::LoggingMessage {
                lines.push(serde_json::to_value(&note.params).unwrap()["data"].clone());
            }
        }
        assert_eq!(lines, [json!(format!("computing {label}"))], "{label}'s client gets its own line only");
    }
}
