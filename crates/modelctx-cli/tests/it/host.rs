//! `modelctx::host::Host` over real servers: `modelctx serve everything` as stdio children and
//! over loopback HTTP, read from a configuration with variables. One registry of namespaced
//! tools, routing, a SIGKILLed server restarted, refresh on `tools/list_changed` in both eras,
//! the approval hook, per-server time limits, a server that cannot start, and shutdown that
//! leaves no process behind.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::http::HttpServer;
use modelctx::client::EraMode;
use modelctx::host::{
    Approval, ApprovalHook, ApprovalRequest, Host, HostConfig, HostError, HostOptions, RestartPolicy, Risk,
    ServerState, TransportKind,
};
use modelctx::protocol::{Era, types::Implementation};
use serde_json::{Value, json};

/// The bound on every wait for something to happen.
const WAIT: Duration = Duration::from_secs(20);

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_modelctx")
}

/// A configuration read the way a user's file is: `${BIN}` and `${URL}` expanded from a fixed
/// environment.
fn config(text: &str, url: Option<&str>) -> HostConfig {
    let lookup = |name: &str| match name {
        "BIN" => Some(bin().to_owned()),
        "URL" => url.map(str::to_owned),
        _ => None,
    };
    HostConfig::parse_with(text, lookup).expect("a valid configuration")
}

fn options() -> HostOptions {
    let mut options = HostOptions::new(Implementation::new("host-test", "1"));
    options.restart = RestartPolicy { initial_delay: Duration::from_millis(50), ..RestartPolicy::default() };
    options
}

fn text(result: &modelctx::protocol::model::CallToolResult) -> Value {
    serde_json::to_value(&result.content).unwrap()[0]["text"].clone()
}

/// Whether process `pid` is gone — neither running nor a zombie awaiting its parent.
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('X')),
    }
}

/// Waits (at most [`WAIT`]) until `check` holds.
async fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "still waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn sigkill(pid: u32) {
    let status = Command::new("kill").args(["-KILL", &pid.to_string()]).status().expect("kill runs");
    assert!(status.success(), "kill -KILL {pid}");
}

/// `modelctx serve everything --http 127.0.0.1:0`, killed when dropped.
fn http_server() -> HttpServer {
    let mut command = Command::new(bin());
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]).env("NO_COLOR", "1").stdin(Stdio::null());
    HttpServer::start(command)
}

const THREE: &str = r#"{"mcpServers": {
    "alpha": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true},
    "beta": {"command": "${BIN}", "args": ["serve", "everything"], "timeoutMs": 30000, "trustAnnotations": true},
    "gamma": {"type": "http", "url": "${URL}", "trustAnnotations": true},
    "off": {"command": "${NOT_SET}", "disabled": true}
}}"#;

/// Two `serve everything` children, `a` and `b`.
const TWO: &str = r#"{"mcpServers": {
    "a": {"command": "${BIN}", "args": ["serve", "everything"]},
    "b": {"command": "${BIN}", "args": ["serve", "everything"]}
}}"#;

