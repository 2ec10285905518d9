//! Chaos under load. While workers keep a steady mix going through the balancer — quick calls,
//! slow calls, legacy sessions, tasks and `subscriptions/listen` streams — `scripts/cluster.sh`
//! kills an instance, starts it again, and stops and starts Redis, writing each event with its
//! time to `MODELCTX_CHAOS_EVENTS` (`<unix ms> <name>` per line; `end` last). Then:
//!
//! - every request got an answer or a clear error (an HTTP status other than 500, a JSON-RPC
//!   error with a message) within [`DEADLINE`]; a connection cut only when its instance was
//!   killed;
//! - no acknowledged session or task was lost: each session still answers, each task reads
//!   as completed, or failed saying why;
//! - the cluster serves again within [`RECOVERY`] of the instance's death and of Redis's return,
//!   and every listener, old or new, hears a change made after it all;
//! - what the clients saw, phase by phase, is printed (docs/security.md keeps one run).
//!
//! `MODELCTX_CHAOS_SCALE` multiplies the workers (default 4: 384 slow calls, 128 quick calls,
//! 64 legacy sessions, 32 task runners and 64 listeners, some 670 requests in flight).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{modern, modern_with, url, with_json};

/// Within this a request gets its answer or a clear error.
const DEADLINE: Duration = Duration::from_secs(10);
/// Within this of an instance's death, and of Redis's return, the cluster serves again.
const RECOVERY: Duration = Duration::from_secs(10);
/// A connection may be cut this long after its instance was killed (the balancer's
/// health check takes the instance out within about a second).
const CUT_WINDOW: Duration = Duration::from_secs(3);
/// How long the whole run may take before the test gives up waiting for the script's `end`.
const RUN_LIMIT: Duration = Duration::from_secs(180);
/// How long acknowledged tasks have at the end to finish (or to be found failed, their
/// instance gone).
const SETTLE: Duration = Duration::from_secs(60);

/// What one request came to.
#[derive(Clone, Debug)]
enum Outcome {
    /// Its answer.
    Answered,
    /// A clear error: an HTTP status or a JSON-RPC error with a message.
    Refused(String),
    /// The connection or the stream ended with no answer.
    Cut(String),
    /// Nothing within [`DEADLINE`].
    Late,
    /// An answer that is not one: a body that is not JSON-RPC, a wrong result, a session or
    /// task the cluster said it did not know.
    Wrong(String),
}

impl Outcome {
    fn column(&self) -> usize {
        match self {
            Outcome::Answered => 0,
            Outcome::Refused(_) => 1,
            Outcome::Cut(_) => 2,
            Outcome::Late => 3,
            Outcome::Wrong(_) => 4,
        }
    }
}

/// One request, timed in unix milliseconds (the script's clock).
#[derive(Clone, Debug)]
struct Record {
    kind: &'static str,
    started: f64,
    ended: f64,
    outcome: Outcome,
}

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0
}

/// The shared state of a run: every record, what was acknowledged, and the stop signal.
#[derive(Default)]
struct Run {
    records: Mutex<Vec<Record>>,
    sessions: Mutex<Vec<String>>,
    tasks: Mutex<Vec<String>>,
    stopping: AtomicBool,
}

impl Run {
    fn going(&self) -> bool {
        !self.stopping.load(Ordering::Relaxed)
    }

    /// Runs `request` bounded by [`DEADLINE`] and records its outcome as `kind`.
    async fn timed<T>(
        &self,
        kind: &'static str,
        request: impl Future<Output = Result<T, Outcome>>,
    ) -> Result<T, Outcome> {
        let started = now_ms();
        let result = tokio::time::timeout(DEADLINE, request).await.unwrap_or(Err(Outcome::Late));
        let outcome = match &result {
            Ok(_) => Outcome::Answered,
            Err(outcome) => outcome.clone(),
        };
        self.records.lock().unwrap().push(Record { kind, started, ended: now_ms(), outcome });
        result
    }
}

