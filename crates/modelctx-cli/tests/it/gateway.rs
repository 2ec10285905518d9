//! `modelctx gateway` over real backends: `modelctx serve everything` children behind a
//! gateway child on loopback HTTP, driven by modelctx's client in both eras. Prefixes (a
//! server's name, or none) and tool filters; resources, templates and prompts through it;
//! questions (elicitation), progress and logs relayed; a backend's list change heard by the
//! gateway's clients, and a resource update its subscribers; the inbound token never reaching
//! a backend; a cancelled call cancelled on its backend.

use modelctx_protocol::Method;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::WAIT;
use crate::support::http::HttpServer;
use futures::StreamExt as _;
use modelctx::client::{Client, ClientHandlers, ClientOptions, EraMode, StaticBearer};
use modelctx::protocol::Era;
use modelctx::protocol::types::{ElicitAction, ElicitValue, Implementation, LoggingLevel, TextOrBlob};
use modelctx::protocol::v2026::{ElicitResult, SubscriptionFilter};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_modelctx")
}

/// The run token the tests' gateways are given (`MODELCTX_GATEWAY_TOKEN`).
const RUN_TOKEN: &str = "the-tests-run-token";

/// `modelctx gateway --http 127.0.0.1:0` over `config` (`${BIN}` is this modelctx), with
/// `extra` arguments and [`RUN_TOKEN`] for its run token.
pub(crate) fn gateway_with(config: &str, extra: &[&str]) -> (HttpServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.json");
    std::fs::File::create(&path).unwrap().write_all(config.replace("${BIN}", bin()).as_bytes()).unwrap();
    let mut command = Command::new(bin());
    command
        .args(["gateway", "--http", "127.0.0.1:0", "--config"])
        .arg(&path)
        .args(extra)
        .stdin(Stdio::null());
    command.env("MODELCTX_GATEWAY_TOKEN", RUN_TOKEN);
    (HttpServer::start(command), dir)
}

/// [`gateway_with`] no more arguments.
pub(crate) fn gateway(config: &str) -> (HttpServer, tempfile::TempDir) {
    gateway_with(config, &[])
}

/// A client's options that carry the run token.
pub(crate) fn options(mode: EraMode) -> ClientOptions {
    let mut options = ClientOptions::new(Implementation::new("gateway-test", "1"));
    options.mode = mode;
    options.auth = Some(Arc::new(StaticBearer::new(RUN_TOKEN)));
    options
}

pub(crate) async fn connect(gateway: &HttpServer, options: ClientOptions) -> Client {
    let url = format!("http://{}/mcp", gateway.address);
    Client::connect_http(&url, Default::default(), options).await.expect("the gateway answers")
}

