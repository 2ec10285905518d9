//! `modelctx serve everything` as a client meets it: the built binary as a child process,
//! raw JSON-RPC lines on its stdin and stdout, both eras, bad input, and shutdown.

use std::process::Command;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use crate::support::{Server, modern, modern_as};
use serde_json::{Value, json};

#[test]
fn modern_client_discovers_lists_and_calls() {
    let mut server = Server::start();
    let discover = server.call(1, "server/discover", modern(Value::Null));
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"][0], "2026-07-28");
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "modelctx-everything");

    let tools = server.call(2, "tools/list", modern(Value::Null));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"echo") && names.contains(&"add"), "{names:?}");
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "TOOL-03: deterministic order");

    let echo =
        server.call(3, "tools/call", modern(json!({"name": "echo", "arguments": {"message": "hi there"}})));
    assert_eq!(echo["result"]["content"][0]["text"], "hi there");
    let add = server.call(4, "tools/call", modern(json!({"name": "add", "arguments": {"a": 2, "b": 40.5}})));
    assert_eq!(add["result"]["structuredContent"], json!({"sum": 42.5}));
    assert_eq!(add["result"]["resultType"], "complete");
}

#[test]
fn legacy_client_initializes_then_uses_the_session() {
    let mut server = Server::start();
    let init = server.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "modelctx-everything");
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(server.call(2, "ping", Value::Null)["result"], json!({}));
    let read = server.call(3, "resources/read", json!({"uri": "everything://items/12"}));
    assert!(read["result"]["contents"][0]["text"].as_str().unwrap().contains("item 12"));
    assert!(read["result"].get("resultType").is_none(), "legacy results carry no resultType");
    let missing = server.call(4, "resources/read", json!({"uri": "everything://items/99999"}));
    assert_eq!(missing["error"]["code"], -32002, "RES-07");
    // A modern request in the same process is still served statelessly.
    let modern_missing = server.call(5, "resources/read", modern(json!({"uri": "everything://items/99999"})));
    assert_eq!(modern_missing["error"]["code"], -32602, "RES-04");
    let prompt = server.call(6, "prompts/get", json!({"name": "greeting", "arguments": {"name": "Ada"}}));
    assert!(prompt["result"]["messages"][0]["content"]["text"].as_str().unwrap().contains("Ada"));
}

#[test]
fn bad_input_gets_precise_errors_and_the_stream_goes_on() {
    let mut server = Server::start();
    server.send("{not json");
    assert_eq!(server.next()["error"]["code"], -32700);
    server.send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(server.next()["error"]["code"], -32600);
    server.send(r#"{"jsonrpc":"2.0","id":"x","ID":"y","method":"tools/list"}"#);
    let duplicate = server.next();
    assert_eq!((duplicate["id"].clone(), duplicate["error"]["code"].clone()), (json!("x"), json!(-32600)));
    let unknown = server.call(2, "no/such/method", modern(Value::Null));
    assert_eq!(unknown["error"]["code"], -32601);
    let without_meta = server.call(3, "tools/list", Value::Null);
    assert_eq!(without_meta["error"]["code"], -32602);
    // Still serving.
    let echo =
        server.call(4, "tools/call", modern(json!({"name": "echo", "arguments": {"message": "still here"}})));
    assert_eq!(echo["result"]["content"][0]["text"], "still here");
    // Invalid arguments are a tool error naming the field, not a protocol error.
    let invalid =
        server.call(5, "tools/call", modern(json!({"name": "add", "arguments": {"a": "two", "b": 1}})));
    assert_eq!(invalid["result"]["isError"], true);
    assert!(invalid["result"]["content"][0]["text"].as_str().unwrap().contains("/a"), "{invalid}");
}

#[test]
fn progress_and_cancellation_over_stdio() {
    let mut server = Server::start();
    let mut params =
        modern(json!({"name": "long_running_operation", "arguments": {"steps": 3, "step_ms": 10}}));
    params["_meta"]["progressToken"] = json!("tok");
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}).to_string());
    let mut progress = Vec::new();
    let done = server.response(json!(2), &mut progress);
    assert_eq!(done["result"]["content"][0]["text"], "finished 3 steps");
    let values: Vec<f64> = progress
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [1.0, 2.0, 3.0], "PROG-02: increasing, one per step");
    assert!(progress.iter().all(|m| m["method"] != "notifications/message"), "LOG-02: no logs unless asked");

    // Cancel a long operation: no response for it, later requests still answered.
    let params =
        modern(json!({"name": "long_running_operation", "arguments": {"steps": 1000, "step_ms": 50}}));
    server.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}).to_string());
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#);
    let later = server.call(4, "tools/list", modern(Value::Null));
    assert!(later["result"]["tools"].is_array());
    match server.lines.recv_timeout(Duration::from_millis(300)) {
        Err(RecvTimeoutError::Timeout) => {}
        Ok(line) => {
            assert!(!line.contains(r#""id":3"#), "CANCEL-05: a cancelled request gets no response: {line}")
        }
        Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
    }
}

#[test]
fn stdio_10_exits_promptly_on_end_of_input() {
    let mut server = Server::start();
    let _ = server.call(1, "server/discover", modern(Value::Null));
    server.close_stdin();
    server.assert_exits_cleanly("end of input");
}

/// STDIO-10 with tasks running: the work of a task (one that waits for input, one that computes
/// for a minute) holds no stdio server once its one client is gone — no one could poll it —
/// so the server still exits promptly at end of input (it used to linger until the work ended,
/// an orphan once its host was killed).
#[test]
fn stdio_10_exits_promptly_on_end_of_input_with_tasks_running() {
    let mut server = Server::start();
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let long = json!({"name": "slow_compute", "arguments": {"seconds": 60, "label": "long"}});
    let created = server.call(1, "tools/call", modern_as(long, tasks.clone()));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let asking = json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}});
    let created = server.call(2, "tools/call", modern_as(asking, tasks));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    server.close_stdin();
    server.assert_exits_cleanly("end of input, with tasks still working");
}

