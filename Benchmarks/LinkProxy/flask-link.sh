#!/bin/bash
# The peer of issue 26's link rows: the original HealthStepsSync Flask server (its api/main.py, started fresh on an
# empty data directory each run, as its README says), posted the sink row's 200 bodies of 1,000 samples over 3
# connections by ../SinkLoad/post.py — on loopback and through delay_proxy.py at 25 and 75 ms each way (50 / 150 ms
# round trips), ROUNDS times each. Prints one line a run and last one JSON line: the best samples/s of each link,
# {"loopback": …, "rtt50": …, "rtt150": …}.
#
#   ./flask-link.sh /path/to/HealthStepsSync/api/main.py /path/to/venv/bin/python /tmp/sinkload-bodies [ROUNDS=2]
set -euo pipefail
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
flask_main=$(realpath "$1") python=$2 bodies=$3 rounds=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

wait_up() { for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return 0; sleep 0.1; done; return 1; }

# The proxy's port once it listens (it prints `listening PORT`).
start_proxy() {
  setsid python3 "$here/delay_proxy.py" --target "127.0.0.1:$1" --delay-ms "$2" >"$work/proxy.out" 2>&1 & pids+=($!)
  for _ in $(seq 1 100); do grep -q '^listening' "$work/proxy.out" 2>/dev/null && break; sleep 0.05; done
  awk '/^listening/ {print $2}' "$work/proxy.out"
}

: >"$work/results"
for round in $(seq 1 "$rounds"); do
  for delay in 0 25 75; do
    rm -rf "$work/flask" && mkdir -p "$work/flask" && cp "$flask_main" "$work/flask/main.py"
    (cd "$work/flask" && exec setsid "$python" main.py >"$work/flask.log" 2>&1) & flask=$!; pids+=($flask)
    wait_up 8000
    port=8000
    if (( delay > 0 )); then port=$(start_proxy 8000 "$delay"); fi
    result=$(python3 "$here/../SinkLoad/post.py" "http://127.0.0.1:$port" "$bodies" 3)
    echo "round $round delay ${delay}ms each way: $result"
    echo "$delay $result" >>"$work/results"
    for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done; pids=()
    wait 2>/dev/null || true
    for _ in $(seq 1 50); do curl -sf http://127.0.0.1:8000/health >/dev/null 2>&1 || break; sleep 0.1; done
  done
done
python3 - "$work/results" <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    delay, _, text = line.partition(" ")
    key = {"0": "loopback", "25": "rtt50", "75": "rtt150"}[delay]
    best[key] = max(best.get(key, 0), json.loads(text)["samplesPerSecond"])
print(json.dumps(best))
PY
