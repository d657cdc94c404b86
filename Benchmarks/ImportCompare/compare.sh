#!/bin/bash
# The import row of issue 14, side by side: `stepsync import` (one transaction, derived uuids, durable commit) and
# healthkit-to-sqlite 1.0 (PyPI, in a venv outside the repository) on the same export.zip, each into a fresh
# database, alternately ROUNDS times. Prints wall clock, CPU (user + sys) and peak RSS of every run (`/usr/bin/time`),
# the load average before each round (the machine is shared), and the wall-clock ratio of the best runs.
#
# The export is the ImportBenchmarks recipe (500,158 records + 500 workouts, 215 MB of XML), written by the first run
# of `swift package --disable-sandbox benchmark --target ImportBenchmarks` to $TMPDIR/stepsync-import-bench-r2/.
#
#   python3 -m venv /tmp/h2s && /tmp/h2s/bin/pip install healthkit-to-sqlite==1.0
#   ./compare.sh .build/release/stepsync /tmp/h2s/bin/healthkit-to-sqlite [export.zip] [ROUNDS]
set -euo pipefail
stepsync=$1 h2s=$2
zip=${3:-${TMPDIR:-/tmp}/stepsync-import-bench-r2/export.zip} rounds=${4:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs "$@" under /usr/bin/time; prints "LABEL wall=… cpu=… rss=…MB" and appends the wall clock to $work/LABEL.
timed() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys rss <"$work/time"
  echo "$label wall=${wall}s cpu=$(echo "$user + $sys" | bc)s (user $user, sys $sys) rss=$((rss / 1024))MB"
  echo "$wall" >>"$work/$label"
}

run_stepsync() { rm -rf "$work/data"; timed stepsync "$stepsync" import --data-dir "$work/data" "$zip"; }
run_h2s() { rm -f "$work/h2s.db"; timed h2s "$h2s" -s "$zip" "$work/h2s.db"; }

for round in $(seq 1 "$rounds"); do
  echo "round $round: $(uptime)"
  if (( round % 2 )); then run_h2s; run_stepsync; else run_stepsync; run_h2s; fi
done
best() { sort -n "$work/$1" | head -1; }
echo "best wall: stepsync $(best stepsync)s, healthkit-to-sqlite $(best h2s)s: $(echo "scale=1; $(best h2s) / $(best stepsync)" | bc)x"
