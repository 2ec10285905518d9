#!/usr/bin/env bash
# The web inspector's pictures in docs/inspector/: the Chromium tests that show every tab with
# something in it (the Connect tab with three servers open, the Performance tab after a benchmark) save `tab-NAME.png` under
# target/inspector/, and those of an MCP App and an OAuth login save `app-clock.png` and
# `oauth-logged-in.png`; this runs them and copies the pictures.
# Needs chromium (scripts/packages.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo test --locked -q -p modelctx-cli --test it -- inspector_web::every_tab_is_shown_with_something_in_it \
    inspector_web::the_page_connects_to_several_servers_in_either_era \
    inspector_web::the_performance_tab_charts_latency_and_runs_a_benchmark \
    inspector_protocol::an_app_is_framed_sandboxed_and_its_tool_calls_go_through_the_page \
    inspector_protocol::an_oauth_login_step_by_step_then_a_connection_that_uses_its_tokens
mkdir -p docs/inspector
cp "$TARGET_DIR"/inspector/tab-*.png "$TARGET_DIR"/inspector/app-clock.png "$TARGET_DIR"/inspector/oauth-logged-in.png docs/inspector/
ls docs/inspector
