#!/usr/bin/env bash
# Instructions per request, counted by valgrind's callgrind: repeatable to about 1 % whatever
# else the machine is doing, so it can gate regressions where timings cannot.
#
# For each case, `modelctx bench` (not under valgrind) sends N1 and then N2 `tools/call echo`
# requests (2026-07-28, one in flight) to the bench server running under callgrind; the
# count per request is (I(N2) - I(N1)) / (N2 - N1), so start-up and shutdown cancel out.
# Cases: stdio, and Streamable HTTP on 127.0.0.1 (on one thread, as the limit's).
#
# The server is `modelctx-bench` (crates/modelctx-servers): the bench server as `modelctx serve
# bench` serves it — the same library path, checks, runtime, logging and allocator — in a
# binary that compiles a third of the tool's crates, so its optimized build is short. The
# driver is the debug `modelctx` the tests built (its speed does not enter the count).
#
#   scripts/instructions.sh            measure and compare with bench/instructions.json: fail if a
#                                      count grew more than 10 % over the recorded one
#   scripts/instructions.sh --record   measure and write bench/instructions.json
#   scripts/instructions.sh --build    only build the server (scripts/test.sh runs it early, in
#                                      the background)
#   scripts/instructions.sh --profile [stdio|http]
#                                      where one request's instructions go: the functions that
#                                      cost the most per request, inclusive and exclusive (the
#                                      difference of the two runs, as the count), from stdio by
#                                      default
#
# The optimized server is built in a target directory of its own (target/instructions), so
# that its build never waits for another cargo command's lock on target/.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDED=bench/instructions.json
N1=${N1:-300}
N2=${N2:-1300}

if ! command -v valgrind >/dev/null; then
    echo "instructions: needs valgrind (apt-get install valgrind)" >&2
    exit 1
fi
# Optimised without the whole-program pass (the `optimized` profile): the request path's
# instructions, in a third of the release build's time.
BENCH_TARGET=${CARGO_TARGET_DIR:-$PWD/target}/instructions
CARGO_TARGET_DIR=$BENCH_TARGET cargo build --profile optimized --locked -p modelctx-servers \
    --no-default-features --features bench-binary --bin modelctx-bench
SERVER=$BENCH_TARGET/optimized/modelctx-bench
[[ ${1:-} != --build ]] || exit 0
profile=
if [[ ${1:-} == --profile ]]; then
    profile=${2:-stdio}
    [[ $profile == stdio || $profile == http ]] || { echo "instructions: --profile takes stdio or http" >&2; exit 2; }
fi
scripts/build.sh
MODELCTX=$PWD/target/debug/modelctx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# count CASE N: the instructions the server executed answering N requests (and starting up)
count() {
    local case=$1 n=$2 log=$work/$1-$2.log
    local out=/dev/null
    [[ -z $profile ]] || out=$work/$case-$n.out
    local server=(valgrind --tool=callgrind --callgrind-out-file="$out" --log-file="$log" "$SERVER")
    local transport=()
    if [[ $case == http ]]; then
        # On one current-thread runtime, as the timed HTTP cases run `modelctx serve bench`
        # (`--threads 1`) and as the limit serves: the default, a worker per CPU, adds the
        # multi-thread scheduler's work (about 2,800 a request) to the count.
        server+=(--http 127.0.0.1:0 --threads 1)
        transport=(--http)
    fi
    timeout 600 "$MODELCTX" bench --era modern -c 1 -n "$n" --warmup 0 --max-seconds 300 \
        "${transport[@]}" -- "${server[@]}" >/dev/null
    # valgrind writes its summary once the server has exited
    for _ in $(seq 100); do grep -q 'Collected' "$log" 2>/dev/null && break; sleep 0.1; done
    grep 'Collected' "$log" | awk '{print $NF}'
}

# per_request: each function's instructions per request (the N2 run's less the N1 run's),
# inclusive then exclusive, the largest first.
per_request() {
    python3 - "$work/$profile-$N1.out" "$work/$profile-$N2.out" "$((N2 - N1))" <<'PY'
import re, subprocess, sys
low, high, requests = sys.argv[1], sys.argv[2], int(sys.argv[3])
def costs(path, inclusive):
    flags = ["--inclusive=yes"] if inclusive else []
    text = subprocess.run(["callgrind_annotate", "--threshold=100", *flags, path],
                          capture_output=True, text=True, check=True).stdout
    found = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(\s+\[.*\])?$", line)
        if match:
            name = match.group(2)
            found[name] = found.get(name, 0) + int(match.group(1).replace(",", ""))
    return found
for inclusive in (True, False):
    before, after = costs(low, inclusive), costs(high, inclusive)
    rows = sorted(((after.get(k, 0) - before.get(k, 0)) / requests, k) for k in before.keys() | after.keys())
    print("instructions: per request,", "inclusive" if inclusive else "exclusive")
    for cost, name in reversed(rows[-45:]):
        print(f"{cost:9.0f}  {name[:150]}")
PY
}

if [[ -n $profile ]]; then
    count "$profile" "$N1" >/dev/null
    count "$profile" "$N2" >/dev/null
    per_request
    exit 0
fi

declare -A measured
for case in stdio http; do
    low=$(count "$case" "$N1")
    high=$(count "$case" "$N2")
    measured[$case]=$(( (high - low) / (N2 - N1) ))
    echo "instructions: $case tools/call echo: ${measured[$case]} per request"
done

if [[ ${1:-} == --record ]]; then
    printf '{\n  "stdio": %d,\n  "http": %d\n}\n' "${measured[stdio]}" "${measured[http]}" >"$RECORDED"
    echo "instructions: recorded in $RECORDED"
    exit 0
fi

status=0
for case in stdio http; do
    recorded=$(python3 -c "import json,sys; print(json.load(open('$RECORDED'))['$case'])")
    limit=$(( recorded * 110 / 100 ))
    if (( measured[$case] > limit )); then
        echo "instructions: $case grew to ${measured[$case]} per request, more than 10 % over the $recorded recorded in $RECORDED" >&2
        status=1
    else
        echo "instructions: $case ${measured[$case]} is within 10 % of the recorded $recorded"
    fi
done
exit "$status"