/// The audit file's text at `path` once `done` says it holds what the test waits for (or
/// after [`WAIT`]): it is written as calls end, so a refusal's line may come a moment after the
/// refusal is answered.
pub(crate) async fn audit_until(path: &std::path::Path, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let written = std::fs::read_to_string(path).unwrap_or_default();
        if done(&written) || std::time::Instant::now() > deadline {
            return written;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The lines of an audit file's text, parsed.
pub(crate) fn audit_lines(written: &str) -> Vec<Value> {
    written.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

pub(crate) fn text(result: &modelctx::protocol::model::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"].as_str().unwrap_or_default().to_owned()
}

pub(crate) const MODES: [(EraMode, Era); 2] = [(EraMode::Auto, Era::Modern), (EraMode::Legacy, Era::Legacy)];

/// One backend under its name, with two tools allowed; the other under no prefix, with the
/// failing tools denied.
const TWO: &str = r#"{"mcpServers": {
    "a": {"command": "${BIN}", "args": ["serve", "everything"], "allowTools": ["echo", "add"]},
    "b": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": "", "denyTools": ["fail*", "test_error_*"]}
}}"#;

#[tokio::test]
async fn names_follow_each_backends_prefix_and_filters_in_both_eras() {
    let (gateway, _dir) = gateway(TWO);
    for (mode, era) in MODES {
        let client = connect(&gateway, options(mode)).await;
        assert_eq!(client.era(), era);
        let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        let a: Vec<&String> = names.iter().filter(|name| name.starts_with("a__")).collect();
        assert_eq!(a, ["a__add", "a__echo"], "{mode:?}: only a's allowed tools, under its name");
        for own in ["echo", "add", "long_running_operation"] {
            assert!(names.iter().any(|name| name == own), "{mode:?}: b's {own} keeps its name: {names:?}");
        }
        for denied in ["fail", "test_error_handling", "a__fail"] {
            assert!(!names.iter().any(|name| name == denied), "{mode:?}: {denied} is filtered out");
        }
        let sum = client.call_tool("a__add", json!({"a": 2, "b": 40})).await.unwrap();
        assert!(text(&sum).contains("42"), "{}", text(&sum));
        let echoed = client.call_tool("echo", json!({"message": "through"})).await.unwrap();
        assert_eq!(text(&echoed), "through");
        let refused = client.request("tools/call", json!({"name": "fail", "arguments": {}})).await;
        assert!(
            refused.is_err() || refused.unwrap()["isError"] == json!(true),
            "{mode:?}: fail is not callable"
        );

        let read = |contents: Vec<TextOrBlob>| match contents.into_iter().next() {
            Some(TextOrBlob::Text(text)) => (text.uri, text.text),
            other => panic!("{other:?}"),
        };
        let readme = "This is the everything server of modelctx.";
        let namespaced = "mcp-host://a/everything://readme";
        assert_eq!(
            read(client.read_resource(namespaced).await.unwrap()),
            (namespaced.to_owned(), readme.into())
        );
        assert_eq!(read(client.read_resource("everything://readme").await.unwrap()).1, readme);
        let templates = client.list_resource_templates().await.unwrap();
        assert!(
            templates.iter().any(|t| t.uri_template == "mcp-host://a/everything://items/{id}"),
            "{templates:?}"
        );
        let (uri, item) = read(client.read_resource("mcp-host://a/everything://items/7").await.unwrap());
        assert_eq!(uri, "mcp-host://a/everything://items/7");
        assert!(item.contains('7'), "{item}");
        let messages = client.get_prompt("a__greeting", json!({"name": "Ada"})).await.unwrap();
        assert!(serde_json::to_string(&messages).unwrap().contains("Ada"), "{mode:?}");
        let colors = client
            .complete(
                json!({"type": "ref/prompt", "name": "a__greeting"}),
                json!({"name": "color", "value": "re"}),
                None,
            )
            .await
            .unwrap();
        assert!(!colors.values.is_empty() && colors.values.iter().all(|v| v.starts_with("re")), "{colors:?}");
    }
}

/// The answer of a user who fills in `test_elicitation`'s form.
fn ada() -> ElicitResult {
    let content = [("username", "ada"), ("email", "ada@example.com")]
        .map(|(key, value)| (key.to_owned(), ElicitValue::String(value.into())));
    ElicitResult { action: ElicitAction::Accept, content: Some(content.into()) }
}

const ONE: &str =
    r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": ""}}}"#;

/// A backend's elicitation reaches the gateway's client (a round of input in 2026-07-28, a
/// live request in 2025-11-25), and its progress and log messages come back.
#[tokio::test]
async fn questions_progress_and_logs_are_relayed_in_both_eras() {
    let (gateway, _dir) = gateway(ONE);
    for (mode, era) in MODES {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        let mut options = options(mode);
        options.handlers = ClientHandlers::default().on_elicit(move |request| {
            seen.lock().unwrap().push(format!("{request:?}"));
            async move { ada() }
        });
        let client = connect(&gateway, options).await;
        assert_eq!(client.era(), era);
        let answered =
            client.call_tool("test_elicitation", json!({"message": "Who are you?"})).await.unwrap();
        assert!(text(&answered).contains("ada@example.com"), "{mode:?}: {}", text(&answered));
        assert_eq!(asked.lock().unwrap().len(), 1, "{mode:?}: asked once");
        assert!(asked.lock().unwrap()[0].contains("Who are you?"));

        client.set_log_level(LoggingLevel::Info).await.unwrap();
        let mut notes = client.notifications();
        let mut reports = Vec::new();
        let arguments = json!({"steps": 3, "step_ms": 10});
        let done = client
            .call_tool_with_progress("long_running_operation", arguments, |report| {
                reports.push(report.progress)
            })
            .await
            .unwrap();
        assert_eq!(text(&done), "finished 3 steps");
        assert_eq!(reports, [1.0, 2.0, 3.0], "{mode:?}: the backend's progress, in order");
        let mut logs = 0;
        while let Ok(note) = notes.try_recv() {
            logs += usize::from(note.method == Method::LoggingMessage);
        }
        assert_eq!(logs, 3, "{mode:?}: one log message per step");
    }
}

/// A 2025-11-25 backend asks by live requests, which nothing ties to a call: with one call
/// in flight, a 2025-11-25 client of the gateway is asked and its answer goes back; a
/// 2026-07-28 client, answered in rounds, cannot hold a live question open, so it is declined.
#[tokio::test]
async fn a_legacy_backends_live_question_reaches_a_legacy_client() {
    let legacy = r#"{"mcpServers": {"old": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": "", "protocol": "2025-11-25"}}}"#;
    let (gateway, _dir) = gateway(legacy);
    for (mode, answered) in [(EraMode::Legacy, true), (EraMode::Auto, false)] {
        let mut options = options(mode);
        options.handlers = ClientHandlers::default().on_elicit(|_| async { ada() });
        let client = connect(&gateway, options).await;
        let result = client.call_tool("test_elicitation", json!({"message": "Who?"})).await.unwrap();
        let text = text(&result);
        assert_eq!(text.contains("ada@example.com"), answered, "{mode:?}: {text}");
        if !answered {
            assert!(text.contains("decline"), "{mode:?}: {text}");
        }
    }
}

/// A 2025-11-25 backend's live question over stdio, which nothing ties to a call, never
/// reaches another client: with two calls in flight to the backend it goes to neither (it is
/// declined), and the bystander, whose call merely runs, is asked nothing (it used to reach
/// whichever client's call was in flight).
#[tokio::test]
async fn a_legacy_backends_question_reaches_no_other_client_when_calls_overlap() {
    let legacy = r#"{"mcpServers": {"old": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": "", "protocol": "2025-11-25"}}}"#;
    let (answer, bystander_asked) = overlapping_calls(legacy).await;
    assert!(answer.contains("decline"), "with two calls in flight the question is declined: {answer}");
    assert_eq!(bystander_asked, 0, "the bystander was asked another client's question");
}

/// With `"maxConcurrentCalls": 1` a 2025-11-25 stdio backend has one call in flight at a time,
/// so its live question always has its caller: the asker is asked and answers while another
/// client's call waits its turn, and the bystander is asked nothing.
#[tokio::test]
async fn one_call_at_a_time_gives_a_legacy_stdio_backends_question_its_caller() {
    let legacy = r#"{"mcpServers": {"old": {"command": "${BIN}", "args": ["serve", "everything"], "prefix": "",
        "protocol": "2025-11-25", "maxConcurrentCalls": 1}}}"#;
    let (answer, bystander_asked) = overlapping_calls(legacy).await;
    assert!(answer.contains("accept") && answer.contains("ada@example.com"), "the asker answered: {answer}");
    assert_eq!(bystander_asked, 0, "the bystander was asked another client's question");
}

