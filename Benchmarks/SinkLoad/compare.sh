#!/bin/bash
# The sink row of issue 14, side by side: the original HealthStepsSync Flask server (its api/main.py, run as its
# README says: `python3 main.py`, Flask's threaded development server) and `stepsync serve` (durable: fdatasync
# before every 2xx), each started fresh on an empty data directory, alternately ROUNDS times, posted the same 200
# bodies of 1,000 samples over 3 connections by post.py. Prints one JSON line per run and `uptime` (the machine is
# shared). post.py sends prepared requests over raw sockets (since 2026-11-24; it used http.client before) and reports
# its CPU in the timed part apart from loading the bodies: it shares the 2 cores with the server, the same for both.
#
#   python3 bodies.py /tmp/sinkload-bodies
#   ./compare.sh /tmp/sinkload-bodies .build/release/stepsync /path/to/HealthStepsSync/api/main.py /path/to/venv/bin/python [ROUNDS]
set -euo pipefail
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
bodies=$1 stepsync=$2 flask_main=$3 python=$4 rounds=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CPU seconds (user + system) used so far by the processes of session $1 (the server and, for Flask, its reloader).
cpu_of() { local t=0; for p in $(pgrep -s "$1"); do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "scale=2; $t / $(getconf CLK_TCK)" | bc; }

wait_up() { for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return 0; sleep 0.1; done; return 1; }

run_flask() {
  rm -rf "$work/flask" && mkdir -p "$work/flask" && cp "$flask_main" "$work/flask/main.py"
  cd "$work/flask"
  setsid "$python" main.py >"$work/flask.log" 2>&1 & local pid=$!
  cd - >/dev/null
  wait_up 8000
  local before; before=$(cpu_of "$pid")
  local result; result=$(python3 "$here/post.py" http://127.0.0.1:8000 "$bodies" 3)
  echo "flask $result serverCPUSeconds=$(echo "$(cpu_of "$pid") - $before" | bc) lines=$(wc -l <"$work/flask/data/steps.jsonl")"
  kill -- -"$pid"; wait "$pid" || true
}

run_sink() {
  rm -rf "$work/sink"
  setsid "$stepsync" serve --port 8001 --data "$work/sink/steps.jsonl" >"$work/sink.log" 2>&1 & local pid=$!
  wait_up 8001
  local before; before=$(cpu_of "$pid")
  local result; result=$(python3 "$here/post.py" http://127.0.0.1:8001 "$bodies" 3)
  echo "sink  $result serverCPUSeconds=$(echo "$(cpu_of "$pid") - $before" | bc) lines=$(wc -l <"$work/sink/steps.jsonl")"
  kill -INT "$pid"; wait "$pid" || true
}

for round in $(seq 1 "$rounds"); do
  echo "round $round: $(uptime)"
  if (( round % 2 )); then run_flask; run_sink; else run_sink; run_flask; fi
done
