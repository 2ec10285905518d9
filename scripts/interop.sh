#!/usr/bin/env bash
# Interop tests: the official MCP SDK clients (Python `mcp`, TypeScript `@modelcontextprotocol/client`)
# drive `modelctx serve everything` over stdio and over Streamable HTTP, in every protocol mode each
# SDK offers, one test per (transport, mode). See interop/README.md.
#
# Installs what it needs (pinned) and skips installs that are already there:
#   - a venv in target/interop/venv from interop/python/requirements.txt
#   - `npm ci` in interop/typescript (node_modules there) from its package-lock.json
# then builds modelctx, runs both suites, and fails if either fails. Each suite starts (and always
# stops) its own `modelctx serve everything --http 127.0.0.1:0` for its HTTP tests: see
# interop/python/http_server.py and interop/typescript/http-server.mjs.
# Both suites also drive `modelctx gateway --config FILE --http 127.0.0.1:0` fronting three stdio
# backends (`modelctx serve everything`, npm's server-everything, interop/python/peer_server.py),
# in both protocol eras: interop/python/test_gateway.py and interop/typescript/gateway.test.mjs,
# each starting (and always stopping) its own gateway.
# Then the other direction: modelctx's client drives servers written by others — the Python SDK,
# the TypeScript SDK v2 and v1, and npm's @modelcontextprotocol/server-everything — over stdio and
# Streamable HTTP on 127.0.0.1 (crates/modelctx-cli/tests/it/peer_servers.rs, `--ignored` tests given
# the SDKs' locations in MODELCTX_PEER_PYTHON and MODELCTX_PEER_NODE_DIR), and the web inspector in
# Chromium against server-everything, which speaks only 2025-11-25 (tests/it/inspector_protocol.rs).
#
# Environment:
#   MODELCTX_BIN      use this server binary and skip `cargo build`
#   INTEROP_WIRE_LOG  a directory: log what each suite exchanges with the server (.in = what the
#                     SDK sent, .out = what modelctx answered): <sdk>-<mode>.in/.out the JSON-RPC
#                     lines over stdio, <sdk>-http-<mode>.in/.out the raw HTTP (through a logging
#                     relay), <sdk>-http-server.log the HTTP server's stderr
#   PYTHON            the interpreter for the venv (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case $TARGET_DIR in /*) ;; *) TARGET_DIR=$ROOT/$TARGET_DIR ;; esac
VENV=$TARGET_DIR/interop/venv
PY_REQUIREMENTS=interop/python/requirements.txt
TS_DIR=interop/typescript

# --- Python: a venv with the pinned SDK ---------------------------------------------------------
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null; then
    echo "interop: needs Python >= 3.10 ($PYTHON not found; set PYTHON=...)" >&2
    exit 1
fi
py_stamp="$(sha256sum "$PY_REQUIREMENTS" | cut -d' ' -f1) $("$PYTHON" --version 2>&1)"
if [[ -x $VENV/bin/python && -f $VENV/.interop-stamp && "$(cat "$VENV/.interop-stamp")" == "$py_stamp" ]]; then
    echo "==> interop: Python venv up to date ($VENV)"
else
    echo "==> interop: installing the Python SDK into $VENV"
    rm -rf "$VENV"
    timeout 120 "$PYTHON" -m venv "$VENV"
    PIP_DISABLE_PIP_VERSION_CHECK=1 timeout 600 "$VENV/bin/pip" install --quiet --no-input -r "$PY_REQUIREMENTS"
    echo "$py_stamp" >"$VENV/.interop-stamp"
fi

# --- TypeScript: npm ci with the lockfile --------------------------------------------------------
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if ((node_major < 20)); then
    echo "interop: needs Node.js >= 20 (the TypeScript SDK's engines), found: $(node --version 2>&1 || echo none)" >&2
    exit 1
fi
ts_stamp=$(sha256sum "$TS_DIR/package-lock.json" | cut -d' ' -f1)
if [[ -f $TS_DIR/node_modules/.interop-stamp && "$(cat "$TS_DIR/node_modules/.interop-stamp")" == "$ts_stamp" ]]; then
    echo "==> interop: $TS_DIR/node_modules up to date"
else
    echo "==> interop: npm ci in $TS_DIR"
    (cd "$TS_DIR" && timeout 600 npm ci --no-audit --no-fund --no-update-notifier --loglevel=error)
    echo "$ts_stamp" >"$TS_DIR/node_modules/.interop-stamp"
fi

# --- the server ----------------------------------------------------------------------------------
if [[ -z ${MODELCTX_BIN:-} ]]; then
    echo "==> interop: scripts/build.sh"
    scripts/build.sh
    MODELCTX_BIN=$TARGET_DIR/debug/modelctx
fi
export MODELCTX_BIN
# the Python with the pinned SDK, for the gateway's Python backend (TypeScript suite) and the
# peer-server tests
export MODELCTX_PEER_PYTHON=$VENV/bin/python

# --- the suites (both run; either failing fails the script) ------------------------------------
status=0

echo "==> interop: Python SDK $("$VENV/bin/python" -c 'from importlib.metadata import version; print(version("mcp"))') (pytest)"
PYTHONDONTWRITEBYTECODE=1 timeout 300 "$VENV/bin/python" -m pytest -p no:cacheprovider -s -v \
    interop/python/test_interop.py interop/python/test_reference_servers.py interop/python/test_gateway.py || status=1

echo "==> interop: TypeScript SDK $(node -p 'require("./'"$TS_DIR"'/node_modules/@modelcontextprotocol/client/package.json").version') (node --test)"
(cd "$TS_DIR" && timeout 300 node --test --test-reporter=spec interop.test.mjs gateway.test.mjs) || status=1

echo "==> interop: modelctx's client and web inspector against the Python SDK, TypeScript SDK v2/v1 and server-everything servers (cargo test --ignored)"
MODELCTX_PEER_NODE_DIR=$ROOT/$TS_DIR \
    timeout 900 cargo test --locked --workspace --all-features --test it -- --ignored peer_servers:: inspector_protocol:: ||
    status=1

if ((status != 0)); then
    echo "interop: FAILED; rerun with INTEROP_WIRE_LOG=target/interop/wire scripts/interop.sh to see the raw JSON-RPC and HTTP" >&2
fi
exit "$status"
