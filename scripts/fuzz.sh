#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ under libFuzzer, FUZZ_SECONDS each (default 60), starting
# from its committed corpus (fuzz/corpus/TARGET). New inputs libFuzzer finds go to
# target/fuzz/corpus/TARGET, a crash to fuzz/libfuzzer/artifacts/TARGET/; copy a crash into
# the target's corpus to keep it as a regression test (`cargo test -p modelctx-fuzz` runs the
# corpus, and mutations of it, in CI).
#
#   scripts/fuzz.sh                 # every target
#   scripts/fuzz.sh envelope glob   # some
#   scripts/fuzz.sh --build         # only build them all (scripts/test.sh does, in the background)
#
# scripts/test.sh runs every target for FUZZ_SECONDS=5 (a bounded run in CI); a finding there
# fails the run.
#
# Stable Rust: libFuzzer's coverage instrumentation without a sanitizer (`--sanitizer none`;
# the address sanitizer needs a nightly toolchain). Installs cargo-fuzz when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
FUZZ_DIR=fuzz/libfuzzer
TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "==> installing cargo-fuzz"
    CARGO_INCREMENTAL=0 cargo install cargo-fuzz --locked
fi

if [ "${1:-}" = "--build" ]; then
    CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$TARGET_DIR/fuzz/build" cargo fuzz build --fuzz-dir "$FUZZ_DIR" \
        --sanitizer none
    exit 0
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo fuzz list --fuzz-dir "$FUZZ_DIR")
fi

for target in "${targets[@]}"; do
    echo "==> fuzz $target for ${SECONDS_EACH}s"
    found="$TARGET_DIR/fuzz/corpus/$target"
    mkdir -p "$found"
    CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$TARGET_DIR/fuzz/build" cargo fuzz run --fuzz-dir "$FUZZ_DIR" \
        --sanitizer none "$target" "$found" "fuzz/corpus/$target" -- \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
done
