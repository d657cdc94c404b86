#!/bin/bash
# The import row of issue 26, process to process: `stepsync import` (one transaction, derived uuids, durable commit)
# and healthkit-to-sqlite 1.0 (PyPI, in a venv outside the repository) on the same export.zip, each into a fresh
# database, interleaved ROUNDS times (odd rounds h2s first, even rounds stepsync first). Prints wall clock, CPU
# (user + sys) and peak RSS of every run (`/usr/bin/time`), the load average before each round (the machine may be
# shared), the best wall of each, and as its LAST line one JSON object for a table script:
#   {"records":…,"stepsyncSeconds":…,"stepsyncCPUSeconds":…,"stepsyncMaxRSSMB":…,"stepsyncRecordsPerSecond":…,
#    "h2sSeconds":…,"h2sCPUSeconds":…,"h2sMaxRSSMB":…,"h2sRecordsPerSecond":…,"ratio":…,"rounds":…,
#    "roundRatios":[…],"worstRoundRatio":…,"cpu":"…"} (the last two without a peer: null and absent)
# Seconds are the best (lowest) wall clock of each; CPU and RSS are those of that best run, except stepsyncMaxRSSMB,
# the highest peak RSS of every stepsync run (the memory bar is on the worst run). ratio = h2sSeconds / stepsyncSeconds;
# roundRatios pairs each round's two runs (h2s wall ÷ stepsync wall), worstRoundRatio is the lowest of them.
#
# The export is the ImportBenchmarks recipe (500,158 records + 500 workouts, 215 MB of XML), at
# $TMPDIR/stepsync-import-bench-r2/export.zip by default; when EXPORT_ZIP does not exist it is written first by
# make_export.py (beside this script, standard-library Python, about a minute; the same XML as the Swift recipe).
#
#   python3 -m venv /work/venvs/h2s && /work/venvs/h2s/bin/pip install healthkit-to-sqlite==1.0
#   ./compare.sh .build/release/stepsync /work/venvs/h2s/bin/healthkit-to-sqlite [EXPORT_ZIP] [ROUNDS]
#
# H2S may be "-" to time stepsync alone (h2s fields are then null).
set -euo pipefail
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
here=$(cd "$(dirname "$0")" && pwd)
stepsync=$1 h2s=$2
zip=${3:-${TMPDIR:-/tmp}/stepsync-import-bench-r2/export.zip} rounds=${4:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ! -f "$zip" ]]; then
  echo "writing $zip (make_export.py) …" >&2
  python3 "$here/make_export.py" "$zip"
fi

# Runs "$@" under /usr/bin/time; prints "LABEL wall=… cpu=… rss=…MB" and appends "wall cpu rssMB" to $work/LABEL.
timed() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r wall user sys rss <"$work/time"
  local cpu; cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  echo "$label wall=${wall}s cpu=${cpu}s (user $user, sys $sys) rss=$((rss / 1024))MB"
  echo "$wall $cpu $((rss / 1024))" >>"$work/$label"
}

run_stepsync() {
  rm -rf "$work/data"
  timed stepsync "$stepsync" import --data-dir "$work/data" --json "$zip"
  # The records the export holds (every one stored: the recipe has no duplicates or skips).
  python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(o["recordsRead"])' "$work/out" >"$work/records"
}
run_h2s() { rm -f "$work/h2s.db"; timed h2s "$h2s" -s "$zip" "$work/h2s.db"; }

for round in $(seq 1 "$rounds"); do
  echo "round $round: $(uptime)"
  if [[ "$h2s" == "-" ]]; then run_stepsync
  elif (( round % 2 )); then run_h2s; run_stepsync
  else run_stepsync; run_h2s
  fi
done

# The best (lowest wall) run of each, the highest stepsync RSS, and the JSON line.
python3 - "$work" <<'PY'
import json, os, platform, sys
work = sys.argv[1]
def runs(label):
    path = os.path.join(work, label)
    if not os.path.exists(path):
        return []
    return [tuple(float(x) for x in line.split()) for line in open(path) if line.strip()]
s, h = runs("stepsync"), runs("h2s")
records = int(open(os.path.join(work, "records")).read())
bs = min(s)
bh = min(h) if h else None
out = {
    "records": records,
    "stepsyncSeconds": bs[0], "stepsyncCPUSeconds": bs[1], "stepsyncMaxRSSMB": int(max(r[2] for r in s)),
    "stepsyncRecordsPerSecond": round(records / bs[0]),
    "h2sSeconds": bh[0] if bh else None, "h2sCPUSeconds": bh[1] if bh else None,
    "h2sMaxRSSMB": int(bh[2]) if bh else None, "h2sRecordsPerSecond": round(records / bh[0]) if bh else None,
    "ratio": round(bh[0] / bs[0], 2) if bh else None,
    "rounds": len(s),
    # Each round's own pair (the issue-36 bar holds in every round, not for the best of each).
    "roundRatios": [round(hr[0] / sr[0], 2) for sr, hr in zip(s, h)] if h else None,
    "cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine()),
}
if out["roundRatios"]:
    out["worstRoundRatio"] = min(out["roundRatios"])
print(f"best wall: stepsync {bs[0]}s ({out['stepsyncRecordsPerSecond']} records/s)"
      + (f", healthkit-to-sqlite {bh[0]}s ({out['h2sRecordsPerSecond']} records/s): {out['ratio']}x" if bh else ""))
if out["roundRatios"]:
    print("each round's ratio: " + ", ".join(f"{r}x" for r in out["roundRatios"]) + f" (worst {out['worstRoundRatio']}x)")
print(json.dumps(out))
PY
