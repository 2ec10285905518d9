#!/usr/bin/env bash
# The crates as they would be published: `cargo package` packs every publishable crate of the
# workspace in the order they depend on each other (a crate's dependencies on its siblings
# resolve against the ones just packed), checks its metadata and that its dependencies
# resolve; and the API docs of every crate build with warnings as errors (a broken intra-doc
# link fails), the binary's excepted. VERIFY=1 also builds each packed crate from its archive alone, from cold: the
# proof that nothing it needs lies outside it, at the cost of every crate built again.
set -euo pipefail
cd "$(dirname "$0")/.."
unpublished=(--exclude modelctx-conformance-client --exclude modelctx-fuzz)
verify=--no-verify
[[ ${VERIFY:-0} == 1 ]] && verify=
PACKED=${CARGO_TARGET_DIR:-target}/package
rm -f "$PACKED"/*.crate
cargo package --workspace "${unpublished[@]}" --locked --allow-dirty $verify --quiet
ls "$PACKED"/*.crate | sed 's|^|packed: |'
# The libraries' API docs (the CLI is a binary: its doc comments are its --help text).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace "${unpublished[@]}" --exclude modelctx-cli --no-deps --all-features \
    --locked --quiet
echo "docs: every library's API docs build with warnings as errors"
