//! What an operator runs beside `modelctx gateway`: a real Prometheus (Debian's `prometheus`,
//! which scripts/packages.sh installs; `MODELCTX_PROMETHEUS` names another) scraping
//! `--metrics`, the health and readiness probes, and the `--audit` file; a killed backend
//! refused plainly, then by its open circuit, until it is back; arguments checked against the
//! backend's schema before they are forwarded; rate limits; the config reloaded while a call
//! runs.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use modelctx::client::EraMode;
use serde_json::{Value, json};

use crate::gateway::{audit_lines, audit_until, connect, gateway_with, options, text};

/// How long Prometheus gets to start and to scrape what the test made.
const PATIENCE: Duration = Duration::from_secs(60);

/// A process killed when dropped.
struct Guard(std::process::Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Prometheus scraping `target` every second, its API on the port returned.
fn prometheus(dir: &std::path::Path, target: &str) -> (Guard, u16) {
    let config = dir.join("prometheus.yml");
    let scrape = format!(
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: gateway\n    scrape_interval: 1s\n    static_configs:\n      - targets: ['{target}']\n"
    );
    std::fs::write(&config, scrape).unwrap();
    let port = free_port();
    let binary = std::env::var("MODELCTX_PROMETHEUS").unwrap_or_else(|_| "prometheus".into());
    let child = Command::new(&binary)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("{binary} does not start ({e}): install prometheus (scripts/packages.sh)")
        });
    (Guard(child), port)
}

