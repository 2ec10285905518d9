//! `modelctx bench`: a load generator for any MCP server, built on modelctx's client. It keeps
//! C requests in flight over stdio (spawning the server) or Streamable HTTP (C keep-alive
//! connections), checks every answer, and reports throughput, latency percentiles, the
//! server's CPU time per request, its peak memory and its cold start.

mod procfs;
mod raw;
mod report;
mod workload;

pub(crate) use report::Report;
pub(crate) use workload::{Workload, WorkloadKind};

use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use hdrhistogram::Histogram;
use modelctx::client::{Client, ClientHandlers};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::inspect::Target;
use crate::inspect::exit::Failure;
use crate::inspect::output::OutputArgs;

/// How long an HTTP server may take to say where it listens.
const LISTEN_WAIT: Duration = Duration::from_secs(30);

/// How long a started HTTP server has to exit after SIGTERM before it is killed.
const STOP_WAIT: Duration = Duration::from_secs(30);

/// Arguments of `modelctx bench`.
///
/// Examples:
///   modelctx bench -c 32 -n 50000 -- modelctx serve bench
///   modelctx bench --era legacy -c 32 --http -- modelctx serve bench --http 127.0.0.1:0
///   modelctx bench --workload list -n 2000 -- modelctx serve bench --extra-tools 1000
///   modelctx bench --url http://127.0.0.1:8080/mcp --server-pid 4242 -c 8
#[derive(Args)]
pub struct BenchArgs {
    /// What each request is.
    #[arg(long, value_enum, default_value_t = WorkloadKind::Echo)]
    workload: WorkloadKind,
    /// Bytes of the `echo` message.
    #[arg(long, value_name = "BYTES", default_value_t = 16)]
    payload: usize,
    /// Requests in flight at once.
    #[arg(short = 'c', long, value_name = "C", default_value_t = 1)]
    concurrency: usize,
    /// Requests to measure, after the warm-up.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10_000)]
    requests: u64,
    /// The longest the measured window may last, in seconds (it stops early then).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    max_seconds: f64,
    /// Requests sent before measuring.
    #[arg(long, value_name = "N", default_value_t = 500)]
    warmup: u64,
    /// The command after -- is an HTTP server: start it, read `listening on URL` from its
    /// stderr and drive that URL.
    #[arg(long, requires = "command")]
    http: bool,
    /// Drive the spawned stdio server with a hand-written loop instead of modelctx's client
    /// (2026-07-28): the yardstick for what the client costs.
    #[arg(long, requires = "command", conflicts_with_all = ["http", "url"])]
    raw: bool,
    /// The server's process id when --url names a server started elsewhere (for its CPU
    /// time and memory).
    #[arg(long, value_name = "PID")]
    server_pid: Option<u32>,
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    output: OutputArgs,
}

/// A server started by the benchmark: the client, its process id, and how long it took to
/// answer first.
struct Connected {
    client: Client,
    pid: Option<u32>,
    cold_start: Duration,
    /// An HTTP server process: stopped with SIGTERM at the end, killed if dropped early.
    http_server: Option<tokio::process::Child>,
}

/// Starts the HTTP server command and waits for its `listening on URL` line.
async fn start_http_server(command: &[String]) -> Result<(tokio::process::Child, String), Failure> {
    let (program, args) =
        command.split_first().ok_or_else(|| Failure::Usage("--http needs a command after --".into()))?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Failure::Unreachable(format!("{program} could not be started: {e}")))?;
    let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
    let url = tokio::time::timeout(LISTEN_WAIT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.split("listening on ").nth(1) {
                return Some(url.split_whitespace().next().unwrap_or_default().to_owned());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| {
        Failure::Unreachable(format!("{program} printed no `listening on URL` line within 30 s"))
    })?;
    // Keep its stderr flowing so it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((child, url))
}

async fn connect(args: &BenchArgs) -> Result<Connected, Failure> {
    let started = Instant::now();
    if args.http {
        let (server, url) = start_http_server(&args.target.command).await?;
        let target = Target { url: Some(url), command: Vec::new(), ..args.target.clone() };
        let client = target.connect(ClientHandlers::default()).await?;
        let pid = server.id();
        return Ok(Connected { client, pid, cold_start: started.elapsed(), http_server: Some(server) });
    }
    let client = args.target.connect(ClientHandlers::default()).await?;
    let pid = client.server_pid().or(args.server_pid);
    let cold_start = started.elapsed();
    Ok(Connected { client, pid, cold_start, http_server: None })
}

/// The latencies of the requests answered since someone last took them: what a live chart
/// of a run reads while it goes on (the web inspector's).
pub(crate) type Live = std::sync::Mutex<Histogram<u64>>;

/// A histogram of latencies in microseconds, 3 significant figures.
pub(crate) fn histogram() -> Histogram<u64> {
    Histogram::<u64>::new(3).expect("3 significant figures is valid")
}

