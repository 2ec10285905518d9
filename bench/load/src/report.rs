//! The outcome of a run (the fields and names of `modelctx bench`'s report), and what the kernel
//! knows of the server process: CPU time (`/proc/PID/stat`, all threads, user + system) and
//! peak resident memory (`VmHWM` in `/proc/PID/status`). Linux only; elsewhere both are unknown.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// What one run measured.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// What was sent: `tools/call echo (16 bytes)`, `tools/list`, ….
    pub request: String,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// The protocol version the connection settled on.
    pub protocol_version: String,
    /// Requests answered correctly in the measured window.
    pub requests: u64,
    /// The measured window, in seconds.
    pub seconds: f64,
    /// Requests per second.
    pub throughput: f64,
    /// Median latency, in microseconds.
    pub p50_us: u64,
    /// 99th percentile.
    pub p99_us: u64,
    /// 99.9th percentile.
    pub p999_us: u64,
    /// The server's CPU time per request (user + system, all threads), in microseconds.
    pub server_cpu_us_per_request: Option<f64>,
    /// The server's peak resident memory, in bytes.
    pub server_peak_rss_bytes: Option<u64>,
    /// From spawning the server to its first answer, in milliseconds.
    pub cold_start_ms: Option<f64>,
}

/// The numbers of a measured window, before they become a report.
pub struct Measured {
    /// The latency of every measured request, in microseconds.
    pub latencies: Histogram<u64>,
    /// The window.
    pub window: Duration,
    /// The server's CPU time in the window.
    pub server_cpu: Option<Duration>,
    /// The server's peak resident memory at the end of the window.
    pub peak_rss: Option<u64>,
}

impl Report {
    /// Fills in the numbers.
    pub fn new(
        request: String,
        concurrency: usize,
        protocol_version: String,
        measured: &Measured,
        cold_start: Option<Duration>,
    ) -> Self {
        let latencies = &measured.latencies;
        let requests = latencies.len();
        let seconds = measured.window.as_secs_f64();
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
            server_cpu_us_per_request: measured
                .server_cpu
                .filter(|_| requests > 0)
                .map(|cpu| cpu.as_secs_f64() * 1e6 / requests as f64),
            server_peak_rss_bytes: measured.peak_rss,
            cold_start_ms: cold_start.map(|d| d.as_secs_f64() * 1000.0),
        }
    }

    /// Prints the report: pretty JSON, or a few aligned lines.
    pub fn print(&self, json: bool) {
        if json {
            println!("{}", serde_json::to_string_pretty(self).expect("a report serialises"));
            return;
        }
        let unknown = || "unknown".to_owned();
        println!("{}, {} in flight, {}", self.request, self.concurrency, self.protocol_version);
        println!("  requests      {} in {:.2} s", self.requests, self.seconds);
        println!("  throughput    {:.0} requests/s", self.throughput);
        println!("  latency       p50 {} µs, p99 {} µs, p99.9 {} µs", self.p50_us, self.p99_us, self.p999_us);
        let cpu = self.server_cpu_us_per_request.map_or_else(unknown, |us| format!("{us:.1} µs"));
        println!("  server CPU    {cpu} per request");
        let rss =
            self.server_peak_rss_bytes.map_or_else(unknown, |b| format!("{:.1} MiB", b as f64 / 1048576.0));
        println!("  server peak   {rss} resident");
        if let Some(ms) = self.cold_start_ms {
            println!("  cold start    {ms:.1} ms (spawn to first answer)");
        }
    }
}

/// A latency histogram (1 µs to 1 hour, 3 significant figures).
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("the bounds are valid")
}

/// Records one latency.
pub fn record(latencies: &mut Histogram<u64>, latency: Duration) {
    let micros = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX).max(1);
    latencies.saturating_record(micros);
}

/// The CPU time `pid` has used so far, user and system, summed over its threads.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // After the name, the state is field 3; utime and stime are fields 14 and 15.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    let ticks = rustix::param::clock_ticks_per_second();
    Some(Duration::from_secs_f64((utime + stime) as f64 / ticks as f64))
}

/// The most memory `pid` has had resident at once (`VmHWM`), in bytes.
pub fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_used_cpu_and_memory() {
        let pid = std::process::id();
        let spent: u64 = (0..2_000_000u64).map(|n| n.wrapping_mul(n) % 7).sum();
        assert!(spent > 0);
        assert!(cpu_time(pid).is_some());
        assert!(peak_rss(pid).is_some_and(|bytes| bytes > 100 * 1024));
    }
}
