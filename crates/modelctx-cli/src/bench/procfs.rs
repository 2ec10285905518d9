//! What the kernel knows of the server process: CPU time (`/proc/PID/stat`, all threads,
//! user + system) and peak resident memory (`VmHWM` in `/proc/PID/status`). Linux only;
//! elsewhere both read as unknown.

use std::time::Duration;

/// The CPU time `pid` has used so far, user and system, summed over its threads.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name, the state is field 3; utime and stime are fields 14 and 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
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
        assert!(peak_rss(pid).is_some_and(|bytes| bytes > 100 * 1024), "{:?}", peak_rss(pid));
    }
}
