#!/usr/bin/env bash
# Runs every check of the project: formatting, lints (clippy, as the tests build), all tests, the guide (built, its
# includes checked, its examples run), interop with the official Python and TypeScript SDK
# clients, the official conformance suite over HTTP, the same suite and the cluster tests
# through three instances behind haproxy sharing Redis (and the suite through two gateways so), the instruction count per request
# (valgrind) against the recorded one, and a bounded soak; and the feature matrix of the
# `modelctx` crate. (The fuzz targets run over their corpora and mutations in `cargo test`;
# `scripts/fuzz.sh` runs them under libFuzzer, and `scripts/soak.sh` the soak in full.) Prints
# each stage's time, and a summary of them at the end; and the crates packed as published
# (scripts/package.sh).
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
# Clippy rides on the test build: its driver compiles the workspace's own crates — every target
# (libraries, binaries, tests, examples) with every feature, what `cargo clippy --all-targets
# --all-features` checks — as rustc would, and denies its warnings. One pass instead of a test
# build and a separate check of the same code (five minutes of a cold run's two cores). Every
# cargo command below inherits it, so that they all reuse that one build; a plain `cargo test`
# afterwards compiles the workspace's crates again (not their dependencies).
export RUSTC_WORKSPACE_WRAPPER=${RUSTC_WORKSPACE_WRAPPER-$(command -v clippy-driver || true)}
export CLIPPY_ARGS=${CLIPPY_ARGS-"-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"}
[[ -n $RUSTC_WORKSPACE_WRAPPER ]] || { echo "==> clippy-driver is missing: rustup component add clippy" >&2; exit 1; }
echo "==> disk free where target/ lives: $(df -h --output=avail . | tail -1 | tr -d ' ')"

# stage NAME COMMAND…: runs one check, timed; the times are summed up at the end.
stage_times=()
stage() {
    local name=$1 started=$SECONDS
    shift
    echo "==> $name"
    "$@"
    local took=$((SECONDS - started))
    stage_times+=("$(printf '%5d s  %s' "$took" "$name")")
    echo "==> $name: done in ${took} s"
}

# The CPU-heavy work of other stages — the static checks (scripts/checks.sh: the packed crates
# and the docs, the feature matrix and the rmcp programs the guide quotes, in two
# lanes with target directories of their own so that they never wait on the test build's lock),
# mdbook for the guide, the optimized bench server for the instruction counts — runs in the
# background at a low priority, in the CPU time the tests and the suites leave idle; their
# stages wait for them. It starts once the test build is done: on a fresh machine of two cores
# the test build is the longest step every later stage waits on, and work beside it only slowed
# it (a cold run took 15 minutes for the test stage with it, 9 without). The optimized server and
# mdbook come first (nice 10): stages wait on them sooner than on the static checks (nice 19).
mkdir -p target
declare -A preparing=()
prepare() {
    local name=$1 niceness=$2
    shift 2
    nice -n "$niceness" "$@" >"target/prepare-$name.log" 2>&1 &
    preparing[$name]=$!
}
# A failed check ends the run: the preparations still going end with it.
trap 'kill "${preparing[@]}" 2>/dev/null || true' EXIT
# prepared NAME: waits for the preparation NAME; prints its log and fails when it failed.
prepared() {
    local name=$1 started=$SECONDS
    if ! wait "${preparing[$name]}"; then
        cat "target/prepare-$name.log" >&2
        echo "==> preparing $name failed" >&2
        return 1
    fi
    echo "==> $name prepared in the background (waited $((SECONDS - started)) s for it)"
}
# The Debian packages the tests start (apt-get: the network and dpkg, little CPU) are installed
# from the start; the test stage waits for them.
prepare packages 0 scripts/packages.sh
prepare_the_rest() {
    prepare instructions 10 scripts/instructions.sh --build
    prepare mdbook 10 scripts/guide.sh --prepare
    prepare checks 19 env CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/checks" scripts/checks.sh
}

