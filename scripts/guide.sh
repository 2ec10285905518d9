#!/usr/bin/env bash
# Builds the guide (docs/guide, mdBook) and proves its code: every Rust block is included
# from a program under crates/modelctx/examples/ (or the rmcp comparison server), each include
# must name a file and an anchor that exist, and the guide's examples must run. `cargo test`
# compiles the examples; this script runs them (built first when missing).
#
# Installs mdbook (pinned, without its server features) into ~/.cargo/bin when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
MDBOOK_VERSION=0.5.4
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

if [[ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]]; then
    echo "==> guide: installing mdbook $MDBOOK_VERSION"
    CARGO_INCREMENTAL=0 cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --quiet
fi

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

echo "==> guide: mdbook build"
mdbook build docs/guide

echo "==> guide: the examples run"
scripts/build.sh
EXAMPLES=$TARGET_DIR/debug/examples
for example in guide_primitives guide_asking guide_testing guide_axum guide_authorization middleware; do
    echo "--- $example"
    timeout 60 "$EXAMPLES/$example"
done
echo "--- guide_first_server (driven by modelctx tools call)"
greeting=$(timeout 60 "$TARGET_DIR/debug/modelctx" tools call greet name=Ada -- "$EXAMPLES/guide_first_server")
[[ $greeting == "Hello, Ada!" ]] || { echo "guide: the first server answered: $greeting" >&2; exit 1; }
echo "$greeting"