#[tokio::test]
async fn three_servers_one_registry_routed_calls_and_a_restart_after_sigkill() {
    let http = http_server();
    let config = config(THREE, Some(&http.url()));
    assert_eq!(config.disabled, ["off"]);
    // A slow first restart, so that calls made meanwhile can be seen to fail fast.
    let mut options = options();
    options.restart.initial_delay = Duration::from_secs(1);
    let host = Host::start(config, options).await;

    let status = host.status();
    let states: Vec<(&str, ServerState, TransportKind)> =
        status.iter().map(|s| (s.name.as_str(), s.state, s.transport)).collect();
    assert_eq!(
        states,
        [
            ("alpha", ServerState::Connected, TransportKind::Stdio),
            ("beta", ServerState::Connected, TransportKind::Stdio),
            ("gamma", ServerState::Connected, TransportKind::Http),
        ],
        "{status:?}"
    );
    assert!(status.iter().all(|s| s.tools > 0 && s.last_error.is_none()), "{status:?}");
    assert!(status[2].pid.is_none(), "an HTTP server has no process of ours");

    // One registry: each server's tools under its own prefix, mapped back.
    let tools = host.tools();
    for server in ["alpha", "beta", "gamma"] {
        for tool in ["echo", "add", "long_running_operation"] {
            let name = format!("{server}__{tool}");
            let entry = tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name} is listed"));
            assert_eq!((entry.server.as_str(), entry.tool.name.as_str()), (server, tool));
        }
    }
    assert_eq!(tools.len(), status.iter().map(|s| s.tools).sum::<usize>());
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    names.dedup();
    assert_eq!(names.len(), tools.len(), "names are distinct");
    assert!(
        names
            .iter()
            .all(|n| n.len() <= 64 && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    );
    let listing = serde_json::to_value(host.tool("gamma__add").unwrap()).unwrap();
    assert_eq!(listing["server"], "gamma");
    assert_eq!(listing["tool"]["name"], "add");
    assert_eq!(listing["risk"], json!({"destructive": false, "openWorld": false}));

    // Routing.
    for server in ["alpha", "beta", "gamma"] {
        let echo = host.call_tool(&format!("{server}__echo"), json!({"message": server})).await.unwrap();
        assert_eq!(text(&echo), server);
    }
    let sum = host.call_tool("gamma__add", json!({"a": 40, "b": 2})).await.unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 42.0})));
    let unknown = host.call_tool("echo", json!({})).await.unwrap_err();
    assert_eq!(unknown, HostError::UnknownTool("echo".into()));

    // alpha crashes and is started again; its tools stay listed, calls fail fast meanwhile.
    let before = host.server_status("alpha").unwrap().pid.expect("a running stdio server has a pid");
    let beta_pid = host.server_status("beta").unwrap().pid.unwrap();
    sigkill(before);
    wait_until("alpha to be restarting", || {
        host.server_status("alpha").unwrap().state == ServerState::Restarting
    })
    .await;
    assert!(host.tool("alpha__echo").is_some(), "a restarting server keeps its tools listed");
    let meanwhile = host.call_tool("alpha__echo", json!({"message": "too soon"})).await.unwrap_err();
    match &meanwhile {
        HostError::Unavailable { server, state: ServerState::Restarting, last_error: Some(why) } => {
            assert_eq!(server, "alpha");
            assert!(why.ends_with("was ended by signal 9"), "{why}");
        }
        other => panic!("expected the call to fail fast: {other:?}"),
    }
    assert!(meanwhile.is_unavailable());
    wait_until("alpha to be back", || {
        let alpha = host.server_status("alpha").unwrap();
        alpha.state == ServerState::Connected && alpha.restarts == 1
    })
    .await;
    let alpha = host.server_status("alpha").unwrap();
    let after = alpha.pid.unwrap();
    assert_ne!(before, after);
    assert!(alpha.last_error.unwrap().ends_with("was ended by signal 9"), "the crash stays on record");
    wait_until("the killed server to be reaped", || gone(before)).await;
    let echo = host.call_tool("alpha__echo", json!({"message": "back again"})).await.unwrap();
    assert_eq!(text(&echo), "back again");
    let beta = host.server_status("beta").unwrap();
    assert_eq!(
        (beta.state, beta.pid, beta.restarts),
        (ServerState::Connected, Some(beta_pid), 0),
        "beta untouched"
    );
    assert_eq!(text(&host.call_tool("gamma__echo", json!({"message": "g"})).await.unwrap()), "g");

    // Shutdown ends every child and the registry.
    host.shutdown().await;
    assert!(gone(after) && gone(beta_pid), "shutdown waits for the children to be reaped");
    assert!(host.status().iter().all(|s| s.state == ServerState::Stopped && s.pid.is_none()));
    assert!(host.tools().is_empty());
    assert_eq!(
        host.call_tool("gamma__echo", json!({"message": "x"})).await.unwrap_err(),
        HostError::ShutDown
    );
}