stage "cargo fmt --check" cargo fmt --all -- --check
stage "packages (Debian packages the tests start, installed in the background)" prepared packages
# The leak test (10,000 idle peers of each kind: two minutes of one core) runs beside the other
# tests rather than after them: its binary is started directly (a second cargo would wait on the
# first one's lock), and the other binaries skip it.
MEMORY_TEST=idle_peers_cost_what_docs_say_and_leave_nothing_behind
# The macros' compile-fail tests compare rustc's own words, which the clippy driver prints
# otherwise (paths in full): their binary runs by itself, without the driver, after the others.
TRYBUILD_TEST=tests::misuse_fails_to_compile_with_a_message_that_says_why
# test_binary PACKAGE TARGET CARGO-ARGS…: the path of the test executable of TARGET (built).
test_binary() {
    local package=$1 target=$2
    shift 2
    cargo test -p "$package" --all-features --locked --no-run --message-format=json "$@" 2>/dev/null |
        python3 -c '
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable") and message["target"]["name"] == sys.argv[1]:
        print(message["executable"])' "$target"
}
cargo_test() {
    cargo test --workspace --all-features --locked --no-run --quiet
    prepare_the_rest
    local memory macros
    memory=$(test_binary modelctx memory --test memory)
    macros=$(test_binary modelctx-macros modelctx_macros --lib)
    [[ -n $memory && -n $macros ]] || { echo "==> the leak test's or the macros' test binary was not found" >&2; return 1; }
    (cd crates/modelctx && "$memory" --exact "$MEMORY_TEST" --nocapture) >target/memory-test.log 2>&1 &
    local memory_pid=$! status=0
    cargo test --workspace --all-features --locked -- --skip "$MEMORY_TEST" --skip "$TRYBUILD_TEST" || status=1
    # As cargo runs it: in its crate's directory, with its manifest's variables and the toolchain's
    # libraries (a proc-macro crate's tests link the standard library dynamically).
    (cd crates/modelctx-macros && env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS CARGO_MANIFEST_DIR="$PWD" \
        CARGO_PKG_NAME=modelctx-macros LD_LIBRARY_PATH="$(rustc --print target-libdir)" \
        "$macros" --exact "$TRYBUILD_TEST") || status=1
    wait "$memory_pid" || status=1
    echo "==> the leak test ($MEMORY_TEST), run beside the others:"
    cat target/memory-test.log
    return "$status"
}
stage "cargo test (all features; clippy's lints as the workspace's crates build; the leak test beside the others)" cargo_test
binaries=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
print(sum(t["kind"] == ["test"] for p in json.load(sys.stdin)["packages"] for t in p["targets"]))')
echo "==> integration-test binaries in the workspace: $binaries"
stage "traceability: CHECKLIST rows and the tests and suite checks that prove them" scripts/traceability.py
stage "interop: the official SDK clients against modelctx serve everything" scripts/interop.sh
stage "conformance: the official suite (both revisions) against modelctx serve everything --http" \
    scripts/conformance.sh
stage "gateway: the suite's server scenarios through modelctx gateway fronting serve everything" scripts/gateway.sh
stage "cluster: the suite and the cluster tests through haproxy, three instances (and two gateways), one Redis" scripts/cluster.sh
guide() { prepared mdbook && scripts/guide.sh --book; }
stage "guide: mdbook build, its includes, its examples run" guide
instructions() { prepared instructions && scripts/instructions.sh; }
stage "instructions per request (callgrind), against bench/instructions.json" instructions
stage "soak: serve everything on HTTP and stdio under mixed load for SOAK_SECONDS (60), memory and descriptors flat" \
    env SOAK_SECONDS="${SOAK_SECONDS:-60}" scripts/soak.sh --short

checks() { prepared checks && grep -E '^(==>|features:)' target/prepare-checks.log; }
stage "static checks, in the background: the crates packed and their docs, the feature matrix, the rmcp programs the guide quotes" checks

echo "==> stage times"
printf '%s\n' "${stage_times[@]}"
echo "==> all checks passed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
