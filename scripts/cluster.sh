#!/usr/bin/env bash
# A real deployment on this machine, checked end to end: `redis-server` (its own data
# directory, AOF on, a loopback port) and three `modelctx serve everything --http --redis`
# instances behind `haproxy`, round robin with no stickiness. Through the balancer:
#   1. the official conformance suite's server scenarios of 2025-11-25 and 2026-07-28, and
#      the extensions' (scripts/conformance.sh with CONFORMANCE_URL);
#   2. the cluster tests of crates/modelctx-cli/tests/cluster/: a legacy session spread over
#      instances (requests, GET stream, an elicitation answered on another instance), a change
#      on one instance heard by listeners on another, an instance killed mid-task (last);
#   3. the same suite through two `modelctx gateway --redis` instances behind a second haproxy,
#      each fronting its own `serve everything` (a gateway deployment scaled out), and their
#      rate limit held across both (tests/cluster: gateway_instances_share_their_rate_limits);
#   4. chaos under load (tests/cluster/chaos.rs): with every instance up again, a steady mix of
#      quick and slow calls, legacy sessions, tasks and listen streams while this script kills
#      an instance (SIGKILL), starts it again, and stops and starts Redis (SIGTERM, AOF kept);
#      the test checks that nothing acknowledged was lost and prints what clients saw.
# Prints how long each step took. Everything binds 127.0.0.1 and is stopped on exit.
#
#   scripts/cluster.sh                            every step
#   scripts/cluster.sh chaos                      only the named steps (conformance, tests, gateway, chaos)
#   MODELCTX_CHAOS_SCALE=4 scripts/cluster.sh     chaos with four times the workers
#
# Installs the Debian packages redis-server and haproxy when missing (scripts/packages.sh). Logs and results: target/cluster/ (under CARGO_TARGET_DIR if set).
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=" ${*:-conformance tests gateway chaos} "
for step in $STEPS; do
    [[ " conformance tests gateway chaos " == *" $step "* ]] || { echo "cluster: no step '$step' (conformance, tests, gateway, chaos)" >&2; exit 2; }
done
# wanted STEP: whether STEP is to run.
wanted() { [[ $STEPS == *" $1 "* ]]; }
ROOT=$PWD
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$ROOT/$TARGET_DIR ;; esac
OUT=$TARGET_DIR/cluster
STARTUP_TIMEOUT=30

die() {
    echo "cluster: $*" >&2
    exit 1
}

# --- what the cluster runs on ----------------------------------------------------------------------
scripts/packages.sh
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)

echo "==> cluster: scripts/build.sh (the binary and the cluster tests)"
scripts/build.sh
BIN=$TARGET_DIR/debug/modelctx

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- start: Redis, three instances, the balancer; all stopped on exit -------------------------------
rm -rf "$OUT"
mkdir -p "$OUT/redis"
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    sleep 0.3
    for pid in "${PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

started=$SECONDS
REDIS_PORT=$(free_port)
REDIS_URL=redis://127.0.0.1:$REDIS_PORT
# start_redis LOG: on REDIS_PORT, its data (AOF) kept in $OUT/redis across restarts.
start_redis() {
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$OUT/redis" --appendonly yes --save "" \
        --protected-mode yes >"$1" 2>&1 &
    REDIS_PID=$!
    PIDS+=("$REDIS_PID")
}
start_redis "$OUT/redis.log"

# wait_for FILE PATTERN WHAT: until FILE holds a line matching PATTERN (bounded)
wait_for() {
    local deadline=$((SECONDS + STARTUP_TIMEOUT))
    until grep -qaE "$2" "$1" 2>/dev/null; do
        ((SECONDS < deadline)) || { tail -n 20 "$1" >&2; die "$3 did not start within ${STARTUP_TIMEOUT} s"; }
        sleep 0.1
    done
}
wait_for "$OUT/redis.log" 'Ready to accept connections' "redis-server"

