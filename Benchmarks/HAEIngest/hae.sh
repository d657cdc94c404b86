#!/bin/bash
# Issue 34's row: one Health Auto Export body of 400,000 points (hae_body.py: 200,000 step minutes and 200,000 heart-
# rate Min/Avg/Max minutes → 800,000 samples, ≈ 35 MB) posted with curl to `stepsync serve` on loopback, durable,
# on each storage: the first post (all inserted), the same body again (all duplicates), then the body with every
# value changed (the app re-sending grown buckets: all replaced). The sink's peak resident memory comes from
# /usr/bin/time -v. Its peer in the same run: CPython's json.loads of the same bytes (the C parser, parsing only).
#
#   ./hae.sh .build/release/stepsync /tmp/hae [points]
#
# Runs as root; PostgreSQL 15 from /usr/lib/postgresql/15/bin (or $PG_BIN) on $PG_PORT (55535); the sink on
# $SINK_PORT (18192).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 STEPSYNC WORKDIR [points]" >&2; exit 2; }
S=$(realpath "$1"); mkdir -p "$2"; W=$(realpath "$2"); N=${3:-400000}
HERE=$(dirname "$(realpath "$0")")
PGB=${PG_BIN:-/usr/lib/postgresql/15/bin}; PORT=${PG_PORT:-55535}; SP=${SINK_PORT:-18192}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f "$W/body-$N.json" ] || python3 "$HERE/hae_body.py" "$W/body-$N.json" "$N"
[ -f "$W/grown-$N.json" ] || python3 "$HERE/hae_body.py" "$W/grown-$N.json" "$N" 7
bytes=$(stat -c %s "$W/body-$N.json")
peer=$(python3 -c "
import json, sys, time
data = open(sys.argv[1], 'rb').read()
t = time.perf_counter(); json.loads(data); print('%.3f' % (time.perf_counter() - t))" "$W/body-$N.json")
echo "body: $N points, $bytes bytes; peer: python3 json.loads parses it in ${peer} s ($(python3 -c "print(round($N / $peer))") points/s)"
wait_up() { until curl -s -o /dev/null "http://127.0.0.1:$SP/health"; do sleep 0.1; done; }
post() {  # label file token → one line: seconds, points/s, ratio to the peer, the answer's counts
  local t0 t1 answer
  t0=$(date +%s.%N)
  answer=$(curl -sS --fail-with-body -H "authorization: Bearer $3" -H 'content-type: application/json' \
    -H 'automation-aggregation: minutes' --data-binary "@$2" "http://127.0.0.1:$SP/ingest/health-auto-export")
  t1=$(date +%s.%N)
  python3 -c "
import json, sys
s = $t1 - $t0; a = json.loads(sys.argv[1])
print('%-10s %-9s %6.2f s  %8d points/s  %5.2fx the peer  inserted %d, replaced %d, duplicates %d'
      % ('$STORAGE', '$1', s, $N / s, $peer / s, a['inserted'], a['replaced'], a['duplicates']))" "$answer"
}
rounds() {  # token
  post first "$W/body-$N.json" "$1"; post again "$W/body-$N.json" "$1"; post grown "$W/grown-$N.json" "$1"
}
peak() { echo "$STORAGE peak RSS: $(( $(grep 'Maximum resident' "$1" | awk '{print $NF}') / 1024 )) MB"; }

STORAGE=jsonl T=hae-benchmark-token-0000000001
rm -rf "$W/jsonl-sink"
/usr/bin/time -v -o "$W/time-jsonl.txt" "$S" serve --port $SP --data-dir "$W/jsonl-sink" --token $T \
  >"$W/serve-jsonl.log" 2>&1 & sp=$!
trap 'kill $sp 2>/dev/null || true' EXIT
wait_up; rounds $T
pkill -TERM -P $sp; wait $sp || true; peak "$W/time-jsonl.txt"

STORAGE=postgres
. "$HERE/../SinkLoad/cluster.sh"
start_cluster "$W" $PORT
trap 'kill $sp 2>/dev/null || true; stop_cluster' EXIT
psql -X -q -h 127.0.0.1 -p $PORT -U stepsync -d postgres -c "CREATE DATABASE hae"
url="postgresql://stepsync@127.0.0.1:$PORT/hae"
T=$("$S" clients add phone --database "$url" 2>/dev/null | tail -1)
/usr/bin/time -v -o "$W/time-postgres.txt" "$S" serve --port $SP --database "$url" >"$W/serve-postgres.log" 2>&1 & sp=$!
wait_up; rounds "$T"
pkill -TERM -P $sp; wait $sp || true; peak "$W/time-postgres.txt"
