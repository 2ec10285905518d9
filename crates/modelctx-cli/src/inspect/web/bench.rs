//! `modelctx bench` from the page: the same measured run (`bench::measure`) against the server
//! the page shows, over a connection of its own — a stdio server is spawned once more, an HTTP
//! one reached again — so that neither the page's session nor its message log carries the
//! load. Every [`TICK`] the page gets the throughput and percentiles of the requests answered
//! since the last one, for its live chart; at the end the report `modelctx bench --json`
//! prints. One run per server at a time, within [`MAX_CONCURRENCY`], [`MAX_REQUESTS`] and
//! [`MAX_SECONDS`].

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use modelctx::client::ClientHandlers;
use serde::Deserialize;
use serde_json::json;

use super::session::Session;
use crate::bench::{Live, Run, Workload, WorkloadKind, histogram, measure};

/// How often the page hears how the run goes.
const TICK: Duration = Duration::from_millis(250);
/// Requests in flight at once, at most.
pub const MAX_CONCURRENCY: usize = 256;
/// Requests measured, at most.
pub const MAX_REQUESTS: u64 = 1_000_000;
/// The longest measured window, in seconds.
pub const MAX_SECONDS: f64 = 60.0;
/// Requests sent before measuring: a tenth of the run, at most this many.
const MAX_WARMUP: u64 = 500;

/// What the page's benchmark form sends.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BenchForm {
    workload: WorkloadKind,
    #[serde(default = "sixteen")]
    payload: usize,
    concurrency: usize,
    requests: u64,
    max_seconds: f64,
}

fn sixteen() -> usize {
    16
}

impl BenchForm {
    /// The run the form asks for, or why it is out of bounds.
    pub fn run(self) -> Result<Run, String> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Err(format!("requests in flight: 1 to {MAX_CONCURRENCY}"));
        }
        if !(1..=MAX_REQUESTS).contains(&self.requests) {
            return Err(format!("requests: 1 to {MAX_REQUESTS}"));
        }
        if !(self.max_seconds > 0.0 && self.max_seconds <= MAX_SECONDS) {
            return Err(format!("seconds: more than 0, at most {MAX_SECONDS}"));
        }
        if self.payload > 1024 * 1024 {
            return Err("an echo message of 1 MiB at most".into());
        }
        Ok(Run {
            workload: Workload::new(self.workload, self.payload),
            concurrency: self.concurrency,
            warmup: (self.requests / 10).min(MAX_WARMUP),
            requests: self.requests,
            max_seconds: self.max_seconds,
        })
    }
}

/// Starts `run` against `session`'s server; `false` when a run is going on already.
pub fn start(session: &Arc<Session>, run: Run) -> bool {
    if session.benchmarking.swap(true, Ordering::AcqRel) {
        return false;
    }
    let session = Arc::clone(session);
    tokio::spawn(async move {
        let outcome = measured(&session, &run).await;
        session.benchmarking.store(false, Ordering::Release);
        session.emit(match outcome {
            Ok(report) => json!({"kind": "bench-done", "report": report}),
            Err(error) => json!({"kind": "bench-failed", "error": error}),
        });
    });
    true
}

/// Connects again and measures, telling the page every [`TICK`].
async fn measured(session: &Arc<Session>, run: &Run) -> Result<crate::bench::Report, String> {
    let client = session.reach.connect(ClientHandlers::default()).await.map_err(|e| e.to_string())?;
    let live: Arc<Live> = Arc::new(Live::new(histogram()));
    let ticking = {
        let (live, session) = (Arc::clone(&live), Arc::clone(session));
        tokio::spawn(async move {
            let started = Instant::now();
            let mut last = started;
            loop {
                tokio::time::sleep(TICK).await;
                let window = std::mem::replace(
                    &mut *live.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
                    histogram(),
                );
                let seconds = last.elapsed().as_secs_f64();
                last = Instant::now();
                let ms = |quantile| window.value_at_quantile(quantile) as f64 / 1000.0;
                session.emit(json!({"kind": "bench", "seconds": started.elapsed().as_secs_f64(),
                                    "requests": window.len(), "throughput": window.len() as f64 / seconds,
                                    "p50": ms(0.5), "p99": ms(0.99)}));
            }
        })
    };
    let measured = measure(&client, run, client.server_pid(), Some(&live)).await;
    ticking.abort();
    client.close().await;
    measured.map_err(|failure| failure.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_bounded() {
        let form = |value: serde_json::Value| serde_json::from_value::<BenchForm>(value).unwrap().run();
        let run =
            form(json!({"workload": "echo", "concurrency": 8, "requests": 5000, "maxSeconds": 10})).unwrap();
        assert_eq!((run.warmup, run.requests, run.concurrency), (500, 5000, 8));
        for (wrong, says) in [
            (json!({"workload": "list", "concurrency": 0, "requests": 1, "maxSeconds": 1}), "1 to 256"),
            (json!({"workload": "list", "concurrency": 257, "requests": 1, "maxSeconds": 1}), "1 to 256"),
            (json!({"workload": "list", "concurrency": 1, "requests": 0, "maxSeconds": 1}), "1 to 1000000"),
            (json!({"workload": "list", "concurrency": 1, "requests": 1, "maxSeconds": 61}), "at most 60"),
            (
                json!({"workload": "echo", "payload": 2_000_000, "concurrency": 1, "requests": 1, "maxSeconds": 1}),
                "1 MiB",
            ),
        ] {
            let refused = form(wrong.clone()).err().unwrap_or_default();
            assert!(refused.contains(says), "{wrong}: {refused}");
        }
    }
}