/// The JSON-RPC answer (result or error) in `response`, a JSON body or an event stream.
async fn answer_of(sent: Result<reqwest::Response, reqwest::Error>) -> Result<Value, Outcome> {
    let response = sent.map_err(|e| Outcome::Cut(format!("{e:?}")))?;
    let status = response.status();
    let body = response.text().await.map_err(|e| Outcome::Cut(format!("body: {e:?}")))?;
    if !status.is_success() {
        let said: String = body.chars().take(120).collect();
        return Err(Outcome::Refused(format!("HTTP {}: {}", status.as_u16(), said.trim())));
    }
    let message = if body.trim_start().starts_with('{') {
        serde_json::from_str::<Value>(&body).map_err(|e| Outcome::Wrong(format!("{e}: {body}")))?
    } else {
        let answers = body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|m| m.get("result").is_some() || m.get("error").is_some());
        answers.ok_or_else(|| Outcome::Cut("the stream ended with no answer".into()))?
    };
    if let Some(error) = message.get("error") {
        return match error["message"].as_str() {
            Some(said) if !said.is_empty() => Err(Outcome::Refused(format!("{}: {said}", error["code"]))),
            _ => Err(Outcome::Wrong(format!("an error with no message: {message}"))),
        };
    }
    message
        .get("result")
        .cloned()
        .ok_or_else(|| Outcome::Wrong(format!("neither result nor error: {message}")))
}

/// The text of a tool result's first content block.
fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Calls with no extension, one after another, recorded as `kind`: round `n`'s params and
/// the text its answer must hold come from `call(n)`.
async fn calls(
    run: Arc<Run>,
    http: reqwest::Client,
    kind: &'static str,
    call: impl Fn(u64) -> (Value, String),
) {
    let mut round = 0u64;
    while run.going() {
        round += 1;
        let (params, expected) = call(round);
        let request = modern_with(&http, "tools/call", params, json!({}));
        let _ = run
            .timed(kind, async {
                let result = answer_of(request.send().await).await?;
                if text_of(&result).contains(&expected) {
                    Ok(())
                } else {
                    Err(Outcome::Wrong(result.to_string()))
                }
            })
            .await;
    }
}

/// Quick calls: `echo`, as fast as answered.
async fn quick_calls(run: Arc<Run>, http: reqwest::Client, worker: usize) {
    calls(run, http, "call", |round| {
        let said = format!("w{worker} r{round}");
        (json!({"name": "echo", "arguments": {"message": said}}), said)
    })
    .await;
}

/// Slow calls: `slow_compute` for a second, not as a task, so that many are in flight when
/// an instance dies.
async fn slow_calls(run: Arc<Run>, http: reqwest::Client) {
    calls(run, http, "slow call", |_| {
        let params = json!({"name": "slow_compute", "arguments": {"seconds": 1, "label": "chaos"}});
        (params, "computed chaos".to_owned())
    })
    .await;
}

/// A 2025-11-25 client: one session, opened again only when refused; each acknowledged
/// session is kept for the final check.
async fn legacy_session(run: Arc<Run>, http: reqwest::Client) {
    while run.going() {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "chaos", "version": "1"}}});
        let request =
            with_json(http.post(url()).header("accept", "application/json, text/event-stream"), &init);
        let opened = run
            .timed("legacy initialize", async {
                let response = request.send().await.map_err(|e| Outcome::Cut(format!("{e:?}")))?;
                let session =
                    response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
                answer_of(Ok(response)).await?;
                session.ok_or_else(|| Outcome::Wrong("no Mcp-Session-Id".into()))
            })
            .await;
        let Ok(session) = opened else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        run.sessions.lock().unwrap().push(session.clone());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = legacy_request(&http, &session, &initialized).send().await;
        let mut id = 0u64;
        while run.going() {
            id += 1;
            let said = format!("{session} {id}");
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"message": said}}});
            let request = legacy_request(&http, &session, &call);
            let _ = run
                .timed("legacy call", async {
                    let response = request.send().await.map_err(|e| Outcome::Cut(format!("{e:?}")))?;
                    if response.status() == 404 {
                        return Err(Outcome::Wrong(format!("acknowledged session {session} not found")));
                    }
                    let result = answer_of(Ok(response)).await?;
                    if text_of(&result).contains(&said) {
                        Ok(())
                    } else {
                        Err(Outcome::Wrong(result.to_string()))
                    }
                })
                .await;
        }
    }
}

fn legacy_request(http: &reqwest::Client, session: &str, message: &Value) -> reqwest::RequestBuilder {
    let request = http
        .post(url())
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("accept", "application/json, text/event-stream");
    with_json(request, message)
}

