#!/usr/bin/env bash
# Runs every check of the project: formatting, lints, and all tests.
# Needs only the Rust toolchain; cargo fetches the crates.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> cargo fmt --check"
cargo fmt --all -- --check

echo "==> cargo clippy (all targets, all features, warnings are errors)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings

echo "==> cargo test (all features)"
cargo test --workspace --all-features --locked