/// What one measured run sends.
pub(crate) struct Run {
    /// The requests.
    pub workload: Workload,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests sent before measuring.
    pub warmup: u64,
    /// Requests measured.
    pub requests: u64,
    /// The longest the measured window may last (positive).
    pub max_seconds: f64,
}

/// Warms up, then measures `run` over `client`: the report (without a cold start), the
/// server's CPU time and peak memory read from `/proc/PID` when `pid` is known. Each latency
/// is also recorded into `live` as it comes, when given.
pub(crate) async fn measure(
    client: &Client,
    run: &Run,
    pid: Option<u32>,
    live: Option<&Live>,
) -> Result<Report, Failure> {
    let far = Instant::now() + Duration::from_secs(3600);
    load(client, &run.workload, run.concurrency, run.warmup, far, None).await?;
    let cpu_before = pid.and_then(procfs::cpu_time);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(run.max_seconds);
    let latencies = load(client, &run.workload, run.concurrency, run.requests, deadline, live).await?;
    let window = started.elapsed();
    let cpu_after = pid.and_then(procfs::cpu_time);
    let server_cpu = cpu_before.zip(cpu_after).map(|(before, after)| after.saturating_sub(before));
    Ok(Report::new(
        run.workload.describe(),
        run.concurrency,
        client.server().version.to_string(),
        &latencies,
        window,
        server_cpu,
        pid.and_then(procfs::peak_rss),
        None,
    ))
}

/// Sends `count` requests with `concurrency` in flight (stopping at `deadline`); the
/// latency of each (recorded into `live` too, when given), or the first failure.
async fn load(
    client: &Client,
    workload: &Workload,
    concurrency: usize,
    count: u64,
    deadline: Instant,
    live: Option<&Live>,
) -> Result<Histogram<u64>, Failure> {
    let next = Arc::new(AtomicU64::new(0));
    let workers = (0..concurrency.max(1)).map(|_| {
        let next = Arc::clone(&next);
        async move {
            let mut latencies = histogram();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= count || Instant::now() >= deadline {
                    return Ok::<_, Failure>(latencies);
                }
                let (method, params) = workload.request(n);
                let started = Instant::now();
                let result = client.request(method, params).await?;
                let micros = started.elapsed().as_micros().max(1);
                workload.check(n, &result).map_err(Failure::Refused)?;
                let micros = u64::try_from(micros).unwrap_or(u64::MAX);
                latencies.record(micros).ok();
                if let Some(live) = live {
                    live.lock().unwrap_or_else(std::sync::PoisonError::into_inner).record(micros).ok();
                }
            }
        }
    });
    let mut all = histogram();
    for latencies in futures::future::join_all(workers).await {
        all.add(latencies?).ok();
    }
    Ok(all)
}

async fn bench(args: &BenchArgs) -> Result<Report, Failure> {
    if !(args.max_seconds.is_finite() && args.max_seconds > 0.0) {
        return Err(Failure::Usage(format!("--max-seconds {} is not a positive number", args.max_seconds)));
    }
    let workload = Workload::new(args.workload, args.payload);
    if args.raw {
        let run =
            raw::run(&args.target.command, &workload, args.concurrency, args.warmup, args.requests).await?;
        return Ok(Report::new(
            format!("{} (raw loop)", workload.describe()),
            args.concurrency,
            "2026-07-28".into(),
            &run.latencies,
            run.window,
            run.server_cpu,
            run.peak_rss,
            None,
        ));
    }
    let run = Run {
        workload,
        concurrency: args.concurrency,
        warmup: args.warmup,
        requests: args.requests,
        max_seconds: args.max_seconds,
    };
    let connected = connect(args).await?;
    let mut report = measure(&connected.client, &run, connected.pid, None).await?;
    report.cold_start_ms = args.target.url.is_none().then_some(connected.cold_start.as_secs_f64() * 1000.0);
    connected.client.close().await;
    if let Some(server) = connected.http_server {
        stop(server).await;
    }
    Ok(report)
}

/// Stops a started HTTP server with SIGTERM, so that it (or a profiler it runs under) shuts
/// down cleanly; SIGKILL if it is still there after [`STOP_WAIT`].
async fn stop(mut server: tokio::process::Child) {
    let pid = server.id().and_then(|pid| i32::try_from(pid).ok()).and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    if tokio::time::timeout(STOP_WAIT, server.wait()).await.is_err() {
        let _ = server.kill().await;
    }
}

/// Runs `modelctx bench`.
pub fn run(args: &BenchArgs) -> ExitCode {
    let _logging = crate::logging::init(tracing::Level::WARN);
    // One thread, as the raw loop and any single-connection client: the load generator then
    // takes one core, not a share of the server's.
    let outcome = crate::runtime::block_on_threads(Some(1), bench(args)).and_then(|outcome| outcome);
    match outcome {
        Ok(report) => {
            report.print(args.output.json);
            ExitCode::SUCCESS
        }
        Err(failure) => failure.exit(),
    }
}
