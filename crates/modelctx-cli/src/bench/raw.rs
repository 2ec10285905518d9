//! `modelctx bench --raw`: the yardstick for the client. A hand-written loop with no client
//! library — one task writes JSON lines to the spawned server's stdin and reads answers from its
//! stdout, keeping C requests in flight — against which `modelctx bench` (the same load
//! through modelctx's `Client`) shows what the client costs. stdio and 2026-07-28 only (no
//! handshake to do).

use std::process::Stdio;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use modelctx::protocol::JsonObject;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};

use super::workload::Workload;
use crate::inspect::exit::Failure;

/// The `_meta` every 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "modelctx-bench-raw", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// What a raw run measured.
pub struct RawRun {
    /// The latency of each measured request.
    pub latencies: Histogram<u64>,
    /// The measured window.
    pub window: Duration,
    /// The server's peak resident memory, in bytes.
    pub peak_rss: Option<u64>,
    /// The server's CPU time in the measured window.
    pub server_cpu: Option<Duration>,
}

/// Sends `warmup` then `count` requests with `concurrency` in flight to the server `command`
/// spawned over stdio, checking each answer.
pub async fn run(
    command: &[String],
    workload: &Workload,
    concurrency: usize,
    warmup: u64,
    count: u64,
) -> Result<RawRun, Failure> {
    let (program, args) =
        command.split_first().ok_or_else(|| Failure::Usage("--raw needs a command after --".into()))?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Failure::Unreachable(format!("{program} could not be started: {e}")))?;
    let pid = child.id();
    let mut input = BufWriter::new(child.stdin.take().expect("stdin is piped"));
    let mut output = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    let total = warmup + count;
    let mut sent_at = vec![Instant::now(); usize::try_from(total).unwrap_or(usize::MAX)];
    let mut latencies = Histogram::<u64>::new(3).expect("3 significant figures is valid");
    let (mut sent, mut answered) = (0u64, 0u64);
    let mut cpu_before = None;
    let mut started = Instant::now();
    let broken = |e: std::io::Error| Failure::Unreachable(format!("the server's pipe broke: {e}"));
    while answered < total {
        while sent < total && sent - answered < concurrency.max(1) as u64 {
            let (method, mut params) = workload.request(sent);
            params["_meta"] = meta();
            let line = json!({"jsonrpc": "2.0", "id": sent, "method": method, "params": params});
            let mut bytes = serde_json::to_vec(&line).expect("JSON serialises");
            bytes.push(b'\n');
            input.write_all(&bytes).await.map_err(broken)?;
            sent_at[sent as usize] = Instant::now();
            sent += 1;
        }
        input.flush().await.map_err(broken)?;
        let line = output
            .next_line()
            .await
            .map_err(broken)?
            .ok_or_else(|| Failure::Unreachable("the server closed its stdout".into()))?;
        let answer: Value =
            serde_json::from_str(&line).map_err(|e| Failure::Refused(format!("not JSON: {e}")))?;
        let Some(id) = answer.get("id").and_then(Value::as_u64).filter(|id| *id < sent) else {
            continue; // a notification
        };
        let result: JsonObject = answer.get("result").and_then(Value::as_object).cloned().unwrap_or_default();
        workload.check(id, &result).map_err(Failure::Refused)?;
        if id >= warmup {
            let micros = sent_at[id as usize].elapsed().as_micros().max(1);
            latencies.record(u64::try_from(micros).unwrap_or(u64::MAX)).ok();
        }
        answered += 1;
        if answered == warmup {
            cpu_before = pid.and_then(super::procfs::cpu_time);
            started = Instant::now();
        }
    }
    let window = started.elapsed();
    let cpu_after = pid.and_then(super::procfs::cpu_time);
    let peak_rss = pid.and_then(super::procfs::peak_rss);
    drop(input);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let server_cpu = cpu_before.zip(cpu_after).map(|(before, after)| after.saturating_sub(before));
    Ok(RawRun { latencies, window, peak_rss, server_cpu })
}