#[tokio::test]
async fn restarts_are_bounded_and_then_the_server_fails_alone() {
    let mut options = options();
    options.restart = RestartPolicy::never();
    let config = config(
        r#"{"mcpServers": {
            "fragile": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true},
            "steady": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true}
        }}"#,
        None,
    );
    let host = Host::start(config, options).await;
    let pid = host.server_status("fragile").unwrap().pid.unwrap();
    sigkill(pid);
    wait_until("fragile to fail", || host.server_status("fragile").unwrap().state == ServerState::Failed)
        .await;
    assert!(host.tools().iter().all(|t| t.server == "steady"), "a failed server's tools leave the registry");
    let error = host.call_tool("fragile__echo", json!({"message": "x"})).await.unwrap_err();
    assert_eq!(error, HostError::UnknownTool("fragile__echo".into()));
    assert_eq!(text(&host.call_tool("steady__echo", json!({"message": "ok"})).await.unwrap()), "ok");
    host.shutdown().await;
    assert!(gone(pid));
}

#[tokio::test]
async fn a_server_that_cannot_start_or_answer_fails_without_holding_up_the_others() {
    let mut options = options();
    options.connect_timeout = Duration::from_secs(2);
    let config = config(
        r#"{"mcpServers": {
            "missing": {"command": "/no/such/server"},
            "mute": {"command": "sh", "args": ["-c", "exec sleep 60"]},
            "ok": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true}
        }}"#,
        None,
    );
    let host = Host::start(config, options).await;
    let status = host.status();
    let missing = &status[0];
    assert_eq!(missing.state, ServerState::Failed);
    let why = missing.last_error.as_deref().unwrap();
    assert!(why.starts_with("could not connect: the server could not be started: /no/such/server"), "{why}");
    let mute = &status[1];
    assert_eq!(mute.state, ServerState::Failed);
    assert_eq!(mute.last_error.as_deref(), Some("could not connect within 2s"));
    assert_eq!(status[2].state, ServerState::Connected);
    assert!(host.tools().iter().all(|t| t.server == "ok"));
    assert_eq!(text(&host.call_tool("ok__echo", json!({"message": "fine"})).await.unwrap()), "fine");
    host.shutdown().await;
}

#[tokio::test]
async fn tool_changes_refresh_the_registry_in_both_eras() {
    for (mode, era) in [(EraMode::Auto, Era::Modern), (EraMode::Legacy, Era::Legacy)] {
        let mut options = options().approval(ApprovalHook::approve_all());
        options.client.mode = mode;
        let config = config(
            r#"{"mcpServers": {"live": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#,
            None,
        );
        let host = Host::start(config, options).await;
        assert_eq!(host.server_status("live").unwrap().version.unwrap().era(), era);
        assert!(host.tool("live__test_dynamic_tool").is_none());
        let added = host.call_tool("live__test_trigger_tool_change", json!({})).await.unwrap();
        assert_eq!(text(&added), "Added test_dynamic_tool", "{mode:?}");
        wait_until("the new tool in the registry", || host.tool("live__test_dynamic_tool").is_some()).await;
        let dynamic = host.call_tool("live__test_dynamic_tool", json!({})).await.unwrap();
        assert_eq!(text(&dynamic), "This tool comes and goes with test_trigger_tool_change.");
        host.call_tool("live__test_trigger_tool_change", json!({})).await.unwrap();
        wait_until("the tool to leave the registry", || host.tool("live__test_dynamic_tool").is_none()).await;
        host.shutdown().await;
    }
}