/// Tasks: `slow_compute` for a third of a second as a task, followed with `tasks/get` until
/// it ends; each acknowledged task is kept for the final check.
async fn task_runner(run: Arc<Run>, http: reqwest::Client) {
    while run.going() {
        let call = modern(
            &http,
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.3, "label": "chaos"}}),
        );
        let created = run
            .timed("task create", async {
                let created = answer_of(call.send().await).await?;
                match created["taskId"].as_str() {
                    Some(id) if created["resultType"] == "task" => Ok(id.to_owned()),
                    _ => Err(Outcome::Wrong(format!("not a task: {created}"))),
                }
            })
            .await;
        let Ok(id) = created else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        run.tasks.lock().unwrap().push(id.clone());
        while run.going() {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let get = modern(&http, "tasks/get", json!({"taskId": id}));
            let status = run
                .timed("task get", async {
                    let task = answer_of(get.send().await).await?;
                    task["status"].as_str().map(str::to_owned).ok_or_else(|| Outcome::Wrong(task.to_string()))
                })
                .await;
            if matches!(status.as_deref(), Ok("completed" | "failed" | "cancelled")) {
                break;
            }
        }
    }
}

/// A listener of tool list changes, opened again whenever its stream ends; returns the
/// stream it holds when the run stops.
async fn listener(run: Arc<Run>, http: reqwest::Client) -> Option<reqwest::Response> {
    while run.going() {
        let listen =
            modern(&http, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
        let opened = run
            .timed("listen open", async {
                let response = listen.send().await.map_err(|e| Outcome::Cut(format!("{e:?}")))?;
                if !response.status().is_success() {
                    return answer_of(Ok(response)).await.map(|_| None);
                }
                let mut response = response;
                let mut text = String::new();
                while !text.contains("notifications/subscriptions/acknowledged") {
                    match response.chunk().await {
                        Ok(Some(chunk)) => text.push_str(&String::from_utf8_lossy(&chunk)),
                        Ok(None) => {
                            return Err(Outcome::Cut(format!("ended before its acknowledgement: {text}")));
                        }
                        Err(e) => return Err(Outcome::Cut(format!("{e:?}"))),
                    }
                }
                Ok(Some(response))
            })
            .await;
        let Ok(Some(mut stream)) = opened else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        // Held until the run stops or the stream ends (its instance gone, or told to listen
        // again); an ending is recorded as a cut of a held stream.
        let started = now_ms();
        loop {
            if !run.going() {
                return Some(stream);
            }
            match tokio::time::timeout(Duration::from_millis(200), stream.chunk()).await {
                Err(_) | Ok(Ok(Some(_))) => continue,
                Ok(ended) => {
                    let why = match ended {
                        Ok(_) => "the stream ended".to_owned(),
                        Err(e) => format!("{e:?}"),
                    };
                    let record =
                        Record { kind: "listen held", started, ended: now_ms(), outcome: Outcome::Cut(why) };
                    run.records.lock().unwrap().push(record);
                    break;
                }
            }
        }
    }
    None
}

/// The script's events, `(unix ms, name)`, once it has written `end`.
async fn events_when_ended(path: &str) -> Vec<(f64, String)> {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let events: Vec<(f64, String)> = text
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(at, name)| (at.parse().expect("unix ms"), name.to_owned()))
            .collect();
        if events.iter().any(|(_, name)| name == "end") {
            return events;
        }
        assert!(started.elapsed() < RUN_LIMIT, "the script wrote no `end` within {RUN_LIMIT:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn at(events: &[(f64, String)], name: &str) -> f64 {
    events.iter().find(|(_, n)| n == name).unwrap_or_else(|| panic!("no event `{name}`: {events:?}")).0
}

/// The median and the 99th percentile of `values` (milliseconds).
fn percentiles(mut values: Vec<f64>) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    values.sort_by(f64::total_cmp);
    let pick = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    (pick(0.5), pick(0.99))
}

