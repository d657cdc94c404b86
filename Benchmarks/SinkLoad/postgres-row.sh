#!/bin/bash
# Issue 26's PostgreSQL row in one run: `stepsync serve --database` ingesting 400 POSTs × 1,000 time-ordered step
# samples (bodies.py) from 3 and from 30 concurrent posters (post.py), durable (fsync=on, synchronous_commit=on, the
# server's defaults), beside its raw-COPY peer: psql `\copy` of the same 400,000 rows (as the sink stored them, in
# time order, one transaction) into a `samples` table of schema v2's shape and one of schema v3's (migration 3: an 8-byte
# type key, no uuid tie-breaker in the paging index, no foreign key to clients; Planning/postgres.md), same durability.
# Every sink run and every COPY gets a fresh database (an empty table, like the first sync of a client). Prints one
# line per run with the CPU seconds (user+sys, from /proc) of the sink process and of PostgreSQL (every server
# process; for COPY, its backend and the rest apart), then `uptime`, and as its last line a JSON summary of the best
# of each: {"posters3":…, "posters30":…, "copyV2":…, "copyV3":…, …} (samples or rows a second), and each round's
# ratio of the sink to that round's raw COPY into v3's table ("posters3RoundRatios", "posters3WorstRatio", …).
#
#   ./postgres-row.sh .build/release/stepsync /tmp/pgrow [ROUNDS=2]
#
# Runs as root (initdb and the server as the `postgres` user), PostgreSQL 15 from /usr/lib/postgresql/15/bin (or
# $PG_BIN), a throwaway cluster in WORKDIR/cluster on $PG_PORT (55433) and the sink on $SINK_PORT (18090). The bodies
# are written once into WORKDIR/bodies. Runs alternate 3 and 30 posters; the binary can be any build of the sink
# (the migrations run at `serve`); $SERVE_ARGS is added to `serve` (e.g. "--database-ingest insert"); $SETUP_SQL runs
# on each sink's database once `serve` has migrated it (e.g. "DROP INDEX samples_steps_covering", to weigh an index).
set -u
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ $# -ge 2 ] || { echo "usage: $0 STEPSYNC WORKDIR [ROUNDS]" >&2; exit 2; }
S=$(realpath "$1"); mkdir -p "$2"; W=$(realpath "$2"); ROUNDS=${3:-2}
PGB=${PG_BIN:-/usr/lib/postgresql/15/bin}; PORT=${PG_PORT:-55433}; SP_PORT=${SINK_PORT:-18090}
HERE=$(dirname "$(realpath "$0")"); HZ=$(getconf CLK_TCK)
[ -f "$W/bodies/body-399.json" ] || python3 "$HERE/bodies.py" "$W/bodies" 400
. "$(dirname "$(realpath "$0")")/cluster.sh"
start_cluster "$W" $PORT
trap 'stop_cluster' EXIT
PSQL="psql -X -q -h 127.0.0.1 -p $PORT -U stepsync"

# CPU ticks of every PostgreSQL process, as "pid ticks" lines; the CPU seconds spent since a snapshot by the
# processes alive now (a backend that started later counts from zero).
pgsnap() { for p in $(pgrep -u postgres); do echo "$p $(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null || echo 0)"; done; }
pgsince() { pgsnap | awk -v hz=$HZ 'NR==FNR {t[$1]=$2; next} {s += $2 - ($1 in t ? t[$1] : 0)} END {printf "%.2f", s/hz}' "$1" -; }
ticks() { awk '{print $14+$15}' /proc/$1/stat; }

