#!/usr/bin/env bash
# Runs every check of the project: formatting, lints, all tests, the guide (built, its
# includes checked, its examples run), interop with the official Python and TypeScript SDK
# clients, the official conformance suite over HTTP, the same suite and the cluster tests
# through three instances behind haproxy sharing Redis, and the instruction count per request
# (valgrind) against the recorded one.
# Needs the Rust toolchain, Python 3, Node 20+ and git; it installs the Debian packages the
# tests start (redis-server, haproxy: scripts/packages.sh), fetches crates (and installs
# mdbook), the pinned PyPI packages
# (into target/interop/venv) and the pinned npm packages (into interop/typescript/node_modules
# and conformance/node_modules, which brings its own Node 22 for the suite).
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-off clean run gains nothing from the incremental cache, which is the largest part of
# target/ (tens of gigabytes over many runs).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
echo "==> disk free where target/ lives: $(df -h --output=avail . | tail -1 | tr -d ' ')"

scripts/packages.sh

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings

echo "==> cargo test (all features)"
cargo test --workspace --all-features --locked

echo "==> traceability: CHECKLIST rows and the tests and suite checks that prove them"
scripts/traceability.py

echo "==> guide: mdbook build, its includes, its examples run"
scripts/guide.sh

echo "==> interop: the official SDK clients against modelctx serve everything"
scripts/interop.sh

echo "==> conformance: the official suite (both revisions) against modelctx serve everything --http"
scripts/conformance.sh

echo "==> gateway: the suite's server scenarios through modelctx gateway fronting serve everything"
scripts/gateway.sh

echo "==> cluster: the suite and the cluster tests through haproxy, three instances, one Redis"
scripts/cluster.sh

echo "==> instructions per request (callgrind), against bench/instructions.json"
scripts/instructions.sh
