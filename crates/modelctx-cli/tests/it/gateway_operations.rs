//! What an operator runs beside `modelctx gateway`: a real Prometheus (Debian's `prometheus`,
//! which scripts/packages.sh installs; `MODELCTX_PROMETHEUS` names another) scraping
//! `--metrics`, the health and readiness probes, and the `--audit` file; a killed backend
//! refused plainly until it is back; arguments checked against the backend's schema before
//! they are forwarded.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use modelctx::client::EraMode;
use serde_json::{Value, json};

use crate::gateway::{connect, gateway_with, options, text};

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

    let written = std::fs::read_to_string(&audit).unwrap();
    let lines: Vec<Value> = written.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
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

/// A backend killed (SIGKILL): calls to it are refused at once with an error naming it and
/// saying why — none waits on a dead process — and the gateway restarts it, `/readyz` says
/// ready again and calls go through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_backend_is_refused_plainly_until_it_is_back() {
    let config = r#"{"mcpServers": {"ev": {"command": "${BIN}", "args": ["serve", "everything"]}}}"#;
    let (gateway, _config_dir) = gateway_with(config, &["--metrics", "127.0.0.1:0"]);
    let metrics = metrics_address(&gateway);
    let client = connect(&gateway, options(EraMode::Auto)).await;
    assert_eq!(text(&client.call_tool("ev__echo", json!({"message": "here"})).await.unwrap()), "here");
    let backends = children(gateway.pid());
    assert_eq!(backends.len(), 1, "the gateway runs one backend: {backends:?}");
    assert!(Command::new("kill").args(["-KILL", &backends[0].to_string()]).status().unwrap().success());
    let deadline = Instant::now() + PATIENCE;
    let error = loop {
        assert!(Instant::now() < deadline, "no call was refused after the backend was killed");
        match client.call_tool("ev__echo", json!({"message": "anyone?"})).await {
            Err(error) => break error.to_string(),
            Ok(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    };
    assert!(error.contains("\"ev\""), "the refusal names the backend: {error}");
    let back = loop {
        assert!(Instant::now() < deadline, "the backend did not come back");
        if let Ok(echoed) = client.call_tool("ev__echo", json!({"message": "back"})).await {
            break echoed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(text(&back), "back");
    assert_eq!(readiness(&metrics).await, 200, "ready again");
}