#[tokio::test]
async fn the_approval_hook_decides_risky_calls_and_a_denial_is_not_sent() {
    let asked: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
    let allow = Arc::new(AtomicBool::new(true));
    let (record, allowed) = (Arc::clone(&asked), Arc::clone(&allow));
    let hook = ApprovalHook::new(move |request: ApprovalRequest| {
        record.lock().unwrap().push(request);
        let allowed = allowed.load(Ordering::SeqCst);
        async move { if allowed { Approval::Approve } else { Approval::Deny("the user said no".into()) } }
    });
    let config = config(
        r#"{"mcpServers": {
            "s": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true},
            "u": {"command": "${BIN}", "args": ["serve", "everything"]}
        }}"#,
        None,
    );
    let host = Host::start(config.clone(), options().approval(hook)).await;

    // Read-only, closed-world tools of a server whose annotations are trusted need no
    // approval; the same tool of a server not trusted does (TOOL-08).
    host.call_tool("s__echo", json!({"message": "hi"})).await.unwrap();
    assert!(asked.lock().unwrap().is_empty());
    host.call_tool("u__echo", json!({"message": "hi"})).await.unwrap();
    let untrusted =
        asked.lock().unwrap().pop().expect("the untrusted server's read-only tool was asked about");
    assert_eq!(
        (untrusted.name.as_str(), untrusted.risk),
        ("u__echo", Risk { destructive: true, open_world: true })
    );

    // A tool without annotations is destructive and open-world by the spec's defaults.
    let approved =
        host.call_tool("s__long_running_operation", json!({"steps": 1, "step_ms": 1})).await.unwrap();
    assert_eq!(text(&approved), "finished 1 steps");
    allow.store(false, Ordering::SeqCst);
    let denied = host.call_tool("s__test_trigger_tool_change", json!({})).await.unwrap_err();
    assert_eq!(
        denied,
        HostError::Denied {
            server: "s".into(),
            tool: "test_trigger_tool_change".into(),
            reason: "the user said no".into()
        }
    );
    assert_eq!(
        denied.to_string(),
        "the call to \"test_trigger_tool_change\" on server \"s\" was not approved: the user said no"
    );
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0].server, "s");
        assert_eq!(asked[0].tool, "long_running_operation");
        assert_eq!(asked[0].name, "s__long_running_operation");
        assert_eq!(asked[0].arguments, json!({"steps": 1, "step_ms": 1}));
        assert_eq!(asked[0].annotations, None);
        assert_eq!(asked[0].risk, Risk { destructive: true, open_world: true });
        assert_eq!(asked[1].tool, "test_trigger_tool_change");
    }
    // The denied trigger never reached the server: the first approved one adds the tool
    // (a second would remove it).
    allow.store(true, Ordering::SeqCst);
    let first = host.call_tool("s__test_trigger_tool_change", json!({})).await.unwrap();
    assert_eq!(text(&first), "Added test_dynamic_tool");
    host.shutdown().await;

    // Without a hook, risky calls are denied.
    let host = Host::start(config, options()).await;
    let error = host.call_tool("s__long_running_operation", json!({"steps": 1})).await.unwrap_err();
    assert!(error.is_denied(), "{error}");
    host.call_tool("s__add", json!({"a": 1, "b": 2})).await.unwrap();
    host.shutdown().await;
}

#[tokio::test]
async fn a_per_server_time_limit_cancels_a_slow_call_and_the_server_goes_on() {
    let config = config(
        r#"{"mcpServers": {
            "slow": {"command": "${BIN}", "args": ["serve", "everything"], "timeoutMs": 2000},
            "patient": {"command": "${BIN}", "args": ["serve", "everything"]}
        }}"#,
        None,
    );
    let host = Arc::new(Host::start(config, options().approval(ApprovalHook::approve_all())).await);
    let args = json!({"steps": 1, "step_ms": 120_000});
    let slow = tokio::spawn({
        let host = Arc::clone(&host);
        async move { host.call_tool("slow__long_running_operation", args).await }
    });
    // Calls to one server run side by side.
    assert_eq!(
        text(&host.call_tool("slow__echo", json!({"message": "meanwhile"})).await.unwrap()),
        "meanwhile"
    );
    let error = slow.await.unwrap().unwrap_err();
    assert!(error.is_timeout(), "{error}");
    let client = error.client_error().expect("the client's timeout");
    assert_eq!(client.method().map(|method| method.as_str()), Some("tools/call"), "{client}");
    assert!(client.to_string().contains("within 2s"), "{client}");
    assert_eq!(host.server_status("slow").unwrap().state, ServerState::Connected);
    assert_eq!(
        text(&host.call_tool("slow__echo", json!({"message": "still here"})).await.unwrap()),
        "still here"
    );
    // The default limit (60 s) lets the other server's short operation finish.
    let done =
        host.call_tool("patient__long_running_operation", json!({"steps": 2, "step_ms": 300})).await.unwrap();
    assert_eq!(text(&done), "finished 2 steps");

    // Shutdown ends calls in flight.
    let pids: Vec<u32> = host.status().iter().filter_map(|s| s.pid).collect();
    let pending = tokio::spawn({
        let host = Arc::clone(&host);
        async move {
            host.call_tool("patient__long_running_operation", json!({"steps": 1, "step_ms": 120_000})).await
        }
    });
    host.shutdown().await;
    assert_eq!(pending.await.unwrap().unwrap_err(), HostError::ShutDown);
    assert!(pids.len() == 2 && pids.iter().all(|&pid| gone(pid)), "{pids:?}");
}

