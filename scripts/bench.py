#!/usr/bin/env python3
"""Runs three MCP servers under the neutral load generator `mcp-load` (bench/load), interleaved
case by case (modelctx, rmcp, limit, modelctx, rmcp, limit …), and writes docs/performance.md
with the medians, the per-round ratios and the targets. The servers: modelctx's
`modelctx serve bench`, the rmcp comparison server (bench/rmcp-server) and the hand-written
limit (bench/limit-server). A last section compares modelctx's client with a raw loop
(`modelctx bench` against `modelctx bench --raw`); where valgrind is installed, the instructions
per request of rmcp and the limit are counted with callgrind, beside ours from
bench/instructions.json. Called by scripts/bench.sh, which builds every binary first.

    scripts/bench.py --modelctx target/profiling/modelctx \\
        --rmcp bench/rmcp-server/target/release/rmcp-bench-server \\
        --limit bench/limit-server/target/release/limit-server \\
        --load bench/load/target/release/mcp-load [--rounds 3] [--window 2] [--out docs/performance.md]

`--quick` (QUICK=1 in scripts/bench.sh): one round, short windows, small counts; proves the
script end to end, measures nothing worth keeping (write it elsewhere with --out).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from first_server import stop

SERVERS = ("modelctx", "rmcp", "limit")
LABELS = {"modelctx": "modelctx", "rmcp": "rmcp", "limit": "limit"}
# What `mcp-load` exits with when `--h2` meets a server that does not speak h2c.
NO_H2C = 3
EVERYTHING = "serve everything (start-up), stdio 2026-07-28 C=1"
# The same server from the binary that holds it alone, as a host would spawn it.
EVERYTHING_BINARY = "modelctx-everything (start-up), stdio 2026-07-28 C=1"
# Extra server arguments that stand for "the everything server" (ours, or the others with as many tools).
EVERYTHING_CASES = {EVERYTHING: ["--everything"], EVERYTHING_BINARY: ["--everything-binary"]}
LIST = "stdio tools/list, 1,002 tools"
# More requests written at once than the server's queue holds (64 running, 1,024 waiting).
BURST_CALLS = 5000
BURST = f"stdio burst, {BURST_CALLS:,} calls written at once"
# Spawns whose median is a start-up case's cold start, in each round.
COLD_SPAWNS = 9


def cases(options):
    """Every case: (name, mcp-load arguments, transport, extra server arguments)."""
    # Each window lasts --window seconds (or until the request cap); CPU time is read in
    # clock ticks (10 ms), so the windows are long enough for the fastest server to use
    # hundreds of them.
    window = ["-n", str(options.cap), "--max-seconds", str(options.window)]
    warmup = ["--warmup", str(options.warmup)]
    matrix = []
    for transport in ("stdio", "http"):
        for era in ("modern", "legacy"):
            for concurrency in (1, 32):
                name = f"{transport} {'2026-07-28' if era == 'modern' else '2025-11-25'} C={concurrency}"
                args = ["--era", era, "-c", str(concurrency), *window, *warmup]
                matrix.append((name, args, transport, []))
    matrix.append(("http 2026-07-28 C=32 h2c", ["--h2", "-c", "32", *window, *warmup], "http", []))
    few = ["--warmup", str(min(options.warmup, 50))]
    matrix.append((LIST, ["--workload", "list", *window, *few], "stdio", ["--extra-tools", "1000"]))
    big = ["--payload", "102400", *window, "--warmup", str(min(options.warmup, 100))]
    matrix.append(("stdio echo, 100 KB argument", big, "stdio", []))
    matrix.append(("http echo, 100 KB argument", big, "http", []))
    burst = ["--era", "modern", "-c", str(BURST_CALLS), "-n", str(BURST_CALLS), "--warmup", "0", "--max-seconds", "60"]
    matrix.append((BURST, burst, "stdio", []))
    for name, extra in EVERYTHING_CASES.items():
        matrix.append((name, ["-c", "1", *window, *warmup], "stdio", extra))
    return matrix


def server_command(which: str, options, transport: str, extra: list) -> list:
    if extra in EVERYTHING_CASES.values():
        # modelctx's reference server against the other two with as many tools.
        if which == "modelctx":
            return [options.everything] if extra == ["--everything-binary"] else [options.modelctx, "serve", "everything"]
        extra = ["--extra-tools", str(options.everything_tools - 2)]
    if which == "modelctx":
        command = [options.modelctx, "serve", "bench"]
        if transport == "http":
            # One current-thread runtime, as the limit's: `serve --http` defaults to a worker
            # per CPU, and on two CPUs the second competes with the load generator.
            command += ["--threads", "1"]
    elif which == "rmcp":
        command = [options.rmcp]
    else:
        command = [options.limit]
    if transport == "http":
        command += ["--http", "127.0.0.1:0"]
    return command + extra


def run_load(options, which: str, case):
    """One mcp-load run; its report, or None where the server does not speak h2c."""
    name, args, transport, extra = case
    command = [options.load, "--json", *args]
    if transport == "http":
        command.append("--http")
    command += ["--", *server_command(which, options, transport, extra)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode == NO_H2C and "--h2" in args:
        return None
    if done.returncode != 0:
        sys.exit(f"bench failed ({which}, {name}): {' '.join(command)}\n{done.stderr}")
    report = json.loads(done.stdout)
    if extra in EVERYTHING_CASES.values():
        report["coldStartMs"] = cold_start(options, server_command(which, options, transport, extra))
    return report


def cold_start(options, server: list) -> float:
    """The median cold start of COLD_SPAWNS spawns of `server`, each answering one request:
    one spawn varies by more than the ratios judged (scheduling, page cache, the other core)."""
    starts = []
    for _ in range(COLD_SPAWNS):
        command = [options.load, "--json", "-c", "1", "-n", "1", "--warmup", "0", "--", *server]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            sys.exit(f"cold start failed: {' '.join(command)}\n{done.stderr}")
        starts.append(json.loads(done.stdout)["coldStartMs"])
    return statistics.median(starts)


def run_client(options, which: str) -> dict:
    """`modelctx bench` (or `--raw`) against `modelctx serve bench`, stdio, 2026-07-28, C=32."""
    command = [options.modelctx, "bench", "--json", "--max-seconds", "60", "-c", "32", "-n", str(options.client_count)]
    if which == "raw":
        command.append("--raw")
    command += ["--", options.modelctx, "serve", "bench"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"bench failed (client {which}): {' '.join(command)}\n{done.stderr}")
    return json.loads(done.stdout)


def count_tools(modelctx: str) -> int:
    """How many tools `modelctx serve everything` lists to a 2026-07-28 client (every page)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench.py", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    server = subprocess.Popen([modelctx, "serve", "everything"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        count, cursor = 0, None
        for page in range(1, 100):
            params = {"_meta": meta}
            if cursor:
                params["cursor"] = cursor
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": page, "method": "tools/list", "params": params}) + "\n")
            server.stdin.flush()
            while True:
                answer = json.loads(server.stdout.readline())
                if answer.get("id") == page:
                    break
            result = answer["result"]
            count += len(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return count
        raise RuntimeError("tools/list did not end within 99 pages")
    finally:
        stop(server)


def count_instructions(options, which: str, transport: str, requests: int):
    """Instructions the server `which` executes answering `requests` echo calls (2026-07-28, one
    in flight) and starting up and stopping, counted by callgrind: the method of
    scripts/instructions.sh, with mcp-load as the client."""
    with tempfile.TemporaryDirectory() as work:
        log = os.path.join(work, "callgrind.log")
        server = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}",
                  *server_command(which, options, transport, [])]
        command = [options.load, "--era", "modern", "-c", "1", "-n", str(requests), "--warmup", "0",
                   "--max-seconds", "300", *(["--http"] if transport == "http" else []), "--", *server]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            sys.exit(f"instructions failed ({which}, {transport}): {' '.join(command)}\n{done.stderr}")
        # valgrind writes its summary once the server has exited
        for _ in range(100):
            try:
                with open(log, encoding="utf-8") as text:
                    for line in text:
                        if "Collected" in line:
                            return int(line.split()[-1])
            except FileNotFoundError:
                pass
            time.sleep(0.1)
    sys.exit(f"instructions: callgrind wrote no summary for {which} over {transport}")


