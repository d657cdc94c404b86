#!/bin/bash
# PostgreSQL ingest (COPY and INSERT) next to the JSONL sink: the same 200 × 1,000-sample bodies (bodies.py), 3 and 30
# posters (post.py), durable; CPU seconds of the sink process and of every PostgreSQL process. Runs as root (initdb
# as the postgres user), PostgreSQL 15 from /usr/lib/postgresql/15/bin, on a throwaway cluster in $TMPDIR.
#   ./postgres.sh .build/release/stepsync /tmp/sinkload-bodies
set -u
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
BIN=${STEPSYNC_PG_BIN:-/usr/lib/postgresql/15/bin}; S=$(realpath "$1"); BODIES=$2; W=$(mktemp -d); PORT=55432; HZ=$(getconf CLK_TCK)
chown postgres $W; HERE=$(dirname "$(realpath "$0")")
runuser -u postgres -- $BIN/initdb -D $W/data -A trust -U stepsync >/dev/null
runuser -u postgres -- $BIN/pg_ctl -D $W/data -o "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$W" -l $W/log -w start >/dev/null
$BIN/createdb -h 127.0.0.1 -p $PORT -U stepsync bench
URL=postgresql://stepsync@127.0.0.1:$PORT/bench
ticks() { awk '{print $14+$15}' /proc/$1/stat 2>/dev/null || echo 0; }
pgticks() { local t=0; for p in $(pgrep -u postgres); do t=$((t + $(ticks $p))); done; echo $t; }
post() { python3 "$HERE/post.py" http://127.0.0.1:$1 "$BODIES" $2 | python3 -c 'import json,sys; d=json.load(sys.stdin); print("%7d samples/s %.3f s" % (d["samplesPerSecond"], d["seconds"]))'; }
for conns in 3 30; do
  for round in 1 2; do
    for method in copy copy-text insert; do
      TOKEN=$($S clients add "c$conns-$round-$method" --database $URL | tail -1)
      $S serve --port 18080 --database $URL --database-ingest $method >$W/serve.log 2>&1 & SP=$!
      until curl -s -o /dev/null http://127.0.0.1:18080/health; do sleep 0.1; done
      P0=$(pgticks); S0=$(ticks $SP)
      R=$(SINKLOAD_TOKEN=$TOKEN post 18080 $conns)
      echo "pg-$method conns=$conns $R sinkCPU=$(echo "scale=2; ($(ticks $SP)-$S0)/$HZ" | bc) postgresCPU=$(echo "scale=2; ($(pgticks)-$P0)/$HZ" | bc)"
      kill $SP; wait $SP 2>/dev/null
    done
    rm -rf $W/jsonl
    $S serve --port 18081 --data $W/jsonl/steps.jsonl >$W/serve2.log 2>&1 & SP=$!
    until curl -s -o /dev/null http://127.0.0.1:18081/health; do sleep 0.1; done
    S0=$(ticks $SP)
    R=$(post 18081 $conns)
    echo "jsonl conns=$conns $R sinkCPU=$(echo "scale=2; ($(ticks $SP)-$S0)/$HZ" | bc)"
    kill $SP; wait $SP 2>/dev/null
  done
done
psql -h 127.0.0.1 -p $PORT -U stepsync bench -Atc "select count(*), count(distinct (client_id, uuid)) from samples"
runuser -u postgres -- $BIN/pg_ctl -D $W/data -m fast -w stop >/dev/null
rm -rf "$W"
