#!/usr/bin/env bash
# The feature matrix of the `modelctx` crate: without default features, and each feature
# alone, the library builds and passes clippy with warnings as errors. Every feature only
# adds (docs/architecture.md, "Features"), so a user compiles only what they run. Then every
# other crate of the workspace alone, with its own default features.
set -euo pipefail
cd "$(dirname "$0")/.."
features=$(sed -n '/^\[features\]/,/^\[/p' crates/modelctx/Cargo.toml | grep -oE '^[a-z][a-z0-9-]*' | grep -vx default)
for feature in "" $features; do
    started=$SECONDS
    cargo clippy --locked --quiet -p modelctx --no-default-features ${feature:+--features "$feature"} -- -D warnings
    echo "features: ${feature:-(none)} ok ($((SECONDS - started)) s)"
done

# The library's own tests with the default features, as `cargo test -p modelctx` builds them for
# a user: a test that needs a feature says so. Checked here (clippy, no code generated); they run
# with every feature in the test stage, and `cargo test -p modelctx --lib` runs them this way.
# The experimental extensions' code that needs a transport too (a card served over HTTP,
# fetched by the HTTP client; HTTP over stdio served and spawned).
for pair in experimental,http-server experimental,http-client stdio-v2,http-server stdio-v2,http-client; do
    started=$SECONDS
    cargo clippy --locked --quiet -p modelctx --no-default-features --features "$pair" -- -D warnings
    echo "features: $pair ok ($((SECONDS - started)) s)"
done

started=$SECONDS
cargo clippy --locked --quiet -p modelctx --lib --tests -- -D warnings
echo "features: modelctx's unit tests with the default features ok ($((SECONDS - started)) s)"

# Every other crate of the workspace alone, with its own default features: what it asks of
# modelctx is all it gets (a build of the whole workspace unifies features and would hide a
# missing one).
members=$(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json, sys; print(*(p["name"] for p in json.load(sys.stdin)["packages"] if p["name"] != "modelctx"))')
for member in $members; do
    started=$SECONDS
    cargo clippy --locked --quiet -p "$member" -- -D warnings
    echo "features: $member with its default features ok ($((SECONDS - started)) s)"
done