sink_run() {  # posters round
  local db="sink$1r$2" url token sp rate
  $PSQL -d postgres -c "CREATE DATABASE $db"
  url="postgresql://stepsync@127.0.0.1:$PORT/$db"
  token=$("$S" clients add "load$1" --database "$url" 2>/dev/null | tail -1)
  # A call's database deadline of 60 s rather than 6: on a loaded machine one request of 30 can wait longer, and
  # post.py stops at the first answer that is not 200.
  "$S" serve --port $SP_PORT --database "$url" --database-timeout 60 ${SERVE_ARGS:-} >"$W/serve-$db.log" 2>&1 & sp=$!
  until curl -s -o /dev/null http://127.0.0.1:$SP_PORT/health; do sleep 0.1; done
  [ -z "${SETUP_SQL:-}" ] || $PSQL -d $db -c "$SETUP_SQL"
  pgsnap >"$W/snap"; local s0; s0=$(ticks $sp)
  rate=$(SINKLOAD_TOKEN=$token python3 "$HERE/post.py" http://127.0.0.1:$SP_PORT "$W/bodies" $1 \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%d %.3f %.2f" % (d["samplesPerSecond"], d["seconds"], d["clientCPUSeconds"]))' \
    || echo "0 0 0")
  local sinkcpu pgcpu rows
  # printf gives the leading zero bc leaves out (".89" is not JSON).
  sinkcpu=$(printf '%.2f' "$(echo "scale=2; ($(ticks $sp)-$s0)/$HZ" | bc)"); pgcpu=$(pgsince "$W/snap")
  kill $sp; wait $sp 2>/dev/null
  rows=$($PSQL -d $db -Atc "SELECT count(*) FROM samples")
  set -- $1 $rate
  echo "sink posters=$1 samplesPerSecond=$2 seconds=$3 posterCPU=$4 sinkCPU=$sinkcpu postgresCPU=$pgcpu rows=$rows"
  echo "{\"posters\":$1,\"rate\":$2,\"seconds\":$3,\"sinkCPU\":$sinkcpu,\"postgresCPU\":$pgcpu,\"rows\":$rows}" >>"$W/runs.jsonl"
  [ "$rows" = 400000 ] || echo "!! expected 400000 rows, found $rows" >&2
}

# Schema v2's samples table (migrations 1 and 2, verbatim), and v3's (migration 3's shape on top).
V2="CREATE TABLE clients (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL);
INSERT INTO clients (name) VALUES ('peer');
CREATE TABLE samples (client_id bigint NOT NULL REFERENCES clients (id), uuid uuid NOT NULL, type text NOT NULL,
  start_at timestamptz NOT NULL, end_at timestamptz NOT NULL, utc_offset_seconds integer, value double precision NOT NULL,
  unit text NOT NULL, source_name text NOT NULL, source_bundle_id text NOT NULL, source_version text, device_name text,
  device_model text, details json, PRIMARY KEY (client_id, uuid));
CREATE INDEX samples_client_type_start ON samples (client_id, type, start_at, uuid);
CREATE INDEX samples_long_duration ON samples (client_id, type, (end_at - start_at)) WHERE end_at - start_at > interval '1 hour';"
V3="$V2
DROP INDEX samples_long_duration; DROP INDEX samples_client_type_start;
ALTER TABLE samples DROP CONSTRAINT samples_client_id_fkey;
ALTER TABLE samples ADD COLUMN type_key bigint NOT NULL;
CREATE INDEX samples_client_type_start ON samples (client_id, type_key, start_at);
CREATE INDEX samples_long_duration ON samples (client_id, type_key, (end_at - start_at)) WHERE end_at - start_at > interval '1 hour';"
COLS="client_id, uuid, type, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id, source_version, device_name, device_model, details"

