#!/bin/bash
# Issue 31's PostgreSQL read figures: a realistic decade (steps and heart rate, seed 42, ending 2025-06-30) synced
# into `stepsync serve --database`, then timed with curl: `GET /export` of the step samples (NDJSON, rows/s), a
# decade's `GET /steps/daily` (no from/to), `GET /samples/daily?type=HeartRate` over the decade, and three
# `/steps/daily` at once with `/health` and another client's POST beside them (their statuses); then `/export` and
# `/steps/daily` again from a JSONL sink (`serve --data-dir`) holding the same store, for the ratio. CPU seconds of
# the sink from /proc.
#
#   ./postgres-reads.sh .build/release/stepsync /tmp/pgreads
#
# Runs as root (initdb and the server as the `postgres` user), PostgreSQL 15 from /usr/lib/postgresql/15/bin (or
# $PG_BIN), a throwaway cluster in WORKDIR/cluster on $PG_PORT (55533), the sink on $SINK_PORT (18190) with the
# `serve` default deadline (6 s). The store is generated once into WORKDIR/store.
set -u
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ $# -ge 2 ] || { echo "usage: $0 STEPSYNC WORKDIR" >&2; exit 2; }
S=$(realpath "$1"); mkdir -p "$2"; W=$(realpath "$2")
PGB=${PG_BIN:-/usr/lib/postgresql/15/bin}; PORT=${PG_PORT:-55533}; SP=${SINK_PORT:-18190}; HZ=$(getconf CLK_TCK)
[ -f "$W/store/.generated" ] || { "$S" generate --data-dir "$W/store" --years 10 --seed 42 --end 2025-06-30 \
  --types steps,heart-rate >/dev/null && "$S" layer --data-dir "$W/store" >/dev/null && touch "$W/store/.generated"; }
. "$(dirname "$(realpath "$0")")/cluster.sh"
start_cluster "$W" $PORT
trap 'kill $sp 2>/dev/null; stop_cluster' EXIT
psql -X -q -h 127.0.0.1 -p $PORT -U stepsync -d postgres -c "CREATE DATABASE reads"
url="postgresql://stepsync@127.0.0.1:$PORT/reads"
token=$("$S" clients add reader --database "$url" 2>/dev/null | tail -1)
other=$("$S" clients add writer --database "$url" 2>/dev/null | tail -1)
"$S" serve --port $SP --database "$url" >"$W/serve.log" 2>&1 & sp=$!
until curl -s -o /dev/null http://127.0.0.1:$SP/health; do sleep 0.1; done
# --resend: the store's ledger may name the sink of an earlier run (a fresh database holds none of it).
STEPSYNC_TOKEN=$token "$S" sync --data-dir "$W/store" --server http://127.0.0.1:$SP --resend >/dev/null 2>&1 \
  || STEPSYNC_TOKEN=$token "$S" sync --data-dir "$W/store" --server http://127.0.0.1:$SP --resend >/dev/null
B="http://127.0.0.1:$SP"; H="Authorization: Bearer $token"
ticks() { awk '{print $14+$15}' /proc/$sp/stat; }
timed() {  # name path: prints status, seconds, bytes, sink CPU-s
  local t0 c0 out; c0=$(ticks); t0=$(date +%s.%N)
  out=$(curl -s -o "$W/out-$1" -w '%{http_code} %{size_download}' -H "$H" "$B$2")
  echo "$1 status/bytes=$out seconds=$(echo "$(date +%s.%N) - $t0" | bc) sinkCPU=$(echo "scale=2; ($(ticks)-$c0)/$HZ" | bc)"
}
for round in 1 2; do
  timed export "/export?format=ndjson"
  echo "  export rows=$(wc -l <"$W/out-export")"
  timed daily "/steps/daily"
  timed hrdaily "/samples/daily?type=HKQuantityTypeIdentifierHeartRate"
done
echo "three /steps/daily at once, /health and another client's POST beside them:"
jobs_=()
for i in 1 2 3; do (timed "daily$i" "/steps/daily") & jobs_+=($!); done
sleep 1
for i in 1 2 3 4 5; do
  h=$(curl -s -o /dev/null -w '%{http_code}' "$B/health")
  p=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $other" -H 'Content-Type: application/json' \
    --data "{\"samples\":[{\"uuid\":\"$(cat /proc/sys/kernel/random/uuid)\",\"type\":\"HKQuantityTypeIdentifierStepCount\",\"startDate\":\"2025-01-01T00:00:0${i}Z\",\"endDate\":\"2025-01-01T00:00:0${i}Z\",\"value\":1,\"unit\":\"count\",\"sourceName\":\"x\",\"sourceBundleId\":\"x\"}]}" "$B/samples")
  echo "  health=$h otherPOST=$p"; sleep 0.5
done
wait "${jobs_[@]}"  # not a bare wait: the sink is a job of this shell too
echo "two /export at once:"
jobs_=()
for i in 1 2; do (timed "export$i" "/export?format=ndjson"; echo "  export$i rows=$(wc -l <"$W/out-export$i")") & jobs_+=($!); done
wait "${jobs_[@]}"
echo "the same on JSONL (serve --data-dir, the same store synced):"
kill $sp; wait $sp 2>/dev/null
rm -rf "$W/jsonl"; "$S" serve --port $SP --data-dir "$W/jsonl" >"$W/serve-jsonl.log" 2>&1 & sp=$!
until curl -s -o /dev/null "$B/health"; do sleep 0.1; done
"$S" sync --data-dir "$W/store" --server "$B" --resend >/dev/null
for round in 1 2; do
  timed export "/export?format=ndjson"
  echo "  export rows=$(wc -l <"$W/out-export")"
  timed daily "/steps/daily"
done
rm -f "$W"/out-*
uptime