/// Over Streamable HTTP a 2025-11-25 backend asks on the response stream of the call its
/// question belongs to, which the gateway reads in that call's own task: the question reaches
/// the client that made the call even while another client's call to the backend is in flight,
/// and the bystander is asked nothing.
#[tokio::test]
async fn a_legacy_http_backends_question_reaches_its_own_caller_while_calls_overlap() {
    let mut serve = Command::new(bin());
    serve.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    let backend = HttpServer::start(serve);
    let config = format!(
        r#"{{"mcpServers": {{"old": {{"url": "{}", "prefix": "", "protocol": "2025-11-25"}}}}}}"#,
        backend.url()
    );
    let (answer, bystander_asked) = overlapping_calls(&config).await;
    assert!(answer.contains("accept") && answer.contains("ada@example.com"), "the asker answered: {answer}");
    assert_eq!(bystander_asked, 0, "the bystander was asked another client's question");
}

/// Through a gateway of `config` (one 2025-11-25 backend, `serve everything`), two legacy
/// clients: a bystander whose long call is in flight, and an asker whose call elicits. The
/// asker's result, and how many questions reached the bystander.
async fn overlapping_calls(config: &str) -> (String, usize) {
    let (gateway, _dir) = gateway(config);
    let asked_bystander = Arc::new(Mutex::new(0));
    let mut bystanding = options(EraMode::Legacy);
    let counter = asked_bystander.clone();
    bystanding.handlers = ClientHandlers::default().on_elicit(move |_| {
        *counter.lock().unwrap() += 1;
        async { ada() }
    });
    let bystander = connect(&gateway, bystanding).await;
    let mut asking = options(EraMode::Legacy);
    asking.handlers = ClientHandlers::default().on_elicit(|_| async { ada() });
    let asker = connect(&gateway, asking).await;
    let running = bystander.call_tool("long_running_operation", json!({"steps": 20, "step_ms": 100}));
    let asked = async {
        tokio::time::sleep(Duration::from_millis(300)).await; // the bystander's call is in flight
        asker.call_tool("test_elicitation", json!({"message": "Who?"})).await
    };
    let (ran, asked) = tokio::join!(running, asked);
    ran.unwrap();
    let answer = text(&asked.unwrap());
    let bystander_asked = *asked_bystander.lock().unwrap();
    (answer, bystander_asked)
}