/// Prints what the clients saw in each phase (from one event to the next), by kind.
fn print_phases(records: &[Record], events: &[(f64, String)], begun: f64) {
    let mut bounds = vec![(begun, "load".to_owned())];
    bounds.extend(events.iter().cloned());
    println!("chaos: phase | kind | answered | refused | cut | late | wrong | p50 ms | p99 ms");
    for (i, (from, name)) in bounds.iter().enumerate() {
        let to = bounds.get(i + 1).map_or(f64::INFINITY, |b| b.0);
        let mut kinds: BTreeMap<&str, ([usize; 5], Vec<f64>)> = BTreeMap::new();
        for record in records.iter().filter(|r| r.started >= *from && r.started < to) {
            let entry = kinds.entry(record.kind).or_default();
            entry.0[record.outcome.column()] += 1;
            if matches!(record.outcome, Outcome::Answered) {
                entry.1.push(record.ended - record.started);
            }
        }
        for (kind, (counts, took)) in kinds {
            let (p50, p99) = percentiles(took);
            let [answered, refused, cut, late, wrong] = counts;
            println!(
                "chaos: {name} (+{:.1} s) | {kind} | {answered} | {refused} | {cut} | {late} | {wrong} | {p50:.0} | {p99:.0}",
                (to.min(now_ms()) - from) / 1000.0
            );
        }
    }
}

