//! Scale-out: two `modelctx serve everything --http 127.0.0.1:0` processes behind a load
//! balancer in miniature (a round-robin over hand-written HTTP/1.1 on loopback).
//!
//! 2026-07-28 requests are stateless, and a multi-round-trip request carries its state in a
//! `requestState` sealed with `MODELCTX_STATE_KEY`: with the same key on both instances a
//! retry may land on either of them — even after the instance that started the request is
//! gone — while with different keys (or none, so each process makes a random one) the other
//! instance refuses it with `-32602`.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::thread::JoinHandle;

use crate::support::http::{Guard, HttpServer};
use crate::support::modern_as;
use base64::Engine;
use serde_json::{Value, json};

const KEY_VAR: &str = "MODELCTX_STATE_KEY";

/// `ID:BASE64SECRET` with 32 bytes of `byte`.
fn state_key(id: &str, byte: u8) -> String {
    format!("{id}:{}", base64::engine::general_purpose::STANDARD.encode([byte; 32]))
}

/// One `modelctx serve everything --http 127.0.0.1:0`.
type Instance = HttpServer;

/// Starts one instance with `key`.
fn start(key: Option<&str>) -> Instance {
    HttpServer::start(modelctx(&["serve", "everything", "--http", "127.0.0.1:0"], key))
}

/// `modelctx` with `MODELCTX_STATE_KEY` set to `key`, or removed from the environment.
fn modelctx(args: &[&str], key: Option<&str>) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modelctx"));
    command.args(args).env("RUST_LOG", "info").env("NO_COLOR", "1").stdin(Stdio::null());
    match key {
        Some(key) => command.env(KEY_VAR, key),
        None => command.env_remove(KEY_VAR),
    };
    command
}

/// The client capabilities every request declares: it can answer elicitations.
fn capabilities() -> Value {
    json!({"elicitation": {}})
}

/// A JSON-RPC request as a 2026-07-28 client sends it.
fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": modern_as(params, capabilities())})
}

const A: usize = 0;
const B: usize = 1;

/// A load balancer in miniature: each request goes to the next instance in turn.
struct RoundRobin<'a> {
    instances: [&'a Instance; 2],
    turn: usize,
    next_id: i64,
}

impl<'a> RoundRobin<'a> {
    fn new(instances: [&'a Instance; 2]) -> Self {
        Self { instances, turn: 0, next_id: 0 }
    }

    /// Sends a modern request to the next instance; returns which one answered, and its
    /// JSON-RPC response.
    fn send(&mut self, method: &str, params: Value) -> (usize, Value) {
        let at = self.turn;
        self.turn = (self.turn + 1) % self.instances.len();
        self.next_id += 1;
        let (status, response) = self.instances[at].post(&request(self.next_id, method, params));
        assert_eq!(status, 200, "{method} on instance {at}: {response}");
        assert_eq!(response["id"], self.next_id, "{response}");
        (at, response)
    }
}

/// The `result` of a response, or a panic naming its error.
fn result(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "expected a result, got {response}");
    &response["result"]
}

fn first_text(response: &Value) -> &str {
    result(response)["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {response}"))
}

/// Checks an `InputRequiredResult` that asks exactly `key` by elicitation; returns its
/// `requestState`.
fn asks(response: &Value, key: &str) -> Value {
    let result = result(response);
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), [key], "{result}");
    assert_eq!(requests[key]["method"], "elicitation/create", "{result}");
    assert!(result["requestState"].is_string(), "{result}");
    result["requestState"].clone()
}

/// `call` again with the answer to `key` and the sealed state of the previous round.
fn retry(call: &Value, key: &str, content: Value, state: Value) -> Value {
    let mut retry = call.clone();
    retry["inputResponses"] = json!({key: {"action": "accept", "content": content}});
    retry["requestState"] = state;
    retry
}

const ELICITATION: &str = "test_input_required_result_elicitation";

