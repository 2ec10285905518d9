#!/usr/bin/env bash
# The static checks, one after the other in one target directory, so that each reuses what
# the one before it checked: clippy over every target with every feature (warnings are errors),
# the crates packed and the libraries' docs (scripts/package.sh), and the feature matrix
# (scripts/features.sh). Prints each one's time. scripts/test.sh runs it in the background, in
# target/checks, beside the test build and the suites.
set -euo pipefail
cd "$(dirname "$0")/.."
timed() {
    local name=$1 started=$SECONDS
    shift
    echo "==> checks: $name"
    "$@"
    echo "==> checks: $name: done in $((SECONDS - started)) s"
}
timed "cargo clippy (all targets, all features, warnings are errors)" \
    cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
timed "package: the publishable crates packed in dependency order, the libraries' docs with -D warnings" \
    scripts/package.sh
timed "features: modelctx without default features and with each feature alone, every other crate alone (clippy)" \
    scripts/features.sh
