#!/usr/bin/env bash
# The main job, until the CLI can drive a live server: route a dual-era transcript through
# the era router and the typed wire, as a dual-era stdio server would.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --locked -p modelctx-cli -- route examples/dual-era-transcript.jsonl