/// A backend's skills are the gateway's, under the backend's prefix: listed, their files read
/// and verified against their entries through the gateway, and not mirrored a second time
/// among the backend's resources.
#[tokio::test]
async fn a_backends_skills_are_served_under_its_prefix() {
    let config = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#;
    let (gateway, _dir) = gateway(config);
    let client = connect(&gateway, options(EraMode::Modern)).await;
    let skills = client.list_skills().await.unwrap();
    let uris: Vec<&str> = skills.iter().map(|skill| skill.uri.as_str()).collect();
    assert_eq!(uris, ["skill://ev/debug-mcp-servers/SKILL.md"]);
    let loaded = client.load_skill(&skills[0]).await.unwrap();
    assert!(loaded.manifest.contains("name: debug-mcp-servers"), "{}", loaded.manifest);
    let reference = "skill://ev/debug-mcp-servers/references/commands.md";
    let bytes = client.read_skill_file(&loaded, reference).await.unwrap();
    let backend_file = include_str!("../../../modelctx-servers/src/conformance/skill/references/commands.md");
    assert_eq!(bytes, backend_file.as_bytes());
    let resources = client.list_resources().await.unwrap();
    let skill_files: Vec<&str> =
        resources.iter().map(|r| r.uri.as_str()).filter(|uri| uri.contains("skill://")).collect();
    assert!(skill_files.iter().all(|uri| uri.starts_with("skill://ev/")), "{skill_files:?}");
}