def instructions(options) -> dict:
    """Instructions per request of rmcp and the limit: (I(N2) - I(N1)) / (N2 - N1), so start-up
    and shutdown cancel out. Empty without valgrind."""
    if not shutil.which("valgrind"):
        return {}
    low, high = (30, 130) if options.quick else (300, 1300)
    counts = {}
    for which in ("rmcp", "limit"):
        for transport in ("stdio", "http"):
            first = count_instructions(options, which, transport, low)
            second = count_instructions(options, which, transport, high)
            counts[(which, transport)] = (second - first) // (high - low)
            print(f"instructions {which:8} {transport:5} {counts[(which, transport)]:10,} per request", flush=True)
    return counts


METRICS = {
    "throughput": ("throughput", "req/s", "{:,.0f}"),
    "p50": ("p50Us", "µs", "{:,.0f}"),
    "p99": ("p99Us", "µs", "{:,.0f}"),
    "cpu": ("serverCpuUsPerRequest", "µs", "{:,.1f}"),
    "rss": ("serverPeakRssBytes", "MiB", "{:,.1f}"),
    "cold": ("coldStartMs", "ms", "{:,.1f}"),
}


def value(report, metric: str):
    if report is None:
        return None
    raw = report.get(METRICS[metric][0])
    if raw is None:
        return None
    return raw / 1048576 if metric == "rss" else float(raw)


