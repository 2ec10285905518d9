#!/usr/bin/env bash
# Performance, side by side: builds `modelctx` and the rmcp comparison server
# (bench/rmcp-server, rmcp from crates.io, its own lockfile) in release mode, runs every case of
# scripts/bench.py interleaved (A B A B …, 3 rounds by default; ROUNDS=5 for more) and rewrites
# docs/performance.md with the medians, per-round ratios and the targets. Takes a few minutes;
# not part of scripts/test.sh (timings are measured, never asserted in tests).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p modelctx-cli
cargo build --release --locked --manifest-path bench/rmcp-server/Cargo.toml
exec python3 scripts/bench.py \
    --modelctx target/release/modelctx \
    --rmcp bench/rmcp-server/target/release/rmcp-bench-server \
    --rounds "${ROUNDS:-3}" --out docs/performance.md
