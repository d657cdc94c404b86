#!/usr/bin/env bash
# The demo's memory row of issue 26: runs the default `stepsync demo --json` (every type, a decade) and
# `stepsync demo --types steps --json` as processes and prints each one's peak resident memory twice — the demo's own
# `maxRSSMegabytes` (getrusage) and `/usr/bin/time -v`'s "Maximum resident set size" — with its wall clock, CPU seconds,
# samples, and the resident memory at each stage's end (the demo's `memory` object: generate, layer, sync, sinkCheck,
# storeCheck). The last line is one JSON object for the table script:
#   {"demoMaxRSSMB":…, "demoTimeMaxRSSMB":…, "demoStepsMaxRSSMB":…, "seconds":…, "stepsSeconds":…, "samples":…, …}
#
# Usage: Benchmarks/DemoMemory/demo-memory.sh BINARY WORKDIR [ROUNDS]
#   BINARY   a release `stepsync` (e.g. .build/release/stepsync)
#   WORKDIR  scratch directory: the demos' data directories (TMPDIR) and their outputs go there
#   ROUNDS   runs of each demo (default 1); the figures are the lowest peak of the rounds
# Needs GNU time (/usr/bin/time, Debian package `time`) and python3.
set -euo pipefail
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [[ $# -lt 2 ]]; then
    echo "usage: $0 BINARY WORKDIR [ROUNDS]" >&2
    exit 64
fi
binary=$(realpath "$1")
workdir=$2
rounds=${3:-1}
mkdir -p "$workdir"
workdir=$(realpath "$workdir")
[[ -x /usr/bin/time ]] || { echo "$0: /usr/bin/time (GNU time) is needed: apt-get install -y time" >&2; exit 69; }

run_demo() {  # name, demo arguments...
    local name=$1; shift
    local out="$workdir/$name"
    TMPDIR="$workdir" /usr/bin/time -v -o "$out.time" "$binary" demo --json "$@" > "$out.json"
}

summary=()
for round in $(seq 1 "$rounds"); do
    for variant in all steps; do
        name="demo-$variant-$round"
        if [[ $variant == all ]]; then run_demo "$name"; else run_demo "$name" --types steps; fi
        summary+=("$workdir/$name")
    done
done

python3 - "$rounds" "${summary[@]}" <<'PY'
import json, re, sys
rounds, paths = int(sys.argv[1]), sys.argv[2:]

def load(path):
    demo = json.load(open(path + ".json"))
    text = open(path + ".time").read()
    def field(label):
        m = re.search(re.escape(label) + r":\s*(\S+)", text)
        return m.group(1) if m else None
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    return {
        "maxRSSMB": round(demo["maxRSSMegabytes"], 1),
        "timeMaxRSSMB": round(int(field("Maximum resident set size (kbytes)")) / 1024, 1),
        "seconds": round(seconds, 2),
        "cpuSeconds": round(float(field("User time (seconds)")) + float(field("System time (seconds)")), 2),
        "samples": demo["samples"], "exact": demo["exact"],
        "syncSeconds": round(demo["syncSeconds"], 2),
        "stages": {k: v.get("rssMB") for k, v in demo.get("memory", {}).items()},
        "sinkTablesMB": round((demo.get("sinkIndexBytes", 0) + demo.get("sinkSlotBytes", 0)) / 1048576, 1)
            if "sinkIndexBytes" in demo else None,
    }

runs = {"all": [], "steps": []}
for path in paths:
    variant = "all" if "/demo-all-" in path else "steps"
    r = load(path)
    runs[variant].append(r)
    print(f"{variant:5}  peak {r['maxRSSMB']:7.1f} MB (time -v {r['timeMaxRSSMB']:7.1f})  wall {r['seconds']:7.1f} s  "
          f"CPU {r['cpuSeconds']:6.1f} s  {r['samples']:,} samples  exact {r['exact']}  "
          f"sink tables {r['sinkTablesMB']} MB  stage RSS {r['stages']}")

def best(variant):
    return min(runs[variant], key=lambda r: r["maxRSSMB"])

a, s = best("all"), best("steps")
print(json.dumps({
    "demoMaxRSSMB": a["maxRSSMB"], "demoTimeMaxRSSMB": a["timeMaxRSSMB"],
    "demoStepsMaxRSSMB": s["maxRSSMB"], "demoStepsTimeMaxRSSMB": s["timeMaxRSSMB"],
    "seconds": a["seconds"], "cpuSeconds": a["cpuSeconds"], "stepsSeconds": s["seconds"],
    "samples": a["samples"], "stepsSamples": s["samples"],
    "exact": all(r["exact"] for v in runs.values() for r in v), "rounds": rounds,
}))
PY