/// Over Streamable HTTP a backend's log line on a call's own response stream is that call's:
/// with two clients' calls in flight to the backend at once, each client gets the log lines of
/// its own call and none of the other's (a line that carries nothing to tie it to a call was
/// relayed only while one call was in flight).
#[tokio::test]
async fn log_lines_on_a_calls_own_stream_reach_its_caller_while_calls_overlap() {
    let mut serve = Command::new(bin());
    serve.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
    let backend = HttpServer::start(serve);
    let config = format!(r#"{{"mcpServers": {{"ev": {{"url": "{}", "prefix": ""}}}}}}"#, backend.url());
    let (gateway, _dir) = gateway(&config);
    let call = async |steps: u64| {
        let client = connect(&gateway, options(EraMode::Auto)).await;
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        let mut notes = client.notifications();
        let arguments = json!({"steps": steps, "step_ms": 60});
        let done = client.call_tool("long_running_operation", arguments).await.unwrap();
        assert_eq!(text(&done), format!("finished {steps} steps"));
        let mut logged = Vec::new();
        while let Ok(note) = notes.try_recv() {
            if note.method == Method::LoggingMessage {
                logged.push(note.params.unwrap_or_default()["data"]["of"].as_u64().unwrap_or_default());
            }
        }
        logged
    };
    let (four, six) = tokio::join!(call(4), call(6));
    assert_eq!(four, [4; 4], "the four-step call's own log lines, all of them");
    assert_eq!(six, [6; 6], "the six-step call's own log lines, all of them");
}

/// A tool a backend adds is announced to the gateway's clients (a listen stream in
/// 2026-07-28, a notification on the session in 2025-11-25) and callable once listed.
#[tokio::test]
async fn a_backends_list_change_reaches_the_gateways_clients() {
    let (gateway, _dir) = gateway(ONE);
    let modern = connect(&gateway, options(EraMode::Auto)).await;
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..SubscriptionFilter::default() };
    let mut changes = Box::pin(modern.listen(filter).await.unwrap());
    let legacy = connect(&gateway, options(EraMode::Legacy)).await;
    let mut notes = legacy.notifications();
    legacy.list_tools().await.unwrap();

    let added = modern.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
    assert!(text(&added).to_lowercase().contains("added"), "{}", text(&added));
    tokio::time::timeout(WAIT, changes.next()).await.expect("a change in time").expect("the stream is open");
    tokio::time::timeout(WAIT, async {
        while notes.recv().await.unwrap().method != Method::ToolListChanged {}
    })
    .await
    .expect("the legacy session hears it too");
    let tools = modern.list_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "test_dynamic_tool"));
    let dynamic = legacy.call_tool("test_dynamic_tool", json!({})).await.unwrap();
    assert!(!dynamic.is_error.unwrap_or(false), "{dynamic:?}");
    modern.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
}

/// A backend's resource update reaches the gateway's subscribers in both eras (a listen
/// stream, `resources/subscribe`).
#[tokio::test]
async fn a_backends_resource_update_reaches_the_gateways_subscribers() {
    let (gateway, _dir) = gateway(ONE);
    for (mode, _) in MODES {
        let client = connect(&gateway, options(mode)).await;
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec!["test://watched-resource".into()]),
            ..SubscriptionFilter::default()
        };
        let mut updates = Box::pin(client.listen(filter).await.unwrap());
        client.call_tool("test_trigger_resource_update", json!({})).await.unwrap();
        let update = tokio::time::timeout(WAIT, updates.next()).await.expect("an update in time").unwrap();
        assert_eq!(update.method, Method::ResourceUpdated, "{mode:?}");
        assert_eq!(update.params.unwrap()["uri"], "test://watched-resource", "{mode:?}");
    }
}

/// A relay in front of a backend, keeping every byte the gateway sends it.
async fn recording_relay(backend: std::net::SocketAddr) -> (std::net::SocketAddr, Arc<Mutex<Vec<u8>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&sent);
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let kept = Arc::clone(&kept);
            tokio::spawn(async move {
                let Ok(mut outbound) = tokio::net::TcpStream::connect(backend).await else { return };
                let (mut from_gateway, mut to_gateway) = inbound.split();
                let (mut from_backend, mut to_backend) = outbound.split();
                let up = async {
                    let mut buffer = [0_u8; 8192];
                    while let Ok(n @ 1..) = from_gateway.read(&mut buffer).await {
                        kept.lock().unwrap().extend_from_slice(&buffer[..n]);
                        if to_backend.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = to_backend.shutdown().await;
                };
                let down = tokio::io::copy(&mut from_backend, &mut to_gateway);
                let _ = tokio::join!(up, down);
            });
        }
    });
    (address, sent)
}