/// Prints what the requests not answered were told, most frequent first (digits after an
/// HTTP status folded, so that ids and ports do not split the counts).
fn print_reasons(records: &[Record]) {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for record in records {
        let said = match &record.outcome {
            Outcome::Answered => continue,
            Outcome::Refused(said) => format!("refused: {said}"),
            Outcome::Cut(why) => format!("cut: {why}"),
            Outcome::Late => "late".to_owned(),
            Outcome::Wrong(what) => format!("wrong: {what}"),
        };
        // An HTTP status stays as it is.
        let kept = said.find("HTTP ").map_or(0, |at| at + 8);
        let folded: String = said
            .chars()
            .take(160)
            .enumerate()
            .map(|(i, c)| if i >= kept && c.is_ascii_digit() { '#' } else { c })
            .collect();
        *reasons.entry(format!("{}: {folded}", record.kind)).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = reasons.into_iter().collect();
    ranked.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
    for (reason, count) in ranked.iter().take(12) {
        println!("chaos: {count} × {reason}");
    }
}

/// The time from `event` to the end of the last request that was not answered among those
/// that ended before `until`; zero when every one was.
fn unanswered_for(records: &[Record], event: f64, until: f64) -> f64 {
    records
        .iter()
        .filter(|r| r.ended >= event && r.ended < until && r.kind != "listen held")
        .filter(|r| !matches!(r.outcome, Outcome::Answered))
        .map(|r| r.ended - event)
        .fold(0.0, f64::max)
}

#[tokio::test]
#[ignore = "runs in scripts/cluster.sh, which kills an instance and restarts Redis meanwhile"]
async fn chaos_under_load_loses_nothing_and_recovers() {
    let events_file =
        std::env::var("MODELCTX_CHAOS_EVENTS").expect("MODELCTX_CHAOS_EVENTS: run scripts/cluster.sh");
    let scale: usize = std::env::var("MODELCTX_CHAOS_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let http = reqwest::Client::builder().pool_max_idle_per_host(1024).build().unwrap();
    let run = Arc::new(Run::default());
    let begun = now_ms();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..32 * scale {
        workers.spawn(quick_calls(run.clone(), http.clone(), worker));
    }
    for _ in 0..96 * scale {
        workers.spawn(slow_calls(run.clone(), http.clone()));
    }
    for _ in 0..16 * scale {
        workers.spawn(legacy_session(run.clone(), http.clone()));
    }
    for _ in 0..8 * scale {
        workers.spawn(task_runner(run.clone(), http.clone()));
    }
    let mut listeners = tokio::task::JoinSet::new();
    for _ in 0..16 * scale {
        listeners.spawn(listener(run.clone(), http.clone()));
    }
    println!("chaos: load running ({scale}×)");

    let events = events_when_ended(&events_file).await;
    run.stopping.store(true, Ordering::Relaxed);
    while workers.join_next().await.is_some() {}
    let mut streams = Vec::new();
    while let Some(held) = listeners.join_next().await {
        streams.extend(held.unwrap());
    }
    let records = run.records.lock().unwrap().clone();
    print_phases(&records, &events, begun);
    print_reasons(&records);

    // Every request: an answer or a clear error within its deadline; cuts only at the kill.
    let killed = at(&events, "kill");
    let mut failures: Vec<String> = records
        .iter()
        .filter(|r| match &r.outcome {
            Outcome::Answered => false,
            // A store or an instance away for a while is a 502 or 503 to retry, never a 500.
            Outcome::Refused(said) => said.starts_with("HTTP 500"),
            Outcome::Cut(_) => r.ended < killed || r.ended > killed + CUT_WINDOW.as_millis() as f64,
            Outcome::Late | Outcome::Wrong(_) => true,
        })
        .map(|r| format!("{} at +{:.1} s: {:?}", r.kind, (r.started - begun) / 1000.0, r.outcome))
        .collect();

    // Serving again: the last unanswered request after the kill, and after Redis's return.
    let restarted = at(&events, "instance back");
    let redis_back = at(&events, "redis back");
    let end = at(&events, "end");
    let after_kill = unanswered_for(&records, killed, restarted);
    let after_redis = unanswered_for(&records, redis_back, end);
    let after_restart = unanswered_for(&records, restarted, at(&events, "redis stop"));
    println!(
        "chaos: requests went unanswered for {:.1} s after the kill, {:.1} s after the instance came back, {:.1} s after Redis came back",
        after_kill / 1000.0,
        after_restart / 1000.0,
        after_redis / 1000.0
    );
    for (what, took) in [("the kill", after_kill), ("Redis's return", after_redis)] {
        if took > RECOVERY.as_millis() as f64 {
            failures.push(format!("still refusing {:.1} s after {what}", took / 1000.0));
        }
    }
    if after_restart > 0.0 {
        failures
            .push(format!("an instance coming back made requests fail for {:.1} s", after_restart / 1000.0));
    }

    // Every listener held at the end hears a change made now; so does a new one.
    let trigger = modern(&http, "tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}}));
    answer_of(trigger.send().await).await.expect("a change is made after the chaos");
    let heard = streams.len();
    for (i, mut stream) in streams.into_iter().enumerate() {
        let mut text = String::new();
        let hear = async {
            while !text.contains("notifications/tools/list_changed") {
                match stream.chunk().await {
                    Ok(Some(chunk)) => text.push_str(&String::from_utf8_lossy(&chunk)),
                    _ => return false,
                }
            }
            true
        };
        if !tokio::time::timeout(DEADLINE, hear).await.unwrap_or(false) {
            failures.push(format!("listener {i} did not hear a change made after the chaos"));
        }
    }

    // No acknowledged session or task lost.
    let sessions = run.sessions.lock().unwrap().clone();
    for session in &sessions {
        let ping = json!({"jsonrpc": "2.0", "id": "final", "method": "ping"});
        if let Err(outcome) = answer_of(legacy_request(&http, session, &ping).send().await).await {
            failures.push(format!("session {session} after the chaos: {outcome:?}"));
        }
        let _ = http
            .delete(url())
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await;
    }
    let tasks = run.tasks.lock().unwrap().clone();
    let settle_by = std::time::Instant::now() + SETTLE;
    let mut ended: BTreeMap<String, usize> = BTreeMap::new();
    for id in &tasks {
        loop {
            let got = answer_of(modern(&http, "tasks/get", json!({"taskId": id})).send().await).await;
            let status = got.as_ref().map(|task| task["status"].as_str().unwrap_or_default().to_owned());
            match status.as_deref() {
                Ok("completed" | "cancelled") => {}
                Ok("failed")
                    if got
                        .as_ref()
                        .is_ok_and(|t| t["error"]["message"].as_str().is_some_and(|m| !m.is_empty())) => {}
                Ok("working") if std::time::Instant::now() < settle_by => {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
                _ => failures.push(format!("task {id} after the chaos: {got:?}")),
            }
            *ended.entry(status.unwrap_or_else(|_| "unreadable".into())).or_default() += 1;
            break;
        }
    }
    println!(
        "chaos: {} requests; {} sessions and {} tasks acknowledged (tasks ended: {ended:?}); {heard} listeners held to the end",
        records.len(),
        sessions.len(),
        tasks.len()
    );
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(failures.is_empty(), "{} failures, the first: {shown:#?}", failures.len());
}
