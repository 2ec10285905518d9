#!/usr/bin/env bash
# Performance, side by side: builds `modelctx` and `modelctx-everything` (the `profiling` profile:
# the release build users get, with symbols) and the three comparison crates in release mode —
# bench/rmcp-server (rmcp from crates.io), bench/limit-server (the hand-written limit) and
# bench/load (`mcp-load`, the neutral load generator), each a workspace with its own lockfile —
# then drives every case of scripts/bench.py with `mcp-load` against modelctx, rmcp and the
# limit, interleaved (3 rounds by default; ROUNDS=5 for more), and rewrites docs/performance.md
# with the medians, per-round ratios and the targets. Takes a few minutes; not part of
# scripts/test.sh (timings are measured, never asserted in tests).
#
# QUICK=1 runs one round of very short windows (to check the script end to end) and writes
# the result to OUT (default /tmp/performance-quick.md) instead of docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile profiling --locked -p modelctx-cli
cargo build --profile profiling --locked -p modelctx-servers --no-default-features --bin modelctx-everything
for crate in rmcp-server limit-server load; do
    CARGO_INCREMENTAL=0 cargo build --release --locked --manifest-path "bench/$crate/Cargo.toml"
done
# The guide's first server on modelctx and on rmcp, each built from cold as a new user builds it.
mkdir -p target
python3 scripts/first_server.py --rounds "${ROUNDS_FIRST_SERVER:-9}" --markdown target/first-server.md
args=(--rounds "${ROUNDS:-3}" --out "${OUT:-docs/performance.md}")
if [[ "${QUICK:-0}" == 1 ]]; then
    args=(--quick --out "${OUT:-/tmp/performance-quick.md}")
fi
exec python3 scripts/bench.py \
    --modelctx target/profiling/modelctx \
    --rmcp bench/rmcp-server/target/release/rmcp-bench-server \
    --limit bench/limit-server/target/release/limit-server \
    --load bench/load/target/release/mcp-load \
    --everything target/profiling/modelctx-everything \
    --first-server target/first-server.md \
    ${WINDOW:+--window "$WINDOW"} "${args[@]}"