/// The gateway's client's token (here the run token) authorizes it at the gateway, and
/// nowhere else: the backend gets the headers of its own entry only (token passthrough is
/// forbidden).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbound_token_never_reaches_a_backend() {
    let backend = {
        let mut command = Command::new(bin());
        command.args(["serve", "everything", "--http", "127.0.0.1:0"]).stdin(Stdio::null());
        HttpServer::start(command)
    };
    let (relay, sent) = recording_relay(backend.address).await;
    let config = format!(
        r#"{{"mcpServers": {{"remote": {{"url": "http://{relay}/mcp", "headers": {{"X-Backend-Key": "backend-credential"}}}}}}}}"#
    );
    let (gateway, _dir) = gateway(&config);
    for (mode, _) in MODES {
        let client = connect(&gateway, options(mode)).await;
        let echoed = client.call_tool("remote__echo", json!({"message": "hi"})).await.unwrap();
        assert_eq!(text(&echoed), "hi");
    }
    let seen = String::from_utf8_lossy(&sent.lock().unwrap()).into_owned();
    assert!(seen.contains("backend-credential"), "the backend's own credential is sent");
    assert!(seen.contains("remote__echo") || seen.contains("\"echo\""), "the calls went through the relay");
    assert!(!seen.contains(RUN_TOKEN), "the client's token is not passed on");
}

/// Over HTTP the gateway lets in only the holders of its run token — every backend is called
/// with the operator's credentials, and loopback does not tell the operator from any other
/// local user or process (it used to let everyone in): the token given in
/// `MODELCTX_GATEWAY_TOKEN`, or one made at start and printed; `--no-auth` opens it on purpose.
#[tokio::test]
async fn over_http_the_gateway_lets_in_only_the_holders_of_its_run_token() {
    const ONE: &str = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#;
    let (given, _dir) = gateway(ONE);
    let url = format!("http://{}/mcp", given.address);
    for bearer in [None, Some("not-the-token")] {
        let mut stranger = options(EraMode::Auto);
        stranger.auth = bearer.map(|token| Arc::new(StaticBearer::new(token)) as _);
        let refused = Client::connect_http(&url, Default::default(), stranger).await.err().expect("refused");
        assert!(refused.to_string().contains("401"), "{bearer:?}: {refused}");
    }
    assert!(!connect(&given, options(EraMode::Auto)).await.list_tools().await.unwrap().is_empty());

    let printed = {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gateway.json");
        std::fs::write(&path, ONE.replace("${BIN}", bin())).unwrap();
        let mut command = Command::new(bin());
        command.args(["gateway", "--http", "127.0.0.1:0", "--config"]).arg(&path).stdin(Stdio::null());
        command.env_remove("MODELCTX_GATEWAY_TOKEN");
        (HttpServer::start(command), dir)
    };
    let token =
        printed.0.log.iter().find_map(|line| line.strip_prefix("gateway token: ")).expect("a printed token");
    assert_eq!(token.len(), 64);
    let mut holder = options(EraMode::Legacy);
    holder.auth = Some(Arc::new(StaticBearer::new(token)));
    assert!(!connect(&printed.0, holder).await.list_tools().await.unwrap().is_empty());

    let (open, _dir) = gateway_with(ONE, &["--no-auth"]);
    let mut anyone = options(EraMode::Auto);
    anyone.auth = None;
    assert!(
        !connect(&open, anyone).await.list_tools().await.unwrap().is_empty(),
        "--no-auth lets everyone in"
    );
}

