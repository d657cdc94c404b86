#!/bin/bash
# Issue 35's soak: `stepsync serve` under 10 minutes of mixed load (soak.py) on each storage — JSONL, then
# PostgreSQL (a throwaway cluster as the `postgres` user, three clients) — sampling resident memory, descriptors and
# p50/p99 every 10 s. Writes soak-jsonl.{csv,svg} and soak-postgres.{csv,svg} into OUT and prints the summaries.
#
#   ./soak.sh .build/release/stepsync /tmp/soak Planning/images [minutes]
#
# Runs as root; PostgreSQL 15 from /usr/lib/postgresql/15/bin (or $PG_BIN) on $PG_PORT (55534); the sink on
# $SINK_PORT (18191). Each client's store: a year of steps and heart rate ending 1,000 days ago, so that a day can be
# appended (and synced) on every round.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 STEPSYNC WORKDIR OUT [minutes]" >&2; exit 2; }
S=$(realpath "$1"); mkdir -p "$2" "$3"; W=$(realpath "$2"); OUT=$(realpath "$3"); MIN=${4:-10}
HERE=$(dirname "$(realpath "$0")")
PGB=${PG_BIN:-/usr/lib/postgresql/15/bin}; PORT=${PG_PORT:-55534}; SP=${SINK_PORT:-18191}
MT=metrics-token-for-the-soak-0001
end=$(date -u -d "1000 days ago" +%F)
stores() {  # prefix: three fresh stores
  for i in 1 2 3; do
    rm -rf "$W/$1-store$i"
    "$S" generate --data-dir "$W/$1-store$i" --years 1 --seed $((40 + i)) --end "$end" --types steps,heart-rate >/dev/null 2>&1
  done
  echo "$W/$1-store1,$W/$1-store2,$W/$1-store3"
}
wait_up() { until curl -s -o /dev/null "http://127.0.0.1:$SP/health"; do sleep 0.1; done; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

# JSONL: one user, one token shared by the three clients.
T=soak-token-for-the-jsonl-sink-01
rm -rf "$W/jsonl-sink"
"$S" serve --port $SP --data-dir "$W/jsonl-sink" --token $T --metrics-token $MT >"$W/serve-jsonl.log" 2>&1 & sp=$!
trap 'kill $sp 2>/dev/null || true' EXIT
wait_up
python3 "$HERE/soak.py" --base "http://127.0.0.1:$SP" --tokens "$T,$T,$T" --metrics-token $MT --stepsync "$S" \
  --stores "$(stores jsonl)" --minutes "$MIN" --out "$OUT" --label jsonl | tail -1
kill -TERM $sp; wait $sp || true

# PostgreSQL: three clients.
. "$HERE/../SinkLoad/cluster.sh"
start_cluster "$W" $PORT
trap 'kill $sp 2>/dev/null || true; stop_cluster' EXIT
psql -X -q -h 127.0.0.1 -p $PORT -U stepsync -d postgres -c "CREATE DATABASE soak"
url="postgresql://stepsync@127.0.0.1:$PORT/soak"
tokens=$(for i in 1 2 3; do "$S" clients add "client$i" --database "$url" 2>/dev/null | tail -1; done | paste -sd,)
"$S" serve --port $SP --database "$url" --metrics-token $MT >"$W/serve-postgres.log" 2>&1 & sp=$!
wait_up
python3 "$HERE/soak.py" --base "http://127.0.0.1:$SP" --tokens "$tokens" --metrics-token $MT --stepsync "$S" \
  --stores "$(stores postgres)" --minutes "$MIN" --out "$OUT" --label postgres | tail -1
kill -TERM $sp; wait $sp || true
