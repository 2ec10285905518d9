#!/usr/bin/env bash
# The main job: start the bundled `everything` reference server and drive it over stdio in
# both protocol eras, then show how the era router judges a mixed transcript.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --locked -p modelctx-cli
modelctx=target/debug/modelctx

echo "== modelctx serve everything, driven over stdio (examples/everything-session.jsonl)"
echo "   2026-07-28 requests carry _meta; then a 2025-11-25 client initializes on the same stream"
echo
RUST_LOG=warn "$modelctx" serve everything < examples/everything-session.jsonl | while IFS= read -r line; do
  printf '  <- %s\n' "$line"
done

echo
echo "== modelctx route: the era router's verdict on each message of a dual-era transcript"
echo
"$modelctx" route examples/dual-era-transcript.jsonl
