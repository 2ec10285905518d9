#!/usr/bin/env bash
# The static checks, in two lanes at once (a machine of two cores finishes them in half the
# time), each lane one check after the other in a target directory of its own, so that each
# reuses what the one before it checked:
#   1. the crates packed and the libraries' docs (scripts/package.sh), half of the feature matrix
#      (scripts/features.sh);
#   2. the rmcp programs the guide quotes (scripts/guide.sh --rmcp), the other half of the matrix.
# Prints each one's time. scripts/test.sh runs it in the background, in target/checks (and
# target/checks-b), beside the tests and the suites; clippy over every target with every feature
# rides on its test build (scripts/test.sh). Run alone, `cargo clippy --workspace --all-targets
# --all-features -- -D warnings` is that check.
set -euo pipefail
cd "$(dirname "$0")/.."
timed() {
    local name=$1 started=$SECONDS
    shift
    echo "==> checks: $name"
    "$@"
    echo "==> checks: $name: done in $((SECONDS - started)) s"
}
first_lane() {
    timed "package: the publishable crates packed in dependency order, the libraries' docs with -D warnings" \
        scripts/package.sh
    timed "features, lane 1 of 2: modelctx without default features and with each feature alone, every other crate alone (clippy)" \
        scripts/features.sh --lane 1/2
}
second_lane() {
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}-b
    timed "the rmcp programs the guide quotes compile" scripts/guide.sh --rmcp
    timed "features, lane 2 of 2" scripts/features.sh --lane 2/2
}
# Each lane in the background, so that a failed check ends its lane (errexit holds there).
first_lane &
first=$!
second_lane &
second=$!
status=0
wait "$first" || status=1
wait "$second" || status=1
exit "$status"
