//! The outcome of a load run, and how it is printed.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::inspect::output::{BOLD, out, print_json};

/// What one run measured.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// What was sent: `tools/call echo`, `tools/list`, ….
    pub request: String,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// The protocol version the connection settled on.
    pub protocol_version: String,
    /// Requests answered correctly in the measured window (a wrong or failed answer ends the
    /// run with an error instead of a report).
    pub requests: u64,
    /// The measured window.
    pub seconds: f64,
    /// Requests per second.
    pub throughput: f64,
    /// Latency percentiles, in microseconds.
    pub p50_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p999_us: u64,
    /// The server's CPU time per request (user + system, all threads), in microseconds.
    pub server_cpu_us_per_request: Option<f64>,
    /// The server's peak resident memory, in bytes.
    pub server_peak_rss_bytes: Option<u64>,
    /// From spawning the server to its first answer (stdio), in milliseconds.
    pub cold_start_ms: Option<f64>,
}

impl Report {
    /// Fills in the numbers from the latencies of the measured window.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        request: String,
        concurrency: usize,
        protocol_version: String,
        latencies: &Histogram<u64>,
        window: Duration,
        server_cpu: Option<Duration>,
        server_peak_rss_bytes: Option<u64>,
        cold_start: Option<Duration>,
    ) -> Self {
        let requests = latencies.len();
        let seconds = window.as_secs_f64();
        Self {
            request,
            concurrency,
            protocol_version,
            requests,
            seconds,
            throughput: if seconds > 0.0 { requests as f64 / seconds } else { 0.0 },
            p50_us: latencies.value_at_quantile(0.50),
            p99_us: latencies.value_at_quantile(0.99),
            p999_us: latencies.value_at_quantile(0.999),
            server_cpu_us_per_request: server_cpu
                .filter(|_| requests > 0)
                .map(|cpu| cpu.as_secs_f64() * 1e6 / requests as f64),
            server_peak_rss_bytes,
            cold_start_ms: cold_start.map(|d| d.as_secs_f64() * 1000.0),
        }
    }

    /// Prints the report: JSON, or a few aligned lines.
    pub fn print(&self, json: bool) {
        if json {
            print_json(self);
            return;
        }
        let unknown = || "unknown".to_owned();
        out!("{BOLD}{}{BOLD:#}, {} in flight, {}", self.request, self.concurrency, self.protocol_version);
        out!("  requests      {} in {:.2} s", self.requests, self.seconds);
        out!("  throughput    {:.0} requests/s", self.throughput);
        out!("  latency       p50 {} µs, p99 {} µs, p99.9 {} µs", self.p50_us, self.p99_us, self.p999_us);
        let cpu = self.server_cpu_us_per_request.map_or_else(unknown, |us| format!("{us:.1} µs"));
        out!("  server CPU    {cpu} per request");
        let rss =
            self.server_peak_rss_bytes.map_or_else(unknown, |b| format!("{:.1} MiB", b as f64 / 1048576.0));
        out!("  server peak   {rss} resident");
        if let Some(ms) = self.cold_start_ms {
            out!("  cold start    {ms:.1} ms (spawn to first answer)");
        }
    }
}
