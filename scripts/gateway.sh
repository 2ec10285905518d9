#!/usr/bin/env bash
# The gateway is transparent: the official conformance suite's server scenarios of 2025-11-25
# and 2026-07-28, run against `modelctx gateway` fronting `modelctx serve everything` alone
# (over stdio, `"prefix": ""` so that names and URIs stay those the suite expects), pass as
# they do against the server itself (scripts/conformance.sh with CONFORMANCE_URL), and so do
# the extensions' scenarios: the tasks extension's (the gateway relays tasks) and Skills' (it
# serves its backends' skills). Everything binds 127.0.0.1 and is stopped on exit.
#
#   scripts/gateway.sh
#
# Logs and results: target/gateway/ (under CARGO_TARGET_DIR if set).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$ROOT/$TARGET_DIR ;; esac
OUT=$TARGET_DIR/gateway
STARTUP_TIMEOUT=30

die() {
    echo "gateway: $*" >&2
    exit 1
}

echo "==> gateway: scripts/build.sh"
scripts/build.sh
BIN=$TARGET_DIR/debug/modelctx

rm -rf "$OUT"
mkdir -p "$OUT"
cat >"$OUT/gateway.json" <<JSON
{"mcpServers": {"everything": {"command": "$BIN", "args": ["serve", "everything"], "prefix": ""}}}
JSON

GATEWAY_PID=
cleanup() {
    [[ -n $GATEWAY_PID ]] || return 0
    kill -TERM "$GATEWAY_PID" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$GATEWAY_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$GATEWAY_PID" 2>/dev/null || true
    wait "$GATEWAY_PID" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --no-auth: the suite sends no token; the run token is tested in crates/modelctx-cli/tests/it/gateway.rs.
"$BIN" gateway --config "$OUT/gateway.json" --http 127.0.0.1:0 --no-auth </dev/null >"$OUT/gateway.log" 2>&1 &
GATEWAY_PID=$!
deadline=$((SECONDS + STARTUP_TIMEOUT))
until grep -qaE 'listening on http://127\.0\.0\.1:[0-9]+/mcp' "$OUT/gateway.log" 2>/dev/null; do
    kill -0 "$GATEWAY_PID" 2>/dev/null || { cat "$OUT/gateway.log" >&2; die "the gateway exited before listening"; }
    ((SECONDS < deadline)) || { tail -n 20 "$OUT/gateway.log" >&2; die "the gateway did not listen within ${STARTUP_TIMEOUT} s"; }
    sleep 0.1
done
URL=$(grep -m1 -aoE 'http://127\.0\.0\.1:[0-9]+/mcp' "$OUT/gateway.log")
echo "==> gateway: $URL fronting modelctx serve everything (stdio)"

started=$SECONDS
CONFORMANCE_URL=$URL CONFORMANCE_OUT=$OUT/conformance scripts/conformance.sh
echo "==> gateway: the suite through the gateway took $((SECONDS - started)) s"
