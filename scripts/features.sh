#!/usr/bin/env bash
# The feature matrix of the `modelctx` crate: without default features, and each feature
# alone, the library builds and passes clippy with warnings as errors. Every feature only
# adds (docs/architecture.md, "Features"), so a user compiles only what they run.
set -euo pipefail
cd "$(dirname "$0")/.."
features=$(sed -n '/^\[features\]/,/^\[/p' crates/modelctx/Cargo.toml | grep -oE '^[a-z][a-z0-9-]*' | grep -vx default)
for feature in "" $features; do
    started=$SECONDS
    cargo clippy --locked --quiet -p modelctx --no-default-features ${feature:+--features "$feature"} -- -D warnings
    echo "features: ${feature:-(none)} ok ($((SECONDS - started)) s)"
done