#[test]
fn sigterm_ends_the_server() {
    let mut server = Server::start();
    let _ = server.call(1, "server/discover", modern(Value::Null));
    let pid = server.child.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    assert!(status.success());
    server.assert_exits_cleanly("SIGTERM is a clean stop");
}

/// stdin and stdout that are not pipes (a file of requests in, a file of answers out) are
/// served by the reading and writing threads: every request is answered, in order, and the
/// server exits at the end of the file. (Pipes, as every other test here uses, are read and
/// written by the runtime itself.)
#[test]
fn files_for_stdin_and_stdout_are_served_too() {
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    let lines: Vec<String> = (1..=3)
        .map(|id| {
            let params = modern(json!({"name": "echo", "arguments": {"message": format!("line {id}")}}));
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
        })
        .collect();
    std::fs::write(&requests, lines.join("\n") + "\n").unwrap();
    let answers = dir.path().join("answers.jsonl");
    let status = Command::new(env!("CARGO_BIN_EXE_modelctx"))
        .args(["serve", "everything"])
        .stdin(std::fs::File::open(&requests).unwrap())
        .stdout(std::fs::File::create(&answers).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let answers: Vec<Value> = std::fs::read_to_string(&answers)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut texts: Vec<(u64, String)> = answers
        .iter()
        .map(|a| (a["id"].as_u64().unwrap(), a["result"]["content"][0]["text"].as_str().unwrap().to_owned()))
        .collect();
    texts.sort();
    assert_eq!(texts, [(1, "line 1".into()), (2, "line 2".into()), (3, "line 3".into())]);
}

/// A client that writes more requests than the queue holds (64 running and 1,024 waiting by
/// default) in one go: the server stops reading and the pipe pushes back on the writer, rather
/// than refusing requests it has read. Every one is answered, none with an error. Each call
/// waits 20 ms, so the queue does fill (a call that waits on nothing is answered as it is
/// read, and never queues); the burst takes about 5,000 ÷ 64 × 20 ms.
#[test]
fn a_burst_of_5000_calls_written_at_once_is_answered_in_full() {
    const BURST: usize = 5_000;
    let mut server = Server::start();
    let burst: Vec<String> = (0..BURST)
        .map(|id| {
            let arguments = json!({"steps": 1, "step_ms": 20});
            let params = modern(json!({"name": "long_running_operation", "arguments": arguments}));
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
        })
        .collect();
    // One write of every line: stdout is read meanwhile by the support's thread.
    server.send(&burst.join("\n"));
    let mut answered = vec![false; BURST];
    for _ in 0..BURST {
        let answer = server.next();
        assert!(answer.get("error").is_none(), "refused: {answer}");
        let id = answer["id"].as_u64().expect("an answer to a call") as usize;
        assert_eq!(answer["result"]["content"][0]["text"], "finished 1 steps", "{answer}");
        assert!(!std::mem::replace(&mut answered[id], true), "answered twice: {id}");
    }
    assert!(answered.iter().all(|&a| a), "every call answered");
}

/// PROG-06 and T25-14 over Streamable HTTP: the work of a 2025-11-25 task goes on after its
/// `CreateTaskResult`, and so do its log messages — on the session's standalone stream (the
/// call's own stream has ended), each naming the task.
#[tokio::test]
async fn prog_06_a_legacy_tasks_log_after_its_answer_reaches_the_client_over_http_naming_the_task() {
    use modelctx::client::{Client, ClientOptions, EraMode, Started};
    use modelctx::protocol::types::{Implementation, LoggingLevel};

    let mut serve = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    serve.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(std::process::Stdio::null());
    let server = crate::support::http::HttpServer::start(serve);
    let mut options = ClientOptions::new(Implementation::new("legacy-task-logs", "1"));
    options.mode = EraMode::Legacy;
    options.tasks = true;
    let client = Client::connect_http(&server.url(), Default::default(), options).await.unwrap();
    client.set_log_level(LoggingLevel::Info).await.unwrap();
    let mut notes = client.notifications();
    let arguments = json!({"seconds": 0.2, "label": "x"});
    let Started::Task(id) = client.start_tool("slow_compute", arguments).await.unwrap() else {
        panic!("slow_compute runs as a task when asked");
    };
    let done = client.task_result(&id).await.unwrap();
    assert_eq!(serde_json::to_value(&done.content).unwrap()[0]["text"], "computed x after 0.2s");
    let mut lines = Vec::new();
    while let Ok(note) = notes.try_recv() {
        if note.method == modelctx::protocol::Method::LoggingMessage {
            lines.push(serde_json::to_value(&note.params).unwrap());
        }
    }
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["data"], "computing x");
    assert_eq!(lines[0]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id.as_str());
}
