#!/usr/bin/env bash
# A real deployment on this machine, checked end to end: `redis-server` (its own data
# directory, AOF on, a loopback port) and three `modelctx serve everything --http --redis`
# instances behind `haproxy`, round robin with no stickiness. Through the balancer:
#   1. the official conformance suite's server scenarios of 2025-11-25 and 2026-07-28, and
#      the extensions' (scripts/conformance.sh with CONFORMANCE_URL);
#   2. the cluster tests of crates/modelctx-cli/tests/cluster.rs: a legacy session spread over
#      instances (requests, GET stream, an elicitation answered on another instance), a change
#      on one instance heard by listeners on another, an instance killed mid-task (last).
# Prints how long each step took. Everything binds 127.0.0.1 and is stopped on exit.
#
#   scripts/cluster.sh
#
# Installs the Debian packages redis-server and haproxy when missing (scripts/packages.sh). Logs and results: target/cluster/ (under CARGO_TARGET_DIR if set).
set -euo pipefail
cd "$(dirname "$0")/.."
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
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$OUT/redis" --appendonly yes --save "" \
    --protected-mode yes >"$OUT/redis.log" 2>&1 &
PIDS+=($!)
REDIS_URL=redis://127.0.0.1:$REDIS_PORT

# wait_for FILE PATTERN WHAT: until FILE holds a line matching PATTERN (bounded)
wait_for() {
    local deadline=$((SECONDS + STARTUP_TIMEOUT))
    until grep -qaE "$2" "$1" 2>/dev/null; do
        ((SECONDS < deadline)) || { tail -n 20 "$1" >&2; die "$3 did not start within ${STARTUP_TIMEOUT} s"; }
        sleep 0.1
    done
}
wait_for "$OUT/redis.log" 'Ready to accept connections' "redis-server"

declare -A INSTANCE_PID
BACKENDS=""
for name in i1 i2 i3; do
    "$BIN" serve everything --http 127.0.0.1:0 --redis "$REDIS_URL" </dev/null >"$OUT/$name.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    INSTANCE_PID[$name]=$pid
    wait_for "$OUT/$name.log" 'listening on http://127\.0\.0\.1:[0-9]+/mcp' "instance $name"
    address=$(grep -m1 -aoE 'listening on http://127\.0\.0\.1:[0-9]+' "$OUT/$name.log")
    BACKENDS+="    server $name ${address#listening on http://} check inter 500ms fall 2 rise 1"$'\n'
done

LB_PORT=$(free_port)
cat >"$OUT/haproxy.cfg" <<CFG
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
    bind 127.0.0.1:$LB_PORT
    default_backend instances
backend instances
    # Each request to the next instance, whatever session it belongs to: no stickiness.
    balance roundrobin
    http-response set-header X-Served-By %[srv_name]
$BACKENDS
CFG
"$HAPROXY" -f "$OUT/haproxy.cfg" -db >"$OUT/haproxy.log" 2>&1 &
PIDS+=($!)
URL=http://127.0.0.1:$LB_PORT/mcp
deadline=$((SECONDS + STARTUP_TIMEOUT))
until curl -s -o /dev/null "$URL" 2>/dev/null; do
    ((SECONDS < deadline)) || { cat "$OUT/haproxy.log" >&2; die "haproxy did not listen within ${STARTUP_TIMEOUT} s"; }
    sleep 0.1
done
echo "==> cluster: redis $REDIS_URL, instances i1 i2 i3, balancer $URL (up in $((SECONDS - started)) s)"

# --- 1. the conformance suite through the balancer ---------------------------------------------
status=0
step=$SECONDS
CONFORMANCE_URL=$URL CONFORMANCE_OUT=$OUT/conformance scripts/conformance.sh || status=1
echo "==> cluster: conformance through the balancer took $((SECONDS - step)) s"

# --- 2. the cluster tests ------------------------------------------------------------------------
step=$SECONDS
instances=""
for name in i1 i2 i3; do
    instances+="$name=${INSTANCE_PID[$name]} "
done
if MODELCTX_CLUSTER_URL=$URL MODELCTX_CLUSTER_INSTANCES=$instances \
    timeout --foreground -k 10 600 cargo test --locked -q --workspace --all-features --test cluster -- \
    --ignored --test-threads=1 --nocapture 2>&1 | tee "$OUT/tests.log"; then
    :
else
    status=1
fi
grep -q '^test result: ok' "$OUT/tests.log" || status=1
echo "==> cluster: the cluster tests took $((SECONDS - step)) s"
echo "cluster: $( ((status == 0)) && echo passed || echo FAILED) in $((SECONDS - started)) s; logs: $OUT"
exit "$status"
