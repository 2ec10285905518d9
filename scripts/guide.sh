#!/usr/bin/env bash
# Builds the guide (docs/guide, mdBook) and proves its code: every Rust block is included
# from a program under crates/modelctx/examples/ (or one of the rmcp servers under bench/),
# each include must name a file and an anchor that exist, and the guide's examples must run;
# every Rust block of docs/*.md is a verbatim quote of a compiled file (scripts/quotes.py).
# `cargo test` compiles the examples; this script runs them (built first when missing).
#
# The rmcp programs the migration chapter quotes (bench/first-server/rmcp, bench/rmcp-server)
# are workspaces of their own, which `cargo test` does not build: they are checked here
# (`cargo check`, in a target directory they share; at once when already checked).
#
# Installs mdbook (pinned, without its server features, unoptimized: it renders this book in a
# moment either way, and builds in a fraction of the time) into ~/.cargo/bin when it is missing.
#
#   scripts/guide.sh             all of it
#   scripts/guide.sh --prepare   only install mdbook   } scripts/test.sh runs these two in the
#   scripts/guide.sh --rmcp      only check the rmcp   } background (the second with the static
#                                programs             } checks),
#   scripts/guide.sh --book      the rest              } and this one as its guide stage
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
part=${1:-all}

if [[ $part == all || $part == --prepare ]] && [[ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]]; then
    echo "==> guide: installing mdbook $MDBOOK_VERSION"
    # Not through scripts/test.sh's clippy driver, which lints the workspace's crates only.
    CARGO_INCREMENTAL=0 env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --debug --quiet
fi
if [[ $part == all || $part == --rmcp ]]; then
    echo "==> guide: the rmcp programs it quotes compile"
    for program in bench/first-server/rmcp bench/rmcp-server; do
        CARGO_TARGET_DIR=$TARGET_DIR/rmcp-quoted env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
            cargo check --locked --quiet --manifest-path "$program/Cargo.toml"
    done
fi
[[ $part == all || $part == --book ]] || exit 0

echo "==> guide: every include names a file and an anchor that exist"
status=0
while IFS= read -r line; do
    page=${line%%:*}
    spec=$(sed -E 's/.*\{\{#include ([^}]*)\}\}.*/\1/' <<<"${line#*:}")
    file=${spec%%:*}
    anchor=${spec#*:}
    path="$(dirname "$page")/$file"
    if [[ ! -f $path ]]; then
        echo "guide: $page includes $file, which does not exist" >&2
        status=1
    elif [[ $anchor != "$spec" ]] && ! grep -q "ANCHOR: $anchor\$" "$path"; then
        echo "guide: $page includes anchor '$anchor' of $file, which has no such anchor" >&2
        status=1
    fi
done < <(grep -H '{{#include ' docs/guide/src/*.md)
((status == 0)) || exit 1

echo "==> guide: every Rust block of docs/*.md quotes a file the build compiles"
scripts/quotes.py

echo "==> guide: mdbook build"
mdbook build docs/guide

echo "==> guide: the examples run"
scripts/build.sh
EXAMPLES=$TARGET_DIR/debug/examples
for example in guide_primitives guide_asking guide_testing guide_axum guide_authorization guide_experimental middleware; do
    echo "--- $example"
    timeout 60 "$EXAMPLES/$example"
done
# Checks that the stdio example `$2`, driven by `modelctx tools call` with the arguments after
# it (a tool and its arguments), answers `$1`.
answers() {
    local expected=$1 example=$2 answer
    shift 2
    echo "--- $example (driven by modelctx tools call $*)"
    answer=$(timeout 60 "$TARGET_DIR/debug/modelctx" tools call "$@" -- "$EXAMPLES/$example")
    [[ $answer == "$expected" ]] || { echo "guide: $example answered: $answer" >&2; exit 1; }
    echo "$answer"
}
answers "Hello, Ada!" guide_first_server greet name=Ada
answers "Hello, Ada!" guide_stateful greet name=Ada
answers "greet now says Welcome" guide_stateful set_greeting greeting=Welcome
