#!/usr/bin/env bash
# Builds every binary, example and test of the workspace once, with the one feature set every
# check uses (all features, as `cargo test` resolves them): the binaries the scripts run
# (target/debug/modelctx, modelctx-everything, the conformance client) are the ones the tests
# ran, and a script after the test stage builds nothing again.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout --foreground -k 10 1800 cargo test --workspace --all-features --locked --no-run --quiet "$@"
