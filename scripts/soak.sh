#!/usr/bin/env bash
# The soak test in its full form: 5,000 rounds of mixed requests (answered, cancelled, timed
# out, dropped mid-way, oversized, malformed, not UTF-8) against one server on newline framing
# and HTTP at once; it fails if any request got other than one answer, or if tasks, file
# descriptors or memory are not given back. `scripts/test.sh` runs the bounded smoke (200).
#
#   scripts/soak.sh            5,000 rounds
#   SOAK_ROUNDS=N scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SOAK_ROUNDS=${SOAK_ROUNDS:-5000} CARGO_INCREMENTAL=0 \
    cargo test --profile optimized --locked -p modelctx --all-features --test soak -- --nocapture