copy_run() {  # shape round
  local db="copy$1r$2" ddl cols file
  if [ $1 = v2 ]; then ddl=$V2; cols=$COLS; file=$W/rows-v2.tsv; else ddl=$V3; cols="$COLS, type_key"; file=$W/rows-v3.tsv; fi
  $PSQL -d postgres -c "CREATE DATABASE $db"; $PSQL -d $db -c "$ddl"
  pgsnap >"$W/snap"; local t0 t1 backend
  t0=$(date +%s.%N)
  backend=$(printf 'SELECT pg_backend_pid() AS pid \\gset\n\\setenv PID :pid\n\\copy samples (%s) FROM %s\n\\! awk "{print \\$14+\\$15}" /proc/$PID/stat\n' "$cols" "$file" | $PSQL -d $db -f - | tail -1)
  t1=$(date +%s.%N)
  local rate other rows
  rate=$(echo "400000/($t1-$t0)" | bc); other=$(pgsince "$W/snap"); backend=$(printf '%.2f' "$(echo "scale=2; $backend/$HZ" | bc)")
  rows=$($PSQL -d $db -Atc "SELECT count(*) FROM samples")
  echo "copy shape=$1 rowsPerSecond=$rate seconds=$(printf '%.3f' "$(echo "scale=3; ($t1-$t0)/1" | bc)") backendCPU=$backend otherPostgresCPU=$other rows=$rows"
  echo "{\"copy\":\"$1\",\"rate\":$rate,\"backendCPU\":$backend,\"otherPostgresCPU\":$other,\"rows\":$rows}" >>"$W/runs.jsonl"
  $PSQL -d postgres -c "DROP DATABASE $db"
}

rm -f "$W/runs.jsonl"; uptime
# A round is the sink at 3 and at 30 posters, then the raw COPYs, so each round's ratio compares runs minutes apart
# at most. The peer's rows are what the first sink run stored, in time order, with the type key v3 adds.
dump_rows() {
  $PSQL -d sink3r1 -c "\\copy (SELECT 1, uuid, type, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id, source_version, device_name, device_model, details FROM samples ORDER BY start_at) TO '$W/rows-v2.tsv'"
  $PSQL -d sink3r1 -c "\\copy (SELECT 1, uuid, type, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id, source_version, device_name, device_model, details, ('x' || substr(md5(type), 1, 16))::bit(64)::bigint FROM samples ORDER BY start_at) TO '$W/rows-v3.tsv'"
}
for r in $(seq 1 $ROUNDS); do
  sink_run 3 $r
  [ $r = 1 ] && dump_rows
  sink_run 30 $r
  copy_run v3 $r
  copy_run v2 $r
done
uptime
python3 - "$W/runs.jsonl" "$(cut -d, -f3- /proc/loadavg 2>/dev/null; awk '{print $1, $2, $3}' /proc/loadavg)" <<'PY'
import json, platform, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def best(pred):
    rs = [r for r in runs if pred(r)]
    return max(rs, key=lambda r: r["rate"]) if rs else {}
out = {}
for n in (3, 30):
    b = best(lambda r: r.get("posters") == n)
    out["posters%d" % n] = b.get("rate"); out["posters%dSinkCPU" % n] = b.get("sinkCPU"); out["posters%dPostgresCPU" % n] = b.get("postgresCPU")
for shape in ("v2", "v3"):
    b = best(lambda r: r.get("copy") == shape)
    key = "copy" + shape.upper()
    out[key] = b.get("rate"); out[key + "BackendCPU"] = b.get("backendCPU")
# Each round's own ratio to the raw COPY of that round (v3: the sink's table), and the worst of them.
copies = [r["rate"] for r in runs if r.get("copy") == "v3"]
for n in (3, 30):
    sinks = [r["rate"] for r in runs if r.get("posters") == n]
    ratios = [round(a / b, 2) for a, b in zip(sinks, copies) if b]
    out["posters%dRoundRatios" % n] = ratios
    out["posters%dWorstRatio" % n] = min(ratios) if ratios else None
out["cpu"] = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
out["loadAverage"] = sys.argv[2].split()[-3:]
for n in (3, 30):
    print("%d posters: each round's ratio to raw COPY (v3): %s" % (n, ", ".join("%.2fx" % r for r in out["posters%dRoundRatios" % n])), file=sys.stderr)
print(json.dumps(out))
PY