/// `maxConcurrentCalls`: calls past the bound wait their turn, in order, within the server's
/// time limit; one that finds no turn in it is not sent and says why, naming the setting (the
/// first holds the turn 0–700 ms, the second 700–1,500, the third gives up at 1,300).
#[tokio::test]
async fn calls_past_max_concurrent_calls_wait_their_turn_within_the_time_limit() {
    let config = config(
        r#"{"mcpServers": {"one": {"command": "${BIN}", "args": ["serve", "everything"], "timeoutMs": 1000,
            "maxConcurrentCalls": 1}}}"#,
        None,
    );
    let host = Arc::new(Host::start(config, options().approval(ApprovalHook::approve_all())).await);
    let call = |delay: u64, step_ms: u64| {
        let host = Arc::clone(&host);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(delay)).await;
            host.call_tool("one__long_running_operation", json!({"steps": 1, "step_ms": step_ms})).await
        })
    };
    // The first holds the one turn for 700 ms; the second waits for it, then holds it past the
    // third's time limit: the third is never sent.
    let (first, second, third) = (call(0, 700), call(100, 800), call(300, 10));
    assert_eq!(text(&first.await.unwrap().unwrap()), "finished 1 steps");
    assert_eq!(text(&second.await.unwrap().unwrap()), "finished 1 steps");
    let busy = third.await.unwrap().unwrap_err();
    assert!(matches!(busy, HostError::Busy { limit: 1, .. }), "{busy}");
    assert!(busy.to_string().contains("maxConcurrentCalls"), "{busy}");
    host.shutdown().await;
}

/// APPS-03: a host that shows apps hides the tools only an app may call from the model,
/// lets an app call only those its server allows, and fetches the app with `resources/read`
/// together with the policy it must render it under. A host that shows no apps never sees
/// the app's own tools.
#[tokio::test]
async fn apps_03_the_model_sees_only_its_tools_and_an_app_calls_only_its_own() {
    let entry = r#"{"mcpServers": {"s": {"command": "${BIN}", "args": ["serve", "everything"], "trustAnnotations": true}}}"#;
    let host = Host::start(config(entry, None), options().show_apps()).await;
    let names: Vec<String> = host.tools().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"s__clock".to_owned()), "{names:?}");
    assert!(!names.contains(&"s__clock_refresh".to_owned()), "app-only tools are not the model's: {names:?}");
    assert!(host.tool("s__clock_refresh").is_some(), "the server listed it to a host that shows apps");
    let hidden = host.call_tool("s__clock_refresh", json!({})).await.unwrap_err();
    assert_eq!(hidden, HostError::UnknownTool("s__clock_refresh".into()));

    let refreshed = host.call_from_app("s", "clock_refresh", json!({})).await.unwrap();
    assert!(text(&refreshed).as_str().unwrap().ends_with("seconds since the Unix epoch"));
    let refused = host.call_from_app("s", "clock", json!({})).await.unwrap_err();
    assert!(refused.is_denied(), "clock is the model's alone: {refused}");

    let app = host.app("s__clock").await.unwrap();
    assert_eq!((app.server.as_str(), app.uri.as_str()), ("s", "ui://everything/clock.html"));
    assert!(app.html.starts_with("<!DOCTYPE html>"));
    assert!(
        app.policy.starts_with("default-src 'none'; ") && app.policy.contains("connect-src 'self';"),
        "{}",
        app.policy
    );
    let no_app = host.app("s__echo").await.unwrap_err();
    assert!(no_app.to_string().contains("links to no app"), "{no_app}");
    host.shutdown().await;

    let plain = Host::start(config(entry, None), options()).await;
    assert!(
        plain.tool("s__clock_refresh").is_none(),
        "a host that shows no apps is not offered the app's tools"
    );
    assert!(plain.tool("s__clock").is_some());
    plain.shutdown().await;
}

