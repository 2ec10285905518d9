//! `modelctx bench` against `modelctx serve bench`, over stdio and over HTTP in both eras:
//! every request is answered and checked, and the report carries the server's numbers.
//! (Bounded: a few hundred requests each; no timing is asserted.)

use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_modelctx");

fn bench(args: &[&str]) -> Value {
    let output = Command::new(BIN)
        .arg("bench")
        .args(["--warmup", "20", "--max-seconds", "20", "--json"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("modelctx bench runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn bench_loads_a_stdio_server_and_reports_its_cpu_memory_and_cold_start() {
    let report = bench(&["-n", "300", "-c", "8", "--", BIN, "serve", "bench"]);
    assert_eq!(report["requests"], 300, "{report}");
    assert_eq!(report["protocolVersion"], "2026-07-28");
    assert!(report["throughput"].as_f64().unwrap() > 0.0);
    assert!(report["p50Us"].as_u64().unwrap() <= report["p999Us"].as_u64().unwrap());
    assert!(report["serverCpuUsPerRequest"].is_number(), "{report}");
    assert!(report["serverPeakRssBytes"].as_u64().unwrap() > 1 << 20, "{report}");
    assert!(report["coldStartMs"].as_f64().unwrap() > 0.0);
}

/// 300 requests in `era` over HTTP to a `serve bench` the bench starts on a loopback port,
/// with `client` (the in-flight count, workload, transport flags) added to the bench's own
/// arguments.
fn bench_http(era: &str, client: &[&str]) -> Value {
    let mut args = vec!["-n", "300", "--era", era, "--http"];
    args.extend_from_slice(client);
    args.extend_from_slice(&["--", BIN, "serve", "bench", "--http", "127.0.0.1:0"]);
    bench(&args)
}

#[test]
fn bench_loads_an_http_server_it_starts_in_either_era() {
    for (era, version) in [("modern", "2026-07-28"), ("legacy", "2025-11-25")] {
        let report = bench_http(era, &["-c", "4", "--workload", "add"]);
        assert_eq!(report["requests"], 300, "{era}: {report}");
        assert_eq!(report["protocolVersion"], version);
        assert!(report["serverCpuUsPerRequest"].is_number(), "{report}");
    }
}

/// `--h2c`: the client speaks HTTP/2 with prior knowledge (no fallback to HTTP/1.1), and the
/// server answers it on its one port, many requests multiplexed on one connection.
#[test]
fn bench_speaks_h2c_to_the_server_in_either_era() {
    for era in ["modern", "legacy"] {
        let report = bench_http(era, &["-c", "8", "--h2c"]);
        assert_eq!(report["requests"], 300, "{era}: {report}");
    }
}

#[test]
fn bench_lists_a_thousand_tools_on_one_page() {
    let report =
        bench(&["--workload", "list", "-n", "5", "--", BIN, "serve", "bench", "--extra-tools", "1000"]);
    assert_eq!(report["request"], "tools/list");
    assert!(report["requests"].as_u64().unwrap() >= 5, "{report}");
}

#[test]
fn the_raw_loop_is_the_clients_yardstick() {
    let report = bench(&["--raw", "-n", "300", "-c", "8", "--", BIN, "serve", "bench"]);
    assert_eq!(report["request"], "tools/call echo (16 bytes) (raw loop)");
    assert_eq!(report["requests"], 300, "{report}");
    assert!(report["serverCpuUsPerRequest"].is_number(), "{report}");
}