def round_ratios(results: dict, case: str, metric: str, reference: str) -> list:
    """ours ÷ reference for each round where both are known."""
    ratios = []
    for ours, theirs in zip(results[case]["modelctx"], results[case][reference]):
        a, b = value(ours, metric), value(theirs, metric)
        if a is not None and b:
            ratios.append(a / b)
    return ratios


def median_ratio(results: dict, case: str, metric: str, reference: str):
    ratios = round_ratios(results, case, metric, reference)
    return statistics.median(ratios) if ratios else None


# (case, metric, reference server, "<=" or ">=", bound on ours ÷ reference), as the issue sets them.
def targets(all_cases: list) -> list:
    rows = [
        ("stdio 2026-07-28 C=32", "throughput", "limit", ">=", 0.6),
        ("stdio 2026-07-28 C=32", "throughput", "rmcp", ">=", 10.0),
        ("http 2026-07-28 C=32", "throughput", "limit", ">=", 0.8),
        ("http 2026-07-28 C=32", "throughput", "rmcp", ">=", 3.0),
        ("http 2025-11-25 C=32", "throughput", "limit", ">=", 0.8),
        ("http 2025-11-25 C=32", "throughput", "rmcp", ">=", 3.0),
        ("http 2026-07-28 C=1", "throughput", "limit", ">=", 0.85),
        ("stdio 2026-07-28 C=1", "p50", "limit", "<=", 1.15),
    ]
    # The burst is over in milliseconds: too short for CPU time read in 10 ms clock ticks. Its
    # target is that it completes (every call answered with its result); its RSS is reported.
    rows += [(case, "cpu", "limit", "<=", 2.0) for case in all_cases if case != BURST]
    rows += [
        # What a host pays per spawned server: the binary of one server at most rmcp's, the
        # whole CLI within 2× its memory and 1.5× its start.
        (EVERYTHING_BINARY, "rss", "rmcp", "<=", 1.0),
        (EVERYTHING_BINARY, "cold", "rmcp", "<=", 1.0),
        (EVERYTHING, "rss", "rmcp", "<=", 2.0),
        (EVERYTHING, "cold", "rmcp", "<=", 1.5),
        (LIST, "cpu", "rmcp", "<=", 0.2),
    ]
    return rows