/// The value of the one series `query` gives, once Prometheus has it and it equals
/// `expected`; the last seen otherwise, when [`PATIENCE`] is up.
async fn query_until(port: u16, query: &str, expected: f64) -> Option<f64> {
    let deadline = Instant::now() + PATIENCE;
    let mut seen = None;
    while Instant::now() < deadline {
        let url = format!("http://127.0.0.1:{port}/api/v1/query");
        if let Ok(answer) = reqwest::Client::new().get(&url).query(&[("query", query)]).send().await
            && let Ok(body) = answer.text().await
            && let Ok(body) = serde_json::from_str::<Value>(&body)
        {
            seen = body["data"]["result"][0]["value"][1].as_str().and_then(|value| value.parse().ok());
            if seen == Some(expected) {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    seen
}

/// `--metrics`: Prometheus scrapes the gateway and its query API gives the calls by backend,
/// tool and outcome, and the backend up; `/healthz` and `/readyz` answer 200. `--audit`: one
/// JSON line per call, with the outcome, and the argument `--audit-redact` names redacted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_the_gateways_metrics_and_the_audit_holds_each_call() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.to_str().unwrap();
    let config = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#;
    let extra = ["--metrics", "127.0.0.1:0", "--audit", audit_arg, "--audit-redact", "secret"];
    let (gateway, _config_dir) = gateway_with(config, &extra);
    let metrics = metrics_address(&gateway);

    for probe in ["healthz", "readyz"] {
        let answer = reqwest::get(format!("http://{metrics}/{probe}")).await.unwrap();
        assert_eq!(answer.status(), 200, "/{probe}: {}", answer.text().await.unwrap());
    }

    let client = connect(&gateway, options(EraMode::Auto)).await;
    for n in 0..5 {
        let echoed =
            client.call_tool("ev__echo", json!({"message": format!("call {n}"), "secret": "hunter2"})).await;
        assert_eq!(text(&echoed.unwrap()), format!("call {n}"));
    }
    let failed = client.call_tool("ev__fail", json!({})).await.unwrap();
    assert_eq!(failed.is_error, Some(true));

    let (_prometheus, port) = prometheus(dir.path(), &metrics);
    let ok = query_until(port, r#"mcp_gateway_calls_total{server="ev",tool="echo",outcome="ok"}"#, 5.0).await;
    assert_eq!(ok, Some(5.0), "Prometheus counts the five echoes");
    let failed = query_until(port, r#"mcp_gateway_calls_total{tool="fail",outcome="tool_error"}"#, 1.0).await;
    assert_eq!(failed, Some(1.0), "and the failed call, by its outcome");
    let timed = query_until(port, r#"mcp_gateway_call_duration_seconds_count{tool="echo"}"#, 5.0).await;
    assert_eq!(timed, Some(5.0), "each call's duration is observed");
    assert_eq!(query_until(port, r#"mcp_gateway_backend_up{server="ev"}"#, 1.0).await, Some(1.0));

    let written = audit_until(&audit, |written| written.lines().count() >= 6).await;
    let lines = audit_lines(&written);
    assert_eq!(lines.len(), 6, "one line per call: {written}");
    assert_eq!(lines[0]["server"], "ev");
    assert_eq!(lines[0]["tool"], "echo");
    assert_eq!(lines[0]["outcome"], "ok");
    assert_eq!(lines[0]["arguments"], json!({"message": "call 0", "secret": "[redacted]"}));
    assert!(!written.contains("hunter2"), "the redacted value is nowhere");
    assert!(lines[0]["durationMs"].as_f64().unwrap() > 0.0 && lines[0]["time"].is_string());
    assert_eq!(lines[5]["outcome"], "tool_error");
}

/// The `--metrics` address the gateway printed (`metrics on http://ADDR/metrics`).
fn metrics_address(gateway: &crate::support::http::HttpServer) -> String {
    gateway
        .log
        .iter()
        .find_map(|line| line.strip_prefix("metrics on http://"))
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .expect("the metrics address is printed")
        .to_owned()
}

/// The status `/readyz` answers.
async fn readiness(metrics: &str) -> u16 {
    reqwest::get(format!("http://{metrics}/readyz")).await.map_or(0, |answer| answer.status().as_u16())
}

/// Arguments that break the backend's input schema are refused by the gateway as a tool error
/// the model can correct, and never reach the backend (its input is copied to a file).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_break_the_backends_schema_never_reach_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("backend-input.jsonl");
    let script = format!("tee -a {} | exec \"$0\" serve everything", input.display());
    let config =
        json!({"mcpServers": {"ev": {"command": "sh", "args": ["-c", script, "${BIN}"]}}}).to_string();
    let (gateway, _config_dir) = gateway_with(&config, &[]);
    let client = connect(&gateway, options(EraMode::Auto)).await;
    let refused = client.call_tool("ev__add", json!({"a": "two", "b": 2})).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("Invalid arguments for tool ev__add"), "{}", text(&refused));
    let good = client.call_tool("ev__add", json!({"a": 40, "b": 2})).await.unwrap();
    assert!(text(&good).contains("42"), "{}", text(&good));
    let forwarded = std::fs::read_to_string(&input).unwrap_or_default();
    assert!(forwarded.contains("tools/call") && !forwarded.contains("\"two\""), "{forwarded}");
}

/// The pids of `parent`'s children.
fn children(parent: u32) -> Vec<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{parent}/task")).unwrap();
    let listed = tasks.filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok());
    listed
        .flat_map(|list| list.split_whitespace().filter_map(|pid| pid.parse().ok()).collect::<Vec<_>>())
        .collect()
}

/// The gateway's `/metrics` text now.
async fn scrape(metrics: &str) -> String {
    reqwest::get(format!("http://{metrics}/metrics")).await.unwrap().text().await.unwrap()
}

/// A backend killed (SIGKILL): calls to it are refused at once with an error naming it and
/// saying why — none waits on a dead process; after `circuitBreaker.failures` of them its
/// circuit opens (said in the error and in `/metrics`), and when the gateway has started it
/// again — long before the circuit's `openMs` — the circuit closes, `/readyz` says ready again
/// and calls go through. (The backend takes a second to start, so the restart is not quicker
/// than the test.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_backend_opens_its_circuit_which_closes_when_it_is_back() {
    let config = json!({"mcpServers": {"ev": {
        "command": "sh", "args": ["-c", "sleep 1; exec \"$0\" serve everything", "${BIN}"],
        "circuitBreaker": {"failures": 3, "openMs": 600_000}
    }}});
    let (gateway, _config_dir) = gateway_with(&config.to_string(), &["--metrics", "127.0.0.1:0"]);
    let metrics = metrics_address(&gateway);
    let client = connect(&gateway, options(EraMode::Auto)).await;
    assert_eq!(text(&client.call_tool("ev__echo", json!({"message": "here"})).await.unwrap()), "here");
    assert!(scrape(&metrics).await.contains("mcp_gateway_backend_circuit_open{server=\"ev\"} 0"));
    let backends = children(gateway.pid());
    assert_eq!(backends.len(), 1, "the gateway runs one backend: {backends:?}");
    assert!(Command::new("kill").args(["-KILL", &backends[0].to_string()]).status().unwrap().success());
    let deadline = Instant::now() + PATIENCE;
    let mut errors = Vec::new();
    while !errors.last().is_some_and(|error: &String| error.contains("circuit is open")) {
        assert!(Instant::now() < deadline, "the circuit did not open: {errors:#?}");
        match client.call_tool("ev__echo", json!({"message": "anyone?"})).await {
            Err(error) => errors.push(error.to_string()),
            Ok(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
    assert!(errors[0].contains("\"ev\""), "the first refusal names the backend: {}", errors[0]);
    let open = errors.last().unwrap();
    assert!(open.contains("failed 3 calls in a row") && open.contains("refused for"), "{open}");
    assert!(scrape(&metrics).await.contains("mcp_gateway_backend_circuit_open{server=\"ev\"} 1"));
    let back = loop {
        assert!(Instant::now() < deadline, "the backend did not come back");
        if let Ok(echoed) = client.call_tool("ev__echo", json!({"message": "back"})).await {
            break echoed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(text(&back), "back", "the circuit closed when the backend came back");
    assert_eq!(readiness(&metrics).await, 200, "ready again");
    assert!(scrape(&metrics).await.contains("mcp_gateway_backend_circuit_open{server=\"ev\"} 0"));
}

/// Waits for the gateway's stderr line that holds `wanted`; returns it without its colours.
fn logged(gateway: &crate::support::http::HttpServer, wanted: &str) -> String {
    let line = tokio::task::block_in_place(|| gateway.log_line(|line| line.contains(wanted)));
    let mut plain = String::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find('\u{1b}') {
        plain.push_str(&rest[..start]);
        rest = rest[start..].split_once('m').map_or("", |(_, after)| after);
    }
    plain + rest
}

/// `rateLimits`: a budget per caller, refused past it naming the rule and when to try again.
/// Then the config file is rewritten while a long call runs: a new policy applies at once
/// (a refusal names it), a changed backend is started again only once the call has completed,
/// and a backend added is served; a file that does not read is refused, said why, and the
/// running configuration kept. The audit holds each refusal, with why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_refuse_and_a_reload_changes_the_rules_while_a_long_call_completes() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let backend = json!({"command": "${BIN}", "args": ["serve", "everything"]});
    let limits =
        json!([{"name": "adds", "tools": ["ev__add"], "calls": 2, "perMs": 600_000, "by": ["principal"]}]);
    let first = json!({"mcpServers": {"ev": backend}, "rateLimits": limits});
    let (gateway, config_dir) = gateway_with(&first.to_string(), &["--audit", audit.to_str().unwrap()]);
    let path = config_dir.path().join("gateway.json");
    let client = connect(&gateway, options(EraMode::Auto)).await;

    for _ in 0..2 {
        assert!(text(&client.call_tool("ev__add", json!({"a": 1, "b": 2})).await.unwrap()).contains('3'));
    }
    let over = client.call_tool("ev__add", json!({"a": 1, "b": 2})).await.unwrap_err().to_string();
    assert!(over.contains("rule \"adds\" allows 2 requests per 600s for each caller"), "{over}");
    assert!(over.contains("retry in"), "{over}");

    let long = {
        let client = connect(&gateway, options(EraMode::Auto)).await;
        tokio::spawn(async move {
            client.call_tool("ev__long_running_operation", json!({"steps": 60, "step_ms": 100})).await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut changed = backend.clone();
    changed["timeoutMs"] = json!(50_000);
    let second = json!({
        "mcpServers": {"ev": changed, "more": {"command": "${BIN}", "args": ["serve", "everything"]}},
        "policies": [{"name": "no-echo", "allow": {"tools": ["*"]}, "deny": {"tools": ["ev__echo"]}}]
    });
    let bin = env!("CARGO_BIN_EXE_modelctx");
    std::fs::write(&path, second.to_string().replace("${BIN}", bin)).unwrap();
    let reloaded = logged(&gateway, "reloaded");
    assert!(reloaded.contains("changed=[\"ev\"]") && reloaded.contains("added=[\"more\"]"), "{reloaded}");
    assert!(!long.is_finished(), "the reload did not wait for the long call");
    let denied = client.call_tool("ev__echo", json!({"message": "hi"})).await.unwrap_err().to_string();
    assert!(denied.contains("denied to this caller by policy \"no-echo\""), "{denied}");
    let finished = long.await.unwrap().expect("the long call completes across the reload");
    assert!(!text(&finished).is_empty());
    assert_eq!(text(&client.call_tool("more__echo", json!({"message": "new"})).await.unwrap()), "new");
    assert!(
        text(&client.call_tool("ev__add", json!({"a": 1, "b": 2})).await.unwrap()).contains('3'),
        "no limits now"
    );

    std::fs::write(&path, "{ not json").unwrap();
    let refused = logged(&gateway, "was not applied");
    assert!(refused.contains("the running configuration is kept"), "{refused}");
    let still = client.call_tool("ev__echo", json!({"message": "hi"})).await.unwrap_err().to_string();
    assert!(still.contains("\"no-echo\""), "the last good policy holds: {still}");

    let written =
        audit_until(&audit, |written| written.matches("\"outcome\":\"refused\"").count() >= 3).await;
    let lines = audit_lines(&written);
    let refusals: Vec<&Value> = lines.iter().filter(|line| line["outcome"] == "refused").collect();
    assert_eq!(refusals.len(), 3, "the rate limit's and the policy's refusals: {written}");
    assert_eq!((refusals[0]["server"].as_str(), refusals[0]["tool"].as_str()), (Some("ev"), Some("add")));
    assert!(refusals[0]["detail"].as_str().unwrap().contains("\"adds\""), "{written}");
    assert!(refusals[1]["detail"].as_str().unwrap().contains("\"no-echo\""), "{written}");
}

/// `virtualServers`: `/mcp/NAME` serves only its selection — of tools and prompts of two
/// backends — to clients of both eras (a tool it does not expose is unknown there), `/mcp`
/// still serves everything, and a name that is not configured is not found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_server_serves_its_selection_of_several_backends() {
    let everything = json!({"command": "${BIN}", "args": ["serve", "everything"]});
    let config = json!({
        "mcpServers": {"a": everything, "b": everything},
        "virtualServers": {"sums": {"tools": ["a__add", "b__add"], "prompts": ["b__*"]}}
    });
    let (gateway, _config_dir) = gateway_with(&config.to_string(), &[]);
    let line = gateway.log.iter().find(|line| line.contains("/mcp/sums"));
    assert!(line.is_none(), "printed after the listening line, not before");
    let url = format!("{}/sums", gateway.url());
    for mode in [EraMode::Modern, EraMode::Legacy] {
        let client =
            modelctx::client::Client::connect_http(&url, Default::default(), options(mode)).await.unwrap();
        let mut tools: Vec<String> =
            client.list_tools().await.unwrap().into_iter().map(|tool| tool.name).collect();
        tools.sort();
        assert_eq!(tools, ["a__add", "b__add"], "{mode:?}");
        let prompts = client.list_prompts().await.unwrap();
        assert!(
            !prompts.is_empty() && prompts.iter().all(|prompt| prompt.name.starts_with("b__")),
            "{mode:?}"
        );
        assert!(text(&client.call_tool("b__add", json!({"a": 40, "b": 2})).await.unwrap()).contains("42"));
        let hidden = client.call_tool("a__echo", json!({"message": "hi"})).await.unwrap_err().to_string();
        assert!(hidden.contains("a__echo"), "{mode:?}: {hidden}");
    }
    let whole = connect(&gateway, options(EraMode::Auto)).await;
    assert!(whole.list_tools().await.unwrap().iter().any(|tool| tool.name == "a__echo"));
    let missing = reqwest::Client::new()
        .post(format!("{}/nothing", gateway.url()))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}