/// A call its client gives up on (a closed stream in 2026-07-28, `notifications/cancelled`
/// in 2025-11-25) is cancelled on the backend: the backend, whose standard input is copied
/// to a file, is told `notifications/cancelled` for each.
#[tokio::test]
async fn a_cancelled_call_is_cancelled_on_its_backend() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("backend-input.jsonl");
    let config = format!(
        r#"{{"mcpServers": {{"ev": {{"command": "sh", "args": ["-c", "tee {} | exec \"$0\" serve everything", "${{BIN}}"], "prefix": ""}}}}}}"#,
        input.display()
    );
    let (gateway, _dir) = gateway(&config);
    for (mode, _) in MODES {
        let client = connect(&gateway, options(mode)).await;
        let slow = client.call_tool("long_running_operation", json!({"steps": 100, "step_ms": 100}));
        assert!(tokio::time::timeout(Duration::from_millis(500), slow).await.is_err(), "still running");
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    let told = loop {
        let told =
            std::fs::read_to_string(&input).unwrap_or_default().matches("notifications/cancelled").count();
        if told >= 2 || tokio::time::Instant::now() > deadline {
            break told;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(told, 2, "each abandoned call is cancelled on the backend");
}

/// With `--auth-issuer`, a verified caller reaches a backend only within the scopes its token
/// holds for it (`BACKEND:read`, `BACKEND:write`): every backend is called with the operator's
/// credentials, and any valid token used to reach every tool. Tokens of a real JWKS.
#[test]
fn with_authorization_a_caller_reaches_a_backend_only_within_its_scopes() {
    // The authorization server runs on a runtime of its own, started and dropped out here.
    let authorization = crate::support::authorization_server::AuthorizationServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(scoped_callers(&authorization));
}

async fn scoped_callers(authorization: &crate::support::authorization_server::AuthorizationServer) {
    let (gateway, _dir) = gateway_with(
        TWO,
        &["--auth-issuer", &authorization.issuer, "--auth-jwks", &authorization.jwks_uri()],
    );
    let url = format!("http://{}/mcp", gateway.address);
    let as_caller = |scope: &str| {
        let mut options = options(EraMode::Auto);
        let token = authorization.access_token("bob", &url, scope);
        options.auth = Some(Arc::new(StaticBearer::new(token)));
        options
    };
    // Backend a's echo says it only reads (a:read); backend b's test_simple_text says nothing,
    // so it may write (b:write); b's prompts read (b:read).
    let reader = Client::connect_http(&url, Default::default(), as_caller("a:read b:read")).await.unwrap();
    assert_eq!(text(&reader.call_tool("a__echo", json!({"message": "hi"})).await.unwrap()), "hi");
    assert!(reader.get_prompt("test_simple_prompt", json!({})).await.is_ok(), "b:read reaches b's prompts");
    let refused = reader.call_tool("test_simple_text", json!({})).await.unwrap_err();
    assert!(refused.to_string().contains("403") && refused.to_string().contains("b:write"), "{refused}");
    let only_a = Client::connect_http(&url, Default::default(), as_caller("a:read")).await.unwrap();
    let other_backend = only_a.call_tool("echo", json!({"message": "hi"})).await.unwrap_err();
    assert!(other_backend.to_string().contains("b:read"), "a's scope does not reach b: {other_backend}");
    let prompt = only_a.get_prompt("test_simple_prompt", json!({})).await.unwrap_err();
    assert!(prompt.to_string().contains("b:read"), "{prompt}");
    let writer = Client::connect_http(&url, Default::default(), as_caller("b:write")).await.unwrap();
    assert!(writer.call_tool("test_simple_text", json!({})).await.is_ok(), "b:write reaches b's tools");
}

/// `policies`: rules over the verified principal (tokens of a real JWKS) decide what each
/// caller lists and uses. An operator sees every tool; a reader sees the read-only tools but
/// the one a rule denies, and a call to that one is refused naming the rule, one to a tool no
/// rule allows says so; a caller no rule applies to sees nothing and may use nothing. The
/// `--audit` line of the call made names its principal.
#[test]
fn policies_filter_each_callers_listings_and_refuse_naming_the_rule() {
    let authorization = crate::support::authorization_server::AuthorizationServer::start();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(policy_callers(&authorization));
}

async fn policy_callers(authorization: &crate::support::authorization_server::AuthorizationServer) {
    let config = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}},
        "policies": [
            {"name": "operators", "principals": {"scopes": ["admin"]}, "allow": {"tools": ["*"], "prompts": ["*"], "resources": ["*"]}},
            {"name": "readers", "principals": {"subject": "alice*", "scopes": ["reader"]},
             "allow": {"readOnlyTools": true}, "deny": {"tools": ["ev__add"]}}
        ]}"#;
    let audit_dir = tempfile::tempdir().unwrap();
    let audit = audit_dir.path().join("audit.jsonl");
    let (gateway, _dir) = gateway_with(
        config,
        &[
            "--auth-issuer",
            &authorization.issuer,
            "--auth-jwks",
            &authorization.jwks_uri(),
            "--audit",
            audit.to_str().unwrap(),
        ],
    );
    let url = format!("http://{}/mcp", gateway.address);
    let caller = |subject: &str, scope: &str| {
        let mut options = options(EraMode::Auto);
        let token = authorization.access_token(subject, &url, &format!("{scope} ev:read ev:write"));
        options.auth = Some(Arc::new(StaticBearer::new(token)));
        Client::connect_http(&url, Default::default(), options)
    };
    let names = |tools: Vec<modelctx::protocol::model::Tool>| -> Vec<String> {
        tools.into_iter().map(|tool| tool.name).collect()
    };

    let operator = caller("olga", "admin").await.unwrap();
    let all = names(operator.list_tools().await.unwrap());
    assert!(all.contains(&"ev__fail".to_owned()) && all.contains(&"ev__add".to_owned()), "{all:?}");
    assert!(!operator.list_prompts().await.unwrap().is_empty());

    let reader = caller("alice", "reader").await.unwrap();
    let seen = names(reader.list_tools().await.unwrap());
    assert!(seen.contains(&"ev__echo".to_owned()), "read-only tools are listed: {seen:?}");
    assert!(!seen.contains(&"ev__add".to_owned()), "the denied one is not: {seen:?}");
    assert!(!seen.contains(&"ev__fail".to_owned()), "nor one that may write: {seen:?}");
    assert!(seen.len() < all.len());
    assert_eq!(text(&reader.call_tool("ev__echo", json!({"message": "hi"})).await.unwrap()), "hi");
    let denied = reader.call_tool("ev__add", json!({"a": 1, "b": 2})).await.unwrap_err().to_string();
    assert!(denied.contains("denied to this caller by policy \"readers\""), "{denied}");
    let unallowed = reader.call_tool("ev__fail", json!({})).await.unwrap_err().to_string();
    assert!(unallowed.contains("no policy allows it (policies applying: readers)"), "{unallowed}");
    assert!(reader.list_prompts().await.unwrap().is_empty(), "no rule gives the reader prompts");

    let stranger = caller("mallory", "reader").await.unwrap();
    assert!(stranger.list_tools().await.unwrap().is_empty(), "no rule applies to mallory");
    let refused = stranger.call_tool("ev__echo", json!({"message": "hi"})).await.unwrap_err().to_string();
    assert!(refused.contains("no policy applies to this caller"), "{refused}");

    // The audit names the verified principal of each call, made or refused, and why one was
    // refused.
    let written = audit_until(&audit, |written| written.lines().count() >= 4).await;
    let lines = audit_lines(&written);
    let seen: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|line| {
            let field = |key: &str| line[key].as_str().unwrap_or_default();
            let subject = line["principal"]["subject"].as_str().unwrap_or_default();
            (subject, field("tool"), field("outcome"))
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("alice", "echo", "ok"),
            ("alice", "add", "refused"),
            ("alice", "fail", "refused"),
            ("mallory", "echo", "refused")
        ],
        "{written}"
    );
    assert_eq!(lines[0]["principal"]["issuer"], authorization.issuer.as_str());
    assert!(lines[1]["detail"].as_str().unwrap().contains("policy \"readers\""), "{written}");
    assert!(lines[3]["detail"].as_str().unwrap().contains("no policy applies"), "{written}");
}

/// HTTP-37: an intermediary answers a request that fails its validation with an HTTP error
/// status. The gateway sits between client and backends; a 2026-07-28 request whose
/// `Mcp-Method` header says otherwise than its body, or whose protocol version header is one it
/// does not speak, is refused `400` there, and never reaches a backend.
#[tokio::test]
async fn http_37_the_gateway_answers_a_request_failing_validation_with_400() {
    const ONE: &str = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#;
    let (gateway, _dir) = gateway(ONE);
    let url = format!("http://{}/mcp", gateway.address);
    let http = reqwest::Client::new();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let send = |method: &'static str, version: &'static str| {
        http.post(&url)
            .bearer_auth(RUN_TOKEN)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version)
            .header("mcp-method", method)
            .body(body.to_string())
            .send()
    };
    assert_eq!(send("tools/list", "2026-07-28").await.unwrap().status(), 200, "a valid request passes");
    for (method, version) in [("tools/call", "2026-07-28"), ("tools/list", "1999-01-01")] {
        let refused = send(method, version).await.unwrap();
        assert_eq!(refused.status(), 400, "{method} {version}");
        let said: serde_json::Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
        assert!(said["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{said}");
    }
}