/// SUB-08: the server holds no subscription across a restart, so after a stdio server is
/// killed and started again the host sends `subscriptions/listen` anew: a tool change on the
/// new process still reaches the registry.
#[tokio::test]
async fn sub_08_after_a_restart_the_host_listens_again() {
    let config =
        config(r#"{"mcpServers": {"live": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#, None);
    let host = Host::start(config, options().approval(ApprovalHook::approve_all())).await;
    assert_eq!(host.server_status("live").unwrap().version.unwrap().era(), Era::Modern);
    let first = host.server_status("live").unwrap().pid.unwrap();
    sigkill(first);
    wait_until("the server to be back", || {
        let status = host.server_status("live").unwrap();
        status.state == ServerState::Connected && status.pid.is_some_and(|pid| pid != first)
    })
    .await;
    let added = host.call_tool("live__test_trigger_tool_change", json!({})).await.unwrap();
    assert_eq!(text(&added), "Added test_dynamic_tool");
    wait_until("the change heard from the new process", || host.tool("live__test_dynamic_tool").is_some())
        .await;
    host.shutdown().await;
}

/// Prompts beside tools: every server's prompts in one registry under `{server}__{prompt}`,
/// and `get_prompt` routed to the server that has it, by its own name there.
#[tokio::test]
async fn prompts_of_every_server_under_one_registry_routed_to_their_server() {
    for mode in [EraMode::Auto, EraMode::Legacy] {
        let config = config(TWO, None);
        let mut options = options();
        options.client.mode = mode;
        let host = Host::start(config, options).await;
        let names: Vec<String> = host.prompts().into_iter().map(|p| p.name).collect();
        assert!(
            names.contains(&"a__greeting".to_owned()) && names.contains(&"b__greeting".to_owned()),
            "{mode:?}: {names:?}"
        );
        let greeting = host.prompts().into_iter().find(|p| p.name == "b__greeting").unwrap();
        assert_eq!((greeting.server.as_str(), greeting.prompt.name.as_str()), ("b", "greeting"));
        let messages = host.get_prompt("b__greeting", json!({"name": "Ada"})).await.unwrap();
        let text = serde_json::to_value(&messages).unwrap().to_string();
        assert!(text.contains("Please greet Ada"), "{mode:?}: {text}");
        let unknown = host.get_prompt("greeting", json!({})).await.unwrap_err();
        assert_eq!(unknown, HostError::UnknownPrompt("greeting".into()));
        let missing = host.get_prompt("a__greeting", json!({})).await.unwrap_err();
        assert!(matches!(missing, HostError::Prompt { ref server, .. } if server == "a"), "{missing}");
        host.shutdown().await;
    }
}

/// Resources beside tools and prompts: every server's resources under host URIs that map back
/// to their server and their own URI, templates listed with their server, and any URI of a
/// template read through the host.
#[tokio::test]
async fn resources_of_every_server_under_host_uris_that_map_back() {
    use modelctx::host::resource_uri::host_uri;
    use modelctx::protocol::types::TextOrBlob;

    let config = config(TWO, None);
    let host = Host::start(config, options()).await;
    let readme = host_uri("b", "everything://readme");
    let listed = host.resources();
    let entry = listed.iter().find(|r| r.uri == readme).expect("b's readme under its host URI");
    assert_eq!((entry.server.as_str(), entry.resource.uri.as_str()), ("b", "everything://readme"));
    assert!(listed.iter().any(|r| r.uri == host_uri("a", "everything://readme")), "a's too, apart");
    let text = |contents: Vec<TextOrBlob>| match contents.into_iter().next() {
        Some(TextOrBlob::Text(text)) => text.text,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text(host.read_resource(&readme).await.unwrap()),
        "This is the everything server of modelctx."
    );
    let templates = host.resource_templates();
    let template =
        templates.iter().find(|t| t.server == "a" && t.template.uri_template == "everything://items/{id}");
    assert_eq!(template.expect("a's template").uri_template, "mcp-host://a/everything://items/{id}");
    let item = text(host.read_resource(&host_uri("a", "everything://items/7")).await.unwrap());
    assert!(item.contains('7'), "{item}");
    for unknown in ["everything://readme", "mcp-host://nobody/everything%3A%2F%2Freadme"] {
        assert_eq!(
            host.read_resource(unknown).await.unwrap_err(),
            HostError::UnknownResource(unknown.into())
        );
    }
    host.shutdown().await;
}

/// Completion routed: a prompt's argument is completed by the server that has the prompt,
/// under its own name there; a template's by the server named with it.
#[tokio::test]
async fn completion_is_asked_of_the_server_that_has_the_prompt_or_template() {
    use modelctx::host::CompletionTarget;

    let config = config(TWO, None);
    let host = Host::start(config, options()).await;
    let colors = host
        .complete(CompletionTarget::Prompt("a__greeting"), json!({"name": "color", "value": "re"}), None)
        .await
        .unwrap();
    assert!(
        !colors.values.is_empty() && colors.values.iter().all(|v| v.starts_with("re")),
        "{:?}",
        colors.values
    );
    let template = CompletionTarget::Template { server: "b", uri_template: "everything://items/{id}" };
    let ids = host.complete(template, json!({"name": "id", "value": "99"}), None).await.unwrap();
    assert!(
        ids.values.contains(&"99".to_owned()) && ids.values.iter().all(|v| v.starts_with("99")),
        "{:?}",
        ids.values
    );
    let unknown = host
        .complete(CompletionTarget::Prompt("greeting"), json!({"name": "color", "value": ""}), None)
        .await;
    assert_eq!(unknown.unwrap_err(), HostError::UnknownPrompt("greeting".into()));
    host.shutdown().await;
}

/// An HTTP server that went away is connected to again, by the restart policy, once it is
/// back on its address: the call that could not reach it fails with its error, later calls
/// work again, and the reconnection counts as a restart.
#[tokio::test]
async fn an_http_server_that_went_away_is_connected_to_again() {
    let first = http_server();
    let address = first.address;
    let url = format!("http://{address}/mcp");
    let config = config(r#"{"mcpServers": {"web": {"url": "${URL}"}}}"#, Some(&url));
    let host = Host::start(config, options().approval(ApprovalHook::approve_all())).await;
    let echo = |message: &str| json!({"message": message});
    assert_eq!(text(&host.call_tool("web__echo", echo("one")).await.unwrap()), "one");

    drop(first);
    let lost = host.call_tool("web__echo", echo("two")).await.unwrap_err();
    assert!(lost.client_error().is_some_and(|e| e.is_transport() || e.is_closed()), "{lost}");
    let mut again = Command::new(bin());
    again.args(["serve", "everything", "--http", &address.to_string()]).stdin(Stdio::null());
    let _second = HttpServer::start(again);
    wait_until("the host to connect again", || {
        host.server_status("web").is_some_and(|s| s.state == ServerState::Connected && s.restarts == 1)
    })
    .await;
    assert_eq!(text(&host.call_tool("web__echo", echo("three")).await.unwrap()), "three");
    host.shutdown().await;
}