declare -A INSTANCE_PID INSTANCE_ADDRESS
# launch NAME ADDRESS ARGS…: `modelctx ARGS… --http ADDRESS --redis REDIS_URL`, its log in
# $OUT/NAME.log (NAME.2.log when started again, and so on); its pid and the address it bound in
# INSTANCE_PID and INSTANCE_ADDRESS.
launch() {
    local name=$1 address=$2 log=$OUT/$1.log life=1
    shift 2
    while [[ -e $log ]]; do
        life=$((life + 1))
        log=$OUT/$name.$life.log
    done
    "$BIN" "$@" --http "$address" --redis "$REDIS_URL" </dev/null >"$log" 2>&1 &
    INSTANCE_PID[$name]=$!
    PIDS+=("$!")
    wait_for "$log" 'listening on http://127\.0\.0\.1:[0-9]+/mcp' "instance $name"
    address=$(grep -m1 -aoE 'listening on http://127\.0\.0\.1:[0-9]+' "$log")
    INSTANCE_ADDRESS[$name]=${address#listening on http://}
}
# start_instance NAME [ADDRESS]: serve everything on ADDRESS (a free port when not given).
start_instance() {
    launch "$1" "${2:-127.0.0.1:0}" serve everything
}
# server_lines NAME…: the instances' lines of a balancer's backend.
server_lines() {
    local name
    for name in "$@"; do
        echo "    server $name ${INSTANCE_ADDRESS[$name]} check inter 500ms fall 2 rise 1"
    done
}
# balance NAME SERVERS: haproxy round robin over SERVERS (server_lines), no stickiness, on a
# free port; its URL in BALANCED_URL once it answers.
balance() {
    local name=$1 servers=$2 port
    port=$(free_port)
    cat >"$OUT/$name.cfg" <<CFG
global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 10s
    # A request whose instance is gone goes to another (connection refused is safe to retry).
    option redispatch
    retries 3
frontend mcp
    bind 127.0.0.1:$port
    default_backend instances
backend instances
    # Each request to the next instance, whatever session it belongs to: no stickiness.
    balance roundrobin
    http-response set-header X-Served-By %[srv_name]
$servers
CFG
    "$HAPROXY" -f "$OUT/$name.cfg" -db >"$OUT/$name.log" 2>&1 &
    PIDS+=($!)
    BALANCED_URL=http://127.0.0.1:$port/mcp
    local deadline=$((SECONDS + STARTUP_TIMEOUT))
    until curl -s -o /dev/null "$BALANCED_URL" 2>/dev/null; do
        ((SECONDS < deadline)) || { cat "$OUT/$name.log" >&2; die "haproxy ($name) did not listen within ${STARTUP_TIMEOUT} s"; }
        sleep 0.1
    done
}
for name in i1 i2 i3; do
    start_instance "$name"
done
balance haproxy "$(server_lines i1 i2 i3)"
URL=$BALANCED_URL
echo "==> cluster: redis $REDIS_URL, instances i1 i2 i3, balancer $URL (up in $((SECONDS - started)) s)"

# --- 1. the conformance suite through the balancer ---------------------------------------------
status=0
if wanted conformance; then
    step=$SECONDS
    CONFORMANCE_URL=$URL CONFORMANCE_OUT=$OUT/conformance scripts/conformance.sh || status=1
    echo "==> cluster: conformance through the balancer took $((SECONDS - step)) s"
fi

# --- 2. the cluster tests ------------------------------------------------------------------------
if wanted tests; then
    step=$SECONDS
    instances=""
    for name in i1 i2 i3; do
        instances+="$name=${INSTANCE_PID[$name]} "
    done
    if MODELCTX_CLUSTER_URL=$URL MODELCTX_CLUSTER_INSTANCES=$instances \
        timeout --foreground -k 10 600 cargo test --locked -q --workspace --all-features --test cluster -- \
        --ignored --skip chaos --skip gateway_ --test-threads=1 --nocapture 2>&1 | tee "$OUT/tests.log"; then
        :
    else
        status=1
    fi
    grep -q '^test result: ok' "$OUT/tests.log" || status=1
    echo "==> cluster: the cluster tests took $((SECONDS - step)) s"
fi

# --- 3. two gateways behind a balancer -------------------------------------------------------------
# Each gateway runs its own `serve everything` (stdio, no prefix); they share sessions, tasks,
# requestState keys and rate-limit budgets through the same Redis (the suite calls no `add`).
if wanted gateway; then
    step=$SECONDS
    cat >"$OUT/gateway.json" <<JSON
{"mcpServers": {"everything": {"command": "$BIN", "args": ["serve", "everything"], "prefix": ""}},
 "rateLimits": [{"name": "adds", "tools": ["add"], "calls": 5, "perMs": 600000}]}
JSON
    for name in g1 g2; do
        launch "$name" 127.0.0.1:0 gateway --config "$OUT/gateway.json" --no-auth
    done
    balance haproxy-gateways "$(server_lines g1 g2)"
    CONFORMANCE_URL=$BALANCED_URL CONFORMANCE_OUT=$OUT/gateway-conformance scripts/conformance.sh || status=1
    if MODELCTX_CLUSTER_URL=$BALANCED_URL timeout --foreground -k 10 300 cargo test --locked -q --workspace \
        --all-features --test cluster -- --ignored gateway_ --nocapture 2>&1 | tee "$OUT/gateway-tests.log"; then
        :
    else
        status=1
    fi
    grep -q '^test result: ok. 1 passed' "$OUT/gateway-tests.log" || status=1
    echo "==> cluster: the suite and the shared rate limit through two gateways behind the balancer took $((SECONDS - step)) s"
fi

# --- 4. chaos under load ---------------------------------------------------------------------------
if wanted chaos; then
    step=$SECONDS
    for name in i1 i2 i3; do
        if ! kill -0 "${INSTANCE_PID[$name]}" 2>/dev/null; then
            start_instance "$name" "${INSTANCE_ADDRESS[$name]}"
        fi
    done
    sleep 1.5 # the balancer's health check sees them up (inter 500ms, rise 1)
    EVENTS=$OUT/chaos.events
    : >"$EVENTS"
    event() {
        echo "$(date +%s%3N) $1" >>"$EVENTS"
        echo "==> cluster: chaos: $1"
    }
    MODELCTX_CLUSTER_URL=$URL MODELCTX_CHAOS_EVENTS=$EVENTS \
        timeout --foreground -k 10 400 cargo test --locked -q --workspace --all-features --test cluster -- \
        --ignored chaos --nocapture >"$OUT/chaos.log" 2>&1 &
    chaos=$!
    wait_for "$OUT/chaos.log" 'chaos: load running' "the chaos load"
    sleep 4
    event kill # written first: what the kill cuts ends after it
    kill -KILL "${INSTANCE_PID[i2]}"
    sleep 5
    start_instance i2 "${INSTANCE_ADDRESS[i2]}"
    event "instance back"
    sleep 5
    event "redis stop"
    kill -TERM "$REDIS_PID" # a clean stop: its AOF written out
    wait "$REDIS_PID" 2>/dev/null || true
    sleep 3
    start_redis "$OUT/redis-again.log"
    wait_for "$OUT/redis-again.log" 'Ready to accept connections' "redis-server again"
    event "redis back"
    sleep 10
    event end
    if wait "$chaos" && grep -q '^test result: ok' "$OUT/chaos.log"; then
        grep -a '^chaos:' "$OUT/chaos.log"
    else
        cat "$OUT/chaos.log"
        status=1
    fi
    echo "==> cluster: chaos under load took $((SECONDS - step)) s"
fi
echo "cluster: $( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - started)) s; logs: $OUT"
exit "$status"
