#!/usr/bin/env bash
# The web inspector's pictures in docs/inspector/: the Chromium test that shows every tab with
# something in it saves `tab-NAME.png` under target/inspector/; this runs it and copies them.
# Needs chromium (scripts/packages.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo test --locked -q -p modelctx-cli --test it -- inspector_web::every_tab_is_shown_with_something_in_it
mkdir -p docs/inspector
cp "$TARGET_DIR"/inspector/tab-*.png docs/inspector/
ls docs/inspector
