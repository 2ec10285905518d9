#!/usr/bin/env bash
# The feature matrix of the `modelctx` crate: without default features, and each feature
# alone, the library builds and passes clippy with warnings as errors. Every feature only
# adds (docs/architecture.md, "Features"), so a user compiles only what they run. Then every
# other crate of the workspace alone, with its own default features.
#
#   scripts/features.sh            every entry, one after the other
#   scripts/features.sh --lane I/N entries I, I+N, I+2N, … (1-based): scripts/checks.sh runs N
#                                  lanes at once, each in a target directory of its own
set -euo pipefail
cd "$(dirname "$0")/.."
lane=1 lanes=1
if [[ ${1:-} == --lane ]]; then
    IFS=/ read -r lane lanes <<<"${2:?--lane I/N}"
fi

# Each entry: a name, then the arguments of `cargo clippy` after `--locked --quiet`.
entries=()
entry() { entries+=("$(printf '%q ' "$@")"); }

features=$(sed -n '/^\[features\]/,/^\[/p' crates/modelctx/Cargo.toml | grep -oE '^[a-z][a-z0-9-]*' | grep -vx default)
entry "(none)" -p modelctx --no-default-features
for feature in $features; do
    entry "$feature" -p modelctx --no-default-features --features "$feature"
done
# The experimental extensions' code that needs a transport too (a card served over HTTP,
# fetched by the HTTP client; HTTP over stdio served and spawned).
for pair in experimental,http-server experimental,http-client stdio-v2,http-server stdio-v2,http-client; do
    entry "$pair" -p modelctx --no-default-features --features "$pair"
done
# The library's own tests with the default features, as `cargo test -p modelctx` builds them for
# a user: a test that needs a feature says so. Checked here (clippy, no code generated); they run
# with every feature in the test stage, and `cargo test -p modelctx --lib` runs them this way.
entry "modelctx's unit tests with the default features" -p modelctx --lib --tests
# Every other crate of the workspace alone, with its own default features: what it asks of
# modelctx is all it gets (a build of the whole workspace unifies features and would hide a
# missing one).
members=$(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json, sys; print(*(p["name"] for p in json.load(sys.stdin)["packages"] if p["name"] != "modelctx"))')
for member in $members; do
    entry "$member with its default features" -p "$member"
done

for ((i = lane - 1; i < ${#entries[@]}; i += lanes)); do
    eval "set -- ${entries[i]}"
    name=$1
    shift
    started=$SECONDS
    cargo clippy --locked --quiet "$@" -- -D warnings
    echo "features: $name ok ($((SECONDS - started)) s)"
done