#[test]
fn a_shared_key_lets_either_instance_serve_every_round() {
    let key = state_key("k1", 7);
    let (a, b) = (start(Some(&key)), start(Some(&key)));
    assert_ne!(a.address, b.address);
    for instance in [&a, &b] {
        let shared = instance.log.iter().any(|l| l.contains("shared key of MODELCTX_STATE_KEY"));
        assert!(shared && instance.log.iter().any(|l| l.contains("k1")), "{:?}", instance.log);
        assert!(!instance.log.iter().any(|l| l.contains(&key[3..])), "the secret stays out of the log");
    }
    let mut balancer = RoundRobin::new([&a, &b]);

    let (at, discover) = balancer.send("server/discover", Value::Null);
    assert_eq!(at, A);
    assert_eq!(result(&discover)["resultType"], "complete");
    assert_eq!(
        result(&discover)["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "modelctx-everything"
    );

    let (at, tools) = balancer.send("tools/list", Value::Null);
    assert_eq!(at, B);
    let tools = result(&tools)["tools"].as_array().expect("tools");
    for wanted in ["echo", ELICITATION] {
        assert!(tools.iter().any(|t| t["name"] == wanted), "{wanted} missing");
    }

    for (instance, message) in [(A, "hello from A"), (B, "hello from B")] {
        let (at, echo) =
            balancer.send("tools/call", json!({"name": "echo", "arguments": {"message": message}}));
        assert_eq!((at, first_text(&echo)), (instance, message));
    }

    // One question: asked by A, answered on B.
    let call = json!({"name": ELICITATION, "arguments": {}});
    let (at, round) = balancer.send("tools/call", call.clone());
    assert_eq!(at, A);
    let state = asks(&round, "user_name");
    let (at, done) = balancer.send("tools/call", retry(&call, "user_name", json!({"name": "Alice"}), state));
    assert_eq!(at, B);
    assert_eq!(result(&done)["resultType"], "complete");
    assert_eq!(first_text(&done), "Hello, Alice!");

    // Two questions in two rounds: A asks, B re-seals with the first answer, A completes.
    let call = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    let (at, round) = balancer.send("tools/call", call.clone());
    assert_eq!(at, A);
    let state = asks(&round, "step1");
    let (at, round) = balancer.send("tools/call", retry(&call, "step1", json!({"name": "Bob"}), state));
    assert_eq!(at, B);
    let state = asks(&round, "step2");
    let (at, done) = balancer.send("tools/call", retry(&call, "step2", json!({"color": "green"}), state));
    assert_eq!(at, A);
    assert_eq!(first_text(&done), "Multi-round complete for Bob who likes green");

    // Nothing of the request lives in A: once A is gone, B still completes what A started.
    let call = json!({"name": ELICITATION, "arguments": {}});
    let (_, round) = a.post(&request(100, "tools/call", call.clone()));
    let state = asks(&round, "user_name");
    drop(a);
    let (status, done) =
        b.post(&request(101, "tools/call", retry(&call, "user_name", json!({"name": "Carol"}), state)));
    assert_eq!(status, 200);
    assert_eq!(first_text(&done), "Hello, Carol!");
}

/// Starts a request on `a`, then sends its retry to `b`; returns `b`'s error after checking
/// that the same retry completes on `a` (the state is sound; only the key differs).
fn cross_instance_retry(a: &Instance, b: &Instance) -> Value {
    let call = json!({"name": ELICITATION, "arguments": {}});
    let (_, round) = a.post(&request(1, "tools/call", call.clone()));
    let state = asks(&round, "user_name");
    let retry = request(2, "tools/call", retry(&call, "user_name", json!({"name": "Alice"}), state));
    let (_, refused) = b.post(&retry);
    let error = refused.get("error").cloned().unwrap_or_else(|| panic!("expected an error: {refused}"));
    assert_eq!(error["code"], -32602, "{refused}");
    assert!(error["message"].as_str().is_some_and(|m| m.contains("requestState")), "{refused}");
    let (_, done) = a.post(&retry);
    assert_eq!(first_text(&done), "Hello, Alice!");
    // Stateless requests are still served by both.
    for instance in [a, b] {
        let echo = json!({"name": "echo", "arguments": {"message": "still here"}});
        assert_eq!(first_text(&instance.post(&request(3, "tools/call", echo)).1), "still here");
    }
    error
}

#[test]
fn different_keys_refuse_the_other_instances_state() {
    let a = start(Some(&state_key("k1", 7)));
    let b = start(Some(&state_key("k1", 8)));
    let error = cross_instance_retry(&a, &b);
    assert!(error["message"].as_str().unwrap().contains("failed verification"), "{error}");
}

#[test]
fn without_a_key_each_instance_makes_its_own() {
    let (a, b) = (start(None), start(None));
    let error = cross_instance_retry(&a, &b);
    assert!(error["message"].as_str().unwrap().contains("unknown key"), "{error}");
}

/// Runs `modelctx args` to its end (bounded); returns its status and its stdout and stderr.
fn run_to_end(args: &[&str], key: Option<&str>) -> (ExitStatus, String, String) {
    let mut child =
        modelctx(args, key).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
    let read_all = |mut pipe: Box<dyn Read + Send>| -> JoinHandle<String> {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().expect("stdout")));
    let stderr = read_all(Box::new(child.stderr.take().expect("stderr")));
    let mut process = Guard(child);
    let status = process.wait_bounded(&args.join(" "));
    (status, stdout.join().expect("stdout reader"), stderr.join().expect("stderr reader"))
}

#[test]
fn an_invalid_key_is_a_clear_error_and_exit_1() {
    let secret = base64::engine::general_purpose::STANDARD.encode([9u8; 32]);
    let cases = [
        (secret.clone(), "no ':'"),
        (format!(":{secret}"), "non-empty"),
        (format!("a.b:{secret}"), "no '.'"),
        ("k1:not base64!".to_owned(), "not base64"),
        (format!("k1:{}", base64::engine::general_purpose::STANDARD.encode([9u8; 31])), "31 bytes"),
        (String::new(), "no ':'"),
    ];
    for (value, why) in cases {
        let (status, _, stderr) = run_to_end(&["serve", "everything", "--http", "127.0.0.1:0"], Some(&value));
        assert_eq!(status.code(), Some(1), "{value:?}: {stderr}");
        assert!(
            stderr.contains("MODELCTX_STATE_KEY is invalid") && stderr.contains(why),
            "{value:?}: {stderr}"
        );
        assert!(!stderr.contains("listening on"), "{value:?}: {stderr}");
        assert!(!stderr.contains(&secret[..20]), "the secret stays out of the log: {stderr}");
    }
}

#[test]
fn serve_help_documents_the_key() {
    let (status, stdout, _) = run_to_end(&["serve", "--help"], None);
    assert!(status.success());
    assert!(stdout.contains("MODELCTX_STATE_KEY=ID:BASE64SECRET") && stdout.contains("32 bytes"), "{stdout}");
}
