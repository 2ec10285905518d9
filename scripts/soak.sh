#!/usr/bin/env bash
# The soak in its full form, two parts:
#   1. 5,000 rounds of mixed requests (answered, cancelled, timed out, dropped mid-way,
#      oversized, malformed, not UTF-8) against one server on newline framing and HTTP at once,
#      in process (crates/modelctx/tests/soak.rs): any request with other than one answer, or
#      tasks, file descriptors or memory not given back, fails it;
#   2. an hour of `modelctx serve everything` as child processes, on HTTP and on stdio, under a
#      steady mix (reconnecting clients, calls dropped mid-way, tasks followed or cancelled,
#      legacy sessions ended or left to expire, listen streams, stdio cancellations, short-lived
#      stdio servers; crates/modelctx-cli/tests/it/soak.rs): every request answered, and each
#      server's resident memory flat (the second half of the run within 8 MiB of the first) and
#      its file descriptors back where they started.
# `cargo test` runs 200 rounds of the first; `scripts/test.sh` runs one minute of the second
# (--short, SOAK_SECONDS=60, with the binaries it already built).
#
#   scripts/soak.sh                     both, in release mode (5,000 rounds, an hour)
#   SOAK_ROUNDS=N SOAK_SECONDS=S scripts/soak.sh
#   scripts/soak.sh --short             the second only, SOAK_SECONDS (default 120), debug build
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --short ]]; then
    SOAK_SECONDS=${SOAK_SECONDS:-120} timeout --foreground -k 10 $((${SOAK_SECONDS:-120} + 300)) \
        cargo test --locked --workspace --all-features --test it -- --ignored soak:: --nocapture
    exit
fi
export CARGO_INCREMENTAL=0
SOAK_ROUNDS=${SOAK_ROUNDS:-5000} \
    cargo test --profile optimized --locked -p modelctx --all-features --test soak -- --nocapture
SOAK_SECONDS=${SOAK_SECONDS:-3600} \
    cargo test --profile optimized --locked -p modelctx-cli --all-features --test it -- --ignored soak:: --nocapture
