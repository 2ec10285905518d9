#!/usr/bin/env bash
# Installs the Debian packages the tests start when they are missing: redis-server (the Redis
# stores' tests, the cluster), haproxy (the cluster's load balancer), chromium (the web
# inspector's test, headless) and prometheus (it scrapes the gateway's metrics in a test). As root it runs
# apt-get (with apt-get update when a package is not found); otherwise it says what to install.
#
#   scripts/packages.sh
set -euo pipefail

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
