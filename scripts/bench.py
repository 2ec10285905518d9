#!/usr/bin/env python3
"""Runs modelctx's server and the rmcp comparison server under `modelctx bench`, interleaved
(A B A B …), and writes docs/performance.md with the medians, the per-round ratios and the
targets. Called by scripts/bench.sh, which builds both servers first.

    scripts/bench.py --modelctx target/release/modelctx \
        --rmcp bench/rmcp-server/target/release/rmcp-bench-server [--rounds 3] [--out docs/performance.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys


def cases():
    """(name, bench arguments, server arguments, extra server arguments) for every case."""
    matrix = []
    for transport in ("stdio", "http"):
        for era in ("modern", "legacy"):
            for concurrency in (1, 32):
                count = 20000 if concurrency == 32 else 5000
                name = f"{transport} {'2026-07-28' if era == 'modern' else '2025-11-25'} C={concurrency}"
                args = ["--era", era, "-c", str(concurrency), "-n", str(count)]
                matrix.append((name, args, transport, []))
    matrix.append(("stdio tools/list, 1,002 tools", ["--workload", "list", "-n", "1500", "--warmup", "50"], "stdio", ["--extra-tools", "1000"]))
    matrix.append(("stdio echo, 100 KB argument", ["--payload", "102400", "-n", "1000", "--warmup", "100"], "stdio", []))
    return matrix


def server_command(which: str, binaries: dict, transport: str, extra: list) -> list:
    if which == "modelctx":
        command = [binaries["modelctx"], "serve", "bench"]
    else:
        command = [binaries["rmcp"]]
    if transport == "http":
        command += ["--http", "127.0.0.1:0"]
    return command + extra


def run(binaries: dict, which: str, case) -> dict:
    _, args, transport, extra = case
    command = [binaries["modelctx"], "bench", "--json", "--max-seconds", "60", *args]
    if which == "raw":
        # the same load on our server through a hand-written loop instead of the client
        command.append("--raw")
        which = "modelctx"
    if transport == "http":
        command.append("--http")
    command += ["--", *server_command(which, binaries, transport, extra)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"bench failed ({which}, {case[0]}): {' '.join(command)}\n{done.stderr}")
    return json.loads(done.stdout)


METRICS = {
    "throughput": ("throughput", "req/s", "{:,.0f}"),
    "p50": ("p50Us", "µs", "{:,.0f}"),
    "p99": ("p99Us", "µs", "{:,.0f}"),
    "cpu": ("serverCpuUsPerRequest", "µs", "{:,.1f}"),
    "rss": ("serverPeakRssBytes", "MiB", "{:,.1f}"),
    "cold": ("coldStartMs", "ms", "{:,.1f}"),
}


def value(report: dict, metric: str):
    key = METRICS[metric][0]
    raw = report.get(key)
    if raw is None:
        return None
    return raw / 1048576 if metric == "rss" else float(raw)


# (case name, metric, bound on ours/rmcp, "<=" or ">=", what the issue says)
TARGETS = [
    ("stdio 2026-07-28 C=32", "throughput", 5.0, ">="),
    ("stdio 2026-07-28 C=32", "cpu", 0.2, "<="),
    ("stdio 2026-07-28 C=1", "p50", 0.75, "<="),
    ("http 2026-07-28 C=32", "throughput", 2.5, ">="),
    ("http 2026-07-28 C=32", "cpu", 0.4, "<="),
    ("http 2026-07-28 C=1", "throughput", 1.6, ">="),
    ("http 2025-11-25 C=32", "throughput", 2.0, ">="),
    ("stdio tools/list, 1,002 tools", "cpu", 0.3, "<="),
    ("stdio echo, 100 KB argument", "cpu", 0.5, "<="),
    ("stdio 2026-07-28 C=1", "rss", 1.0, "<="),
    ("stdio 2026-07-28 C=1", "cold", 1.0, "<="),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modelctx", required=True)
    parser.add_argument("--rmcp", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default="docs/performance.md")
    options = parser.parse_args()
    binaries = {"modelctx": options.modelctx, "rmcp": options.rmcp}
    results = {}  # case -> which -> [report per round]
    for round_number in range(1, options.rounds + 1):
        for case in cases():
            for which in ("modelctx", "rmcp"):
                report = run(binaries, which, case)
                results.setdefault(case[0], {}).setdefault(which, []).append(report)
                print(f"round {round_number} {case[0]:32} {which:8} {report['throughput']:10,.0f} req/s "
                      f"p50 {report['p50Us']:6} µs cpu {report['serverCpuUsPerRequest'] or 0:8.1f} µs", flush=True)
    # The client against a hand-written loop, both driving our server (item: the client is
    # not the bottleneck).
    client_case = ("stdio 2026-07-28 C=32", ["-c", "32", "-n", "20000"], "stdio", [])
    for round_number in range(1, options.rounds + 1):
        for which in ("modelctx", "raw"):
            report = run(binaries, which, client_case)
            results.setdefault("client: modelctx Client vs raw loop", {}).setdefault(which, []).append(report)
            print(f"round {round_number} client {which:8} {report['throughput']:10,.0f} req/s", flush=True)
    write(options, results)


def median(reports: list, metric: str):
    values = [v for v in (value(r, metric) for r in reports) if v is not None]
    return statistics.median(values) if values else None


def fmt(metric: str, number) -> str:
    return "–" if number is None else METRICS[metric][2].format(number)


def write(options, results: dict) -> None:
    lines = []
    add = lines.append
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    add("# Performance: modelctx and rmcp, measured side by side\n")
    add(f"Measured {datetime.date.today()} at commit `{commit}` on {platform.machine()} Linux "
        f"({os.cpu_count()} CPUs), {options.rounds} interleaved rounds (modelctx, rmcp, modelctx, rmcp …, "
        "case by case). Absolute numbers on a shared machine move by ±30 %; the ratios of one run "
        "are what count. Generated by `scripts/bench.sh` (the analysis at the end comes from "
        "`bench/analysis.md`); do not edit by hand.\n")
    add("## Method\n")
    add("- **Servers.** Ours: `modelctx serve bench` (release build) — the tools `echo` and `add` of "
        "the reference server, plus `--extra-tools 1000` filler tools for the listing case, all on "
        "one page. Theirs: `bench/rmcp-server` on `rmcp` 3.11.0 from crates.io (its own lockfile), the "
        "same tools with the same text, default configuration, TCP_NODELAY on HTTP connections. "
        "Input validation against the tools' schemas is on in ours (the default).")
    add("- **Load.** `modelctx bench` (built on modelctx's client) keeps C requests in flight over one "
        "stdio pipe, or over C keep-alive HTTP/1.1 connections to `--http 127.0.0.1:0`; it checks "
        "every answer (the echoed text, the sum, the tool count), warms up (500 requests) before "
        "the measured window, and reads the server's CPU time (user + system, all threads) from "
        "`/proc/PID/stat` before and after, its peak RSS from `VmHWM`, and its cold start (spawn to "
        "the first answer; discover or initialize).")
    add("- **Eras.** 2026-07-28 requests are stateless (`_meta` in every request; on HTTP with "
        "`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`); 2025-11-25 opens with `initialize` and, on "
        "HTTP, a session (`Mcp-Session-Id`). rmcp answers every HTTP request as an SSE stream; ours "
        "answers JSON unless the request streams.")
    add("- **Reported.** The median of the rounds for each side, and the ratio ours ÷ rmcp of each round.\n")
    add("Reproduce: `scripts/bench.sh` (builds both release binaries, runs, rewrites this file).\n")
    add("## Targets\n")
    add("| Case | Metric | Target (ours ÷ rmcp) | Median ratio | Per round | Met |")
    add("|---|---|---|---|---|---|")
    for case, metric, bound, op in TARGETS:
        ours = results[case]["modelctx"]
        theirs = results[case]["rmcp"]
        ratios = []
        for a, b in zip(ours, theirs):
            va, vb = value(a, metric), value(b, metric)
            if va is not None and vb:
                ratios.append(va / vb)
        if not ratios:
            add(f"| {case} | {metric} | {op} {bound} | – | – | unknown |")
            continue
        mid = statistics.median(ratios)
        met = mid >= bound if op == ">=" else mid <= bound
        rounds = ", ".join(f"{r:.2f}" for r in ratios)
        add(f"| {case} | {metric} | {op} {bound} | **{mid:.2f}** | {rounds} | {'yes' if met else 'NO'} |")
    add("")
    try:
        with open("bench/instructions.json", encoding="utf-8") as recorded:
            counts = json.load(recorded)
        add("## Instructions per request\n")
        add("Counted by callgrind (`scripts/instructions.sh`, recorded in `bench/instructions.json`, "
            "checked in `scripts/test.sh`): `tools/call echo`, 2026-07-28, one in flight, our server only.\n")
        add("| Transport | Instructions per request | Target | Met |")
        add("|---|---|---|---|")
        for transport, target in (("stdio", 20000), ("http", 50000)):
            count = counts[transport]
            add(f"| {transport} | {count:,} | <= {target:,} | {'yes' if count <= target else 'NO'} |")
        add("")
    except FileNotFoundError:
        pass
    client = results.get("client: modelctx Client vs raw loop")
    if client:
        ratios = [a["throughput"] / b["throughput"] for a, b in zip(client["modelctx"], client["raw"])]
        mid = statistics.median(ratios)
        add("## The client\n")
        add("`modelctx bench` (through modelctx's `Client`) against `modelctx bench --raw` (a hand-written "
            "loop: JSON lines written to the pipe and read back, no client library), both driving "
            "`modelctx serve bench` over stdio, 2026-07-28, 32 in flight. Target: the client sustains "
            "at least the raw loop's rate within 1.5× (a ratio of at least 0.67).\n")
        add("| Client | Throughput (req/s, median) | p50 (µs) |")
        add("|---|---|---|")
        for which, label in (("modelctx", "modelctx Client"), ("raw", "raw loop")):
            add(f"| {label} | {fmt('throughput', median(client[which], 'throughput'))} | {fmt('p50', median(client[which], 'p50'))} |")
        rounds = ", ".join(f"{r:.2f}" for r in ratios)
        add(f"\nClient ÷ raw throughput: **{mid:.2f}** (rounds: {rounds}) — {'met' if mid >= 1 / 1.5 else 'NOT met'}.\n")
    add("## Every case (medians)\n")
    add("| Case | Server | Throughput (req/s) | p50 (µs) | p99 (µs) | CPU/request (µs) | Peak RSS (MiB) | Cold start (ms) |")
    add("|---|---|---|---|---|---|---|---|")
    for case in (c for c in results if not c.startswith("client:")):
        for which in ("modelctx", "rmcp"):
            reports = results[case][which]
            cells = [fmt(m, median(reports, m)) for m in ("throughput", "p50", "p99", "cpu", "rss", "cold")]
            add(f"| {case} | {which} | " + " | ".join(cells) + " |")
    add("")
    add("## Ratios per case (ours ÷ rmcp, median of rounds)\n")
    add("| Case | Throughput | p50 | CPU/request |")
    add("|---|---|---|---|")
    for case in (c for c in results if not c.startswith("client:")):
        cells = []
        for metric in ("throughput", "p50", "cpu"):
            ours = median(results[case]["modelctx"], metric)
            theirs = median(results[case]["rmcp"], metric)
            cells.append("–" if not ours or not theirs else f"{ours / theirs:.2f}")
        add(f"| {case} | " + " | ".join(cells) + " |")
    add("")
    try:
        with open("bench/analysis.md", encoding="utf-8") as analysis:
            add(analysis.read())
    except FileNotFoundError:
        pass
    with open(options.out, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