INSTRUCTION_TARGETS = (("stdio", 15000), ("http", 35000))
CLIENT_TARGET = 1.0  # the client sustains at least the raw loop's rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modelctx", required=True, help="the modelctx binary (serves `bench` and `everything`)")
    parser.add_argument("--rmcp", required=True, help="bench/rmcp-server's rmcp-bench-server")
    parser.add_argument("--limit", required=True, help="bench/limit-server's limit-server")
    parser.add_argument("--load", required=True, help="bench/load's mcp-load")
    parser.add_argument("--everything", required=True, help="the modelctx-everything binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=float, default=2.0, help="seconds of each measured window (default 2)")
    parser.add_argument("--out", default="docs/performance.md")
    parser.add_argument("--first-server", help="the markdown section of scripts/first_server.py, put in as it is")
    parser.add_argument("--quick", action="store_true",
                        help="one round, 0.2 s windows, small counts: checks the script, measures nothing")
    options = parser.parse_args()
    options.cap = 10_000_000  # requests per window at most; the window's time ends it first
    options.warmup = 500
    options.client_count = 20000
    if options.quick:
        options.rounds, options.window, options.warmup, options.client_count = 1, 0.2, 50, 2000
    try:
        options.everything_tools = count_tools(options.modelctx)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        sys.exit(f"cannot count the tools of `modelctx serve everything`: {error}")
    all_cases = cases(options)
    results = {}  # case -> server -> [report per round, None where not applicable]
    for round_number in range(1, options.rounds + 1):
        for case in all_cases:
            for which in SERVERS:
                report = run_load(options, which, case)
                results.setdefault(case[0], {}).setdefault(which, []).append(report)
                if report is None:
                    print(f"round {round_number} {case[0]:52} {which:8} does not speak h2c", flush=True)
                    continue
                print(f"round {round_number} {case[0]:52} {which:8} {report['throughput']:10,.0f} req/s "
                      f"p50 {report['p50Us']:6} µs cpu {report['serverCpuUsPerRequest'] or 0:8.1f} µs", flush=True)
    # The client against a hand-written loop, both driving our server: the client is not the
    # bottleneck.
    client = {"modelctx": [], "raw": []}
    for round_number in range(1, options.rounds + 1):
        for which in ("modelctx", "raw"):
            report = run_client(options, which)
            client[which].append(report)
            print(f"round {round_number} client {which:8} {report['throughput']:10,.0f} req/s", flush=True)
    write(options, all_cases, results, client, instructions(options))


def median(reports: list, metric: str):
    values = [v for v in (value(r, metric) for r in reports) if v is not None]
    return statistics.median(values) if values else None


def fmt(metric: str, number) -> str:
    return "–" if number is None else METRICS[metric][2].format(number)


def write(options, all_cases: list, results: dict, client: dict, counted: dict) -> None:
    lines = []
    add = lines.append
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    names = [case[0] for case in all_cases]
    add("# Performance: modelctx, rmcp and the limit, measured side by side\n")
    add(f"Measured {datetime.date.today()} at commit `{commit}` on {platform.machine()} Linux "
        f"({os.cpu_count()} CPUs), {options.rounds} interleaved rounds (modelctx, rmcp, limit, modelctx, "
        f"rmcp, limit …, case by case), {options.window:g} s measured windows. Absolute numbers on a "
        "shared machine move by ±30 %; the ratios of one run are what count. Generated by "
        "`scripts/bench.sh` (the analysis at the end comes from `bench/analysis.md`); do not edit by hand.\n")
    if options.quick:
        add("**Quick run** (`--quick`): one round of very short windows, to check the script; "
            "these numbers are not measurements.\n")
    add("## Method\n")
    add("- **Load: one neutral generator for all three servers.** `bench/load` (`mcp-load`, its own "
        "workspace and lockfile) depends on no crate of modelctx and on no MCP library: tokio, hyper 1's "
        "client connection API, serde_json, hdrhistogram and clap. It runs on one thread (a current-thread "
        "runtime), so it takes one of the machine's cores at most. Over stdio it spawns the server and "
        "keeps C requests (distinct ids) in flight over the one pipe, writing requests and reading "
        "answers in the same poll; over HTTP it keeps C keep-alive HTTP/1.1 connections with one request "
        "at a time on each (one task per connection), or, for the h2c case, C streams on one HTTP/2 "
        "connection with prior knowledge. Request bodies are written into one reused buffer per "
        "worker; answers are parsed in one pass into borrowed structs. It accepts plain JSON and SSE "
        "answers (the `data:` event that holds the response to the request's id). Every answer is "
        "checked (the echoed text, the sum, the tool count, equal in every answer); a wrong one ends the "
        "run with an error.")
    add(f"- **Measured as `modelctx bench` measures.** A warm-up ({options.warmup} requests; "
        f"{min(options.warmup, 50)} for the listing, {min(options.warmup, 100)} for 100 KB), then a window "
        f"of {options.window:g} s (or {options.cap:,} requests, whichever ends first; "
        "the in-flight requests are awaited). Latency is from writing a request to reading its whole "
        "answer. The server's CPU time (user + system, all threads) comes from `/proc/PID/stat` before "
        "and after the window, its peak RSS from `VmHWM` after it, and its cold start is from spawning it "
        "to its first answer (`server/discover` or `initialize`; over HTTP this includes waiting for its "
        "`listening on URL` line and opening the first connection). The report has the fields of "
        "`modelctx bench --json`.")
    add("- **Eras.** 2026-07-28 requests are stateless (`_meta` with `protocolVersion`, `clientInfo` and "
        "`clientCapabilities` in every request; on HTTP also `MCP-Protocol-Version`, `Mcp-Method` and "
        "`Mcp-Name`), after one `server/discover`. 2025-11-25 opens with `initialize` and "
        "`notifications/initialized`; on HTTP the requests carry the `Mcp-Session-Id` the server gave and "
        "`MCP-Protocol-Version: 2025-11-25`.")
    add("- **Servers.** Ours: `modelctx serve bench` (release build) — the tools `echo` and `add` of the "
        "reference server, plus `--extra-tools 1000` filler tools for the listing case, all on one page; "
        "input validation against the tools' schemas is on (the default); over HTTP with `--threads 1`, "
        "one current-thread runtime as the limit's (the default is a worker per CPU, and on this "
        "machine's two the second competes with the load generator). rmcp: `bench/rmcp-server` on "
        "`rmcp` 3.11.0 from crates.io (its own lockfile), the same tools with the same text, default "
        "configuration (HTTP answers are SSE streams, sessions for 2025-11-25), TCP_NODELAY. The limit: "
        "`bench/limit-server`, a hand-written server with no MCP library (serde_json, tokio, hyper 1; its "
        "own lockfile): each message is parsed from its bytes in one pass into borrowed structs and each "
        "answer written straight into the output buffer; stdio is plain blocking I/O on one thread that "
        "answers every line of a read and writes them in one write; HTTP is hyper-util's auto builder "
        "(HTTP/1.1 and h2c) on a current-thread runtime, JSON answers, TCP_NODELAY. It still does what the "
        "specification requires: both eras, the `_meta` and header checks of 2026-07-28 (`-32602`, "
        "`-32020`, `-32022`), sessions for 2025-11-25, `-32601` for unknown methods; its `tools/list` "
        "carries the same tool definitions as rmcp's, byte for byte.")
    add(f"- **Serve everything.** `modelctx serve everything` (the reference server: "
        f"{options.everything_tools} tools to a 2026-07-28 client, resources, prompts) against "
        f"`rmcp-bench-server --extra-tools {options.everything_tools - 2}` and `limit-server "
        f"--extra-tools {options.everything_tools - 2}` ({options.everything_tools} tools each), `echo` "
        "over stdio, one in flight: its peak RSS, and its cold start as the median of "
        f"{COLD_SPAWNS} more spawns each answering one request (one spawn varies too much to judge). The same again with the "
        "`modelctx-everything` binary, which holds that server alone, as a host spawns it. Both are "
        "built as `cargo install` builds them (fat LTO, one codegen unit), with symbols.")
    add(f"- **Burst.** {BURST_CALLS:,} `tools/call echo` requests (2026-07-28) written to a fresh server "
        "over stdio at once, more than our queue holds (64 running, 1,024 waiting): every one must be "
        "answered with its result (an error answer, `server busy` included, fails the run); the server's "
        "peak RSS is reported. Ours answers `echo` as it reads it, so its queue does not fill here; a "
        "full queue pushing back on the pipe is tested with a tool that waits "
        "(`serve_everything::a_burst_of_5000_calls_written_at_once_is_answered_in_full`).")
    add("- **h2c.** A server that does not speak HTTP/2 with prior knowledge is shown as n/a in that case.")
    add("- **Reported.** The median of the rounds for each server, and the ratios ours ÷ rmcp and "
        "ours ÷ limit of each round (targets and ratio tables: the median of the per-round ratios).\n")
    add("Reproduce: `scripts/bench.sh` (builds the five release binaries and both first servers, runs, "
        "rewrites this file).\n")

    add("## Targets\n")
    add("| Case | Metric | Target | Median ratio | Per round | Met |")
    add("|---|---|---|---|---|---|")
    for case, metric, reference, op, bound in targets(names):
        ratios = round_ratios(results, case, metric, reference)
        target = f"ours ÷ {reference} {op} {bound:g}"
        if not ratios:
            add(f"| {case} | {metric} | {target} | – | – | unknown |")
            continue
        mid = statistics.median(ratios)
        met = mid >= bound if op == ">=" else mid <= bound
        rounds = ", ".join(f"{r:.2f}" for r in ratios)
        add(f"| {case} | {metric} | {target} | **{mid:.2f}** | {rounds} | {'yes' if met else 'NO'} |")
    add("")
    try:
        with open("bench/instructions.json", encoding="utf-8") as recorded:
            counts = json.load(recorded)
        add("## Instructions per request\n")
        add("Counted by callgrind, `tools/call echo`, 2026-07-28, one in flight, as (I(N2) − I(N1)) ÷ "
            "(N2 − N1) so that start-up and shutdown cancel out. Ours: `scripts/instructions.sh` (driven "
            "by `modelctx bench`), recorded in `bench/instructions.json` and checked in `scripts/test.sh`; "
            "the target is on ours. rmcp and the limit: counted by this script in the same way, driven "
            "by `mcp-load`" + ("" if counted else " (not counted here: valgrind is not installed)") + ". "
            "Over HTTP ours and the limit serve on one current-thread runtime, as in the timed cases; "
            "rmcp on its default runtime (a worker per CPU).\n")
        add("| Transport | modelctx | rmcp | limit | Target (modelctx) | Met |")
        add("|---|---|---|---|---|---|")
        for transport, target in INSTRUCTION_TARGETS:
            count = counts[transport]
            theirs = [counted.get((which, transport)) for which in ("rmcp", "limit")]
            cells = " | ".join("–" if c is None else f"{c:,}" for c in theirs)
            add(f"| {transport} | {count:,} | {cells} | <= {target:,} | {'yes' if count <= target else 'NO'} |")
        add("")
    except FileNotFoundError:
        pass
    if client["modelctx"]:
        ratios = [a["throughput"] / b["throughput"] for a, b in zip(client["modelctx"], client["raw"])]
        mid = statistics.median(ratios)
        add("## The client\n")
        add("`modelctx bench` (through modelctx's `Client`) against `modelctx bench --raw` (a hand-written "
            "loop: JSON lines written to the pipe and read back, no client library), both driving "
            f"`modelctx serve bench` over stdio, 2026-07-28, 32 in flight, {options.client_count:,} "
            "requests. Target: the client sustains at least the raw loop's rate (a ratio of at least 1).\n")
        add("| Client | Throughput (req/s, median) | p50 (µs) |")
        add("|---|---|---|")
        for which, label in (("modelctx", "modelctx Client"), ("raw", "raw loop")):
            add(f"| {label} | {fmt('throughput', median(client[which], 'throughput'))} | "
                f"{fmt('p50', median(client[which], 'p50'))} |")
        rounds = ", ".join(f"{r:.2f}" for r in ratios)
        add(f"\nClient ÷ raw throughput: **{mid:.2f}** (rounds: {rounds}) — "
            f"{'met' if mid >= CLIENT_TARGET else 'NOT met'}.\n")
    if options.first_server:
        with open(options.first_server, encoding="utf-8") as section:
            add(section.read())
    add("## Every case (medians)\n")
    add("| Case | Server | Throughput (req/s) | p50 (µs) | p99 (µs) | CPU/request (µs) | Peak RSS (MiB) | Cold start (ms) |")
    add("|---|---|---|---|---|---|---|---|")
    for case in names:
        for which in SERVERS:
            reports = results[case][which]
            if all(r is None for r in reports):
                add(f"| {case} | {LABELS[which]} | n/a (no h2c) | | | | | |")
                continue
            cells = [fmt(m, median(reports, m)) for m in ("throughput", "p50", "p99", "cpu", "rss", "cold")]
            add(f"| {case} | {LABELS[which]} | " + " | ".join(cells) + " |")
    add("")
    add("## Ratios per case (ours ÷ rmcp and ours ÷ limit, median of the per-round ratios)\n")
    add("| Case | Throughput ÷ rmcp | Throughput ÷ limit | p50 ÷ rmcp | p50 ÷ limit | CPU ÷ rmcp | CPU ÷ limit |")
    add("|---|---|---|---|---|---|---|")
    for case in names:
        cells = []
        for metric in ("throughput", "p50", "cpu"):
            for reference in ("rmcp", "limit"):
                ratio = median_ratio(results, case, metric, reference)
                cells.append("–" if ratio is None else f"{ratio:.2f}")
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
