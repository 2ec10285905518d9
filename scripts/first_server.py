#!/usr/bin/env python3
"""The cost of adopting modelctx, against rmcp: the guide's first server (one `greet` tool on
stdio) as a new user builds it, outside this workspace, beside the same server on rmcp 3.11.

    scripts/first_server.py [--rounds N] [--markdown FILE] [--json FILE]

Each of bench/first-server/modelctx and bench/first-server/rmcp (workspaces of their own, with
their own lockfiles) is built with `cargo build --release --locked` into a new, empty target
directory: the crates compiled, the build's CPU time (user + system) and wall time, the
binary's size. Then each binary is spawned N times, interleaved (modelctx, rmcp, modelctx, …):
its cold start (spawn to the `initialize` answer) and its peak RSS (`VmHWM`) after 200
`tools/call greet`. The medians, their ratios and the issue's targets are printed as a markdown
section (and written to FILE with --markdown; `scripts/bench.sh` puts it into
docs/performance.md). Measured, never asserted in tests. When modelctx's own dependencies
change, `cargo fetch --manifest-path bench/first-server/modelctx/Cargo.toml` brings that
fixture's lockfile up to date (a new user's resolution, minimal).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "bench" / "first-server"
SIDES = ("modelctx", "rmcp")
CALLS = 200

# (metric, comparison, bound, how the bound reads): each modelctx value against rmcp's.
TARGETS = [
    ("crates", "<=", 10, "≤ rmcp's + 10"),
    ("cpu_s", "<=", 1.2, "≤ 1.2× rmcp"),
    ("binary_mb", "<=", 1.0, "≤ rmcp"),
    ("rss_mib", "<=", 1.0, "≤ rmcp"),
    ("cold_ms", "<=", 1.0, "≤ rmcp"),
]
LABELS = {
    "crates": "crates compiled",
    "cpu_s": "release build, CPU time (user + system), s",
    "wall_s": "release build, wall time (2 cores), s",
    "binary_mb": "binary size, MB",
    "rss_mib": f"peak RSS after {CALLS} calls, MiB",
    "cold_ms": "cold start (spawn → `initialize` answered), ms",
}


def build(side: str) -> dict:
    """Builds one fixture from cold; what it cost."""
    manifest = FIXTURES / side / "Cargo.toml"
    with tempfile.TemporaryDirectory(prefix=f"first-server-{side}-") as target:
        times = Path(target) / "times"
        command = ["/usr/bin/time", "-f", "%U %S %e", "-o", str(times), "cargo", "build", "--release",
                   "--locked", "--manifest-path", str(manifest), "--target-dir", target]
        env = {**os.environ, "CARGO_INCREMENTAL": "0", "CARGO_TERM_COLOR": "never"}
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"building {manifest} failed:\n{done.stderr}")
        user, system, wall = (float(x) for x in times.read_text().split()[-3:])
        crates = len(re.findall(r"^\s*Compiling ", done.stderr, re.M))
        binary = Path(target) / "release" / f"first-server-{side}"
        kept = ROOT / "target" / "first-server" / side
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_bytes(binary.read_bytes())
        kept.chmod(0o755)
        return {"crates": crates, "cpu_s": user + system, "wall_s": wall,
                "binary_mb": binary.stat().st_size / 1e6, "binary": str(kept)}


def message(process, payload: dict) -> None:
    process.stdin.write((json.dumps(payload) + "\n").encode())
    process.stdin.flush()


def answer(process, want_id: int) -> dict:
    """The response with `want_id` (notifications and logs are skipped)."""
    while True:
        line = process.stdout.readline()
        if not line:
            sys.exit(f"the server closed its output before answering request {want_id}")
        reply = json.loads(line)
        if reply.get("id") == want_id:
            if "error" in reply:
                sys.exit(f"request {want_id} failed: {reply['error']}")
            return reply["result"]


def run(binary: str) -> dict:
    """One spawn: cold start, then peak RSS after the calls."""
    started = time.perf_counter()
    process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        message(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "first-server-bench", "version": "1"}}})
        answer(process, 0)
        cold_ms = (time.perf_counter() - started) * 1000
        message(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        for call in range(1, CALLS + 1):
            message(process, {"jsonrpc": "2.0", "id": call, "method": "tools/call",
                              "params": {"name": "greet", "arguments": {"name": f"Ada {call}"}}})
            result = answer(process, call)
            text = result["content"][0]["text"]
            if text != f"Hello, Ada {call}!" or result.get("isError"):
                sys.exit(f"{binary}: greet answered {result}")
        status = Path(f"/proc/{process.pid}/status").read_text()
        rss_kib = int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)[1])
    finally:
        stop(process)
    return {"cold_ms": cold_ms, "rss_mib": rss_kib / 1024}


def stop(process) -> None:
    """Ends a stdio server as a host does: its stdin closed, killed if it lingers."""
    process.stdin.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def verdict(metric: str, ours: float, theirs: float) -> tuple[str, bool]:
    bound = next(b for m, _, b, _ in TARGETS if m == metric)
    if metric == "crates":
        return f"{ours - theirs:+.0f}", ours <= theirs + bound
    ratio = ours / theirs
    return f"{ratio:.2f}", ratio <= bound


def markdown(results: dict, rounds: int) -> str:
    lines = [
        "## The first server, as a new user builds it\n",
        "The guide's first server (one `greet` tool on stdio, `bench/first-server/modelctx`, `modelctx` "
        "with its default features) beside the same server on rmcp 3.11 (`bench/first-server/rmcp`: "
        "`server`, `macros`, `transport-io`), each a workspace of its own built with `cargo build --release "
        "--locked` into an empty target directory (crates already downloaded), then spawned "
        f"{rounds} times, interleaved: cold start to the `initialize` answer, peak RSS after {CALLS} "
        "`tools/call greet` (medians). By `scripts/first_server.py`.\n",
        "| the same one-tool stdio server | rmcp 3.11 | modelctx | modelctx vs rmcp | target | met |",
        "|---|---:|---:|---:|---|---|",
    ]
    for metric, label in LABELS.items():
        ours, theirs = results["modelctx"][metric], results["rmcp"][metric]
        figure = "{:,.0f}" if metric == "crates" else "{:,.2f}"
        target = next((t for m, _, _, t in TARGETS if m == metric), "")
        if target:
            shown, met = verdict(metric, ours, theirs)
            met_text = "yes" if met else "**no**"
        else:
            shown, met_text = f"{ours / theirs:.2f}", ""
        lines.append(f"| {label} | {figure.format(theirs)} | {figure.format(ours)} | {shown} | {target} | {met_text} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="spawns of each binary (default 5)")
    parser.add_argument("--markdown", help="also write the section to this file")
    parser.add_argument("--json", help="write the measurements as JSON to this file")
    options = parser.parse_args()
    results = {}
    for side in SIDES:
        print(f"==> first server: building {side} from cold", file=sys.stderr)
        results[side] = build(side)
    runs = {side: [] for side in SIDES}
    for _ in range(options.rounds):
        for side in SIDES:
            runs[side].append(run(results[side]["binary"]))
    for side in SIDES:
        for metric in ("cold_ms", "rss_mib"):
            results[side][metric] = statistics.median(r[metric] for r in runs[side])
        results[side]["runs"] = runs[side]
    section = markdown(results, options.rounds)
    print(section)
    if options.markdown:
        Path(options.markdown).write_text(section)
    if options.json:
        Path(options.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
