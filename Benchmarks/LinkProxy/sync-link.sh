#!/usr/bin/env bash
# The link rows of issue 26: `stepsync sync --concurrency 3` of the realistic decade (steps only) into a fresh,
# empty, durable JSONL sink — on loopback, and through delay_proxy.py at 25 ms and 75 ms each way (50 / 150 ms RTT).
#
#   Benchmarks/LinkProxy/sync-link.sh BINARY WORKDIR [--rounds N] [--proxy-zero] [-- EXTRA SYNC OPTIONS…]
#
# Builds the store once in WORKDIR/store (generate --profile realistic --types steps --end 2025-06-30, then layer;
# kept and reused when it is already there), then for each case copies it to a fresh data directory (a fresh
# ledger, every interval pending), starts a fresh `stepsync serve --port 0` in its own data directory, the proxy
# (not for loopback), and runs `stepsync sync --concurrency 3 --json` against it. Prints one line per case (samples/s,
# wall seconds, CPU seconds of the client, the sink and the proxy) and, last, one JSON object with the best
# samples/s of each case: {"loopback":…, "rtt50":…, "rtt150":…, …}. --proxy-zero adds a case through the proxy at
# 0 ms (is the proxy itself a bottleneck?). With --rounds N every case runs N times (best kept).
set -euo pipefail
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [[ $# -lt 2 ]]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 64
fi
BIN=$(realpath "$1")
WORK=$(realpath -m "$2")
shift 2
ROUNDS=1
PROXY_ZERO=0
EXTRA=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --proxy-zero) PROXY_ZERO=1; shift ;;
        --) shift; EXTRA=("$@"); break ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
PROXY="$HERE/delay_proxy.py"
mkdir -p "$WORK"
CLK=$(getconf CLK_TCK)

STORE="$WORK/store"
if [[ ! -f "$STORE/layered" ]]; then
    rm -rf "$STORE"
    "$BIN" generate --data-dir "$STORE" --profile realistic --types steps --years 10 --end 2025-06-30 --json >/dev/null
    "$BIN" layer --data-dir "$STORE" --json >/dev/null
    touch "$STORE/layered"
fi

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# CPU seconds (user + sys) a running process used so far.
cpu_of() { awk -v clk="$CLK" '{ printf "%.2f", ($14 + $15) / clk }' "/proc/$1/stat"; }

# Starts a process writing its first stdout line to FILE; waits for that line.
wait_line() {
    local file=$1 pattern=$2
    for _ in $(seq 1 600); do
        if grep -q "$pattern" "$file" 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "timed out waiting for '$pattern' in $file" >&2
    return 1
}

# run_case NAME DELAY_MS (DELAY_MS "-" = no proxy) → prints a line, sets RESULT (samples/s)
run_case() {
    local name=$1 delay=$2 dir="$WORK/run-$1"
    rm -rf "$dir" && mkdir -p "$dir/sink"
    cp -r "$STORE" "$dir/client"
    "$BIN" serve --data-dir "$dir/sink" --port 0 >"$dir/serve.out" 2>"$dir/serve.err" &
    local serve=$!
    PIDS+=("$serve")
    wait_line "$dir/serve.out" "listening on"
    local port
    port=$(sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$dir/serve.out" | head -1)
    local target=$port proxy=""
    if [[ "$delay" != "-" ]]; then
        "$PROXY" --target "127.0.0.1:$port" --delay-ms "$delay" >"$dir/proxy.out" 2>"$dir/proxy.err" &
        proxy=$!
        PIDS+=("$proxy")
        wait_line "$dir/proxy.out" "listening"
        target=$(awk '/listening/ { print $2; exit }' "$dir/proxy.out")
    fi
    local load
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" \
        "$BIN" sync --data-dir "$dir/client" --server "http://127.0.0.1:$target" --concurrency 3 --json \
        ${EXTRA[@]+"${EXTRA[@]}"} >"$dir/sync.json" 2>"$dir/sync.err" || {
        echo "sync failed ($name): $(tail -3 "$dir/sync.err")" >&2
    }
    local sink_cpu proxy_cpu="-"
    sink_cpu=$(cpu_of "$serve")
    if [[ -n "$proxy" ]]; then proxy_cpu=$(cpu_of "$proxy"); kill "$proxy"; wait "$proxy" 2>/dev/null || true; fi
    kill "$serve"; wait "$serve" 2>/dev/null || true
    PIDS=()
    local samples seconds stored
    samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples"])' "$dir/sync.json")
    seconds=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$dir/sync.json")
    stored=$(cat "$dir"/sink/sink/*.jsonl 2>/dev/null | wc -l)
    read -r wall user sys <"$dir/time.txt"
    RESULT=$(python3 -c "print(round($samples / $seconds))")
    printf '%-9s %8s samples/s  %6.2f s  client %5.2f CPU-s  sink %5s CPU-s  proxy %5s CPU-s  stored %s/%s  load %s\n' \
        "$name" "$RESULT" "$seconds" "$(python3 -c "print($user + $sys)")" "$sink_cpu" "$proxy_cpu" \
        "$stored" "$samples" "$load"
    rm -rf "$dir/client" "$dir/sink"
}

declare -A BEST
CASES=("loopback:-" "rtt50:25" "rtt150:75")
if [[ $PROXY_ZERO == 1 ]]; then CASES=("loopback:-" "proxy0:0" "rtt50:25" "rtt150:75"); fi
for round in $(seq 1 "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        run_case "${c%%:*}" "${c#*:}"
        key=${c%%:*}
        if [[ -z "${BEST[$key]:-}" || $RESULT -gt ${BEST[$key]} ]]; then BEST[$key]=$RESULT; fi
    done
done
json="{"
for c in "${CASES[@]}"; do json+="\"${c%%:*}\":${BEST[${c%%:*}]},"; done
echo "${json%,}}"
