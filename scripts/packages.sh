#!/usr/bin/env bash
# Installs the Debian packages the tests start when they are missing: redis-server (the Redis
# stores' tests, the cluster), haproxy (the cluster's load balancer), chromium (the web
# inspector's test, headless) and prometheus (it scrapes the gateway's metrics in a test). As root it runs
# apt-get (with apt-get update when a package is not found); otherwise it says what to install.
# And the npm package the web inspector's browser tests load into the page (axe-core, the
# accessibility checker), with `npm ci` from its lockfile in crates/modelctx-cli/tests/browser.
#
#   scripts/packages.sh
set -euo pipefail
cd "$(dirname "$0")/.."

browser=crates/modelctx-cli/tests/browser
if [[ ! -f $browser/node_modules/axe-core/axe.min.js ]]; then
    echo "==> packages: npm ci in $browser"
    (cd "$browser" && timeout 300 npm ci --no-audit --no-fund --no-update-notifier --loglevel=error)
fi

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v haproxy >/dev/null || [[ -x /usr/sbin/haproxy ]] || missing+=(haproxy)
command -v chromium >/dev/null || missing+=(chromium)
command -v prometheus >/dev/null || missing+=(prometheus)
((${#missing[@]})) || exit 0
if ((EUID != 0)); then
    echo "packages: the tests need the Debian packages ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "==> packages: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi
