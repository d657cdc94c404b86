#!/bin/bash
# Issue 26's table in one command: every row measured process to process with the release `stepsync`, each beside
# its peer — healthkit-to-sqlite on the same export.zip, raw `COPY` into the same PostgreSQL, the original
# HealthStepsSync Flask server posted the same bodies over the same (delayed) link — then the table as markdown:
# row, peer, ours, bar, met?, with `uptime` before and after, the machine, the toolchain and the commit.
#
# For a quiet machine only (nothing in `swift test` or CI runs it). Runs as root (PostgreSQL's initdb runs as the
# `postgres` user). About 10–15 minutes after the release build, most of it healthkit-to-sqlite (≈ 40–70 s a round).
#
#   Benchmarks/issue26.sh                      # peers it cannot find are left out, their cells say so
#   H2S=/work/venvs/h2s/bin/healthkit-to-sqlite \
#   FLASK_MAIN=/path/to/HealthStepsSync/api/main.py FLASK_PYTHON=/work/venvs/flask/bin/python \
#     Benchmarks/issue26.sh
#
# Environment (all optional):
#   STEPSYNC               the binary to measure (default: `swift build -c release --product stepsync` of this checkout)
#   H2S                    healthkit-to-sqlite 1.0 (`pip install healthkit-to-sqlite==1.0` in a venv)
#   FLASK_MAIN, FLASK_PYTHON  the seed's api/main.py and a Python with flask and flask-cors
#   STEPSYNC_BENCH_EXPORT  the 500k-record export.zip (default: written by ImportCompare on first use)
#   ROUNDS                 rounds of each row (default 2; a row's figure is its best round, the median beside it)
#   ISSUE26_OUT            where the logs go (default: a new temporary folder, printed)
#
# Each row's script can run alone; each prints its runs and, last, one JSON line this script reads:
#   ImportCompare/compare.sh BINARY H2S EXPORT_ZIP ROUNDS      import vs healthkit-to-sqlite
#   SinkLoad/postgres-row.sh BINARY WORKDIR ROUNDS             PostgreSQL sink at 3 and 30 posters, raw COPY beside it
#   LinkProxy/sync-link.sh BINARY WORKDIR --rounds N           sync on loopback and through 25 / 75 ms each way
#   LinkProxy/flask-link.sh FLASK_MAIN FLASK_PYTHON BODIES ROUNDS   the Flask server posted over the same links
#   DemoMemory/demo-memory.sh BINARY WORKDIR ROUNDS            peak RSS of the default demo (every type)
set -euo pipefail
. "$(dirname "$0")/sitting.sh"
sitting_start issue26 2
sitting_binary

# Runs one row's script, its log in $out/NAME.txt, its last JSON line in $out/NAME.json; a failing row is said and
# the others still run.
row() {
  local name=$1; shift
  log "$name: $*"
  if "$@" >"$out/$name.txt" 2>&1; then
    grep '^{' "$out/$name.txt" | tail -1 >"$out/$name.json" || true
  else
    log "$name failed (exit $?): see $out/$name.txt"; tail -5 "$out/$name.txt" >&2 || true
  fi
}

if [[ -n "${H2S:-}" ]]; then
  row import ImportCompare/compare.sh "$stepsync" "$H2S" "${STEPSYNC_BENCH_EXPORT:-$tmp/stepsync-import-bench-r2/export.zip}" "$rounds"
else
  log "H2S not set: healthkit-to-sqlite is left out"
  row import ImportCompare/compare.sh "$stepsync" - "${STEPSYNC_BENCH_EXPORT:-$tmp/stepsync-import-bench-r2/export.zip}" "$rounds"
fi
row postgres SinkLoad/postgres-row.sh "$stepsync" "$(mktemp -d "$tmp/issue26-pg-XXXXXX")" "$rounds"
row link LinkProxy/sync-link.sh "$stepsync" "$(mktemp -d "$tmp/issue26-link-XXXXXX")" --rounds "$rounds"
if [[ -n "${FLASK_MAIN:-}" && -n "${FLASK_PYTHON:-}" ]]; then
  bodies=$tmp/sinkload-bodies
  [[ -f "$bodies/body-199.json" ]] || python3 SinkLoad/bodies.py "$bodies"
  row flask-link LinkProxy/flask-link.sh "$FLASK_MAIN" "$FLASK_PYTHON" "$bodies" "$rounds"
else
  log "FLASK_MAIN/FLASK_PYTHON not set: the Flask server is left out"
fi
row memory DemoMemory/demo-memory.sh "$stepsync" "$(mktemp -d "$tmp/issue26-mem-XXXXXX")" "$rounds"
echo "after: $(uptime)" >>"$out/header.txt"

python3 - "$out" <<'EOF' | tee "$out/table.md"
import json, os, sys
out = sys.argv[1]

def result(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.loads(f.read() or "null") or {}
    except (OSError, ValueError):
        return {}

def k(x):
    return "—" if x is None else f"{x / 1000:.0f}k"

def met(ok):
    return "—" if ok is None else ("**yes**" if ok else "no")

imp, pg, link, flask, mem = (result(n) for n in ("import", "postgres", "link", "flask-link", "memory"))
rows = []

s, h, rss = imp.get("stepsyncSeconds"), imp.get("h2sSeconds"), imp.get("stepsyncMaxRSSMB")
ratio = h / s if s and h else None
rows.append((f"import, {imp.get('records', 500158):,}-record export.zip, process to process",
             f"healthkit-to-sqlite {h:.1f} s" if h else "—",
             (f"{s:.2f} s ({imp.get('records', 500158) / s / 1000:.0f}k records/s), peak {rss:.0f} MB" if s else "not run")
             + (f" = **{ratio:.1f}×**" if ratio else ""),
             "≥ 20×, ≤ 128 MB", met(None if ratio is None or rss is None else ratio >= 20 and rss <= 128)))

for posters in (3, 30):
    ours = pg.get(f"posters{posters}")
    copy = pg.get("copyV3")
    rows.append((f"PostgreSQL sink, 400 × 1,000 samples, durable, {posters} posters",
                 f"raw COPY of the same rows into the sink's table (schema v3): {k(copy)} rows/s (into v2's: {k(pg.get('copyV2'))})" if copy else "—",
                 f"{k(ours)} samples/s" if ours else "not run", "≥ 130k", met(None if ours is None else ours >= 130_000)))

for key, label, bar, flask_key in (("rtt50", "50 ms round trip", 250_000, "rtt50"),
                                   ("rtt150", "150 ms round trip", 150_000, "rtt150"),
                                   ("loopback", "loopback", 450_000, "loopback")):
    ours = link.get(key)
    peer = flask.get(flask_key)
    rows.append((f"sync, realistic decade (steps{', %s samples' % format(link['samples'], ',') if link.get('samples') else ''}), concurrency 3, {label}",
                 f"Flask server, 3 posters × 1,000 samples: {k(peer)} samples/s" if peer else "—",
                 f"{k(ours)} samples/s" if ours else "not run", f"≥ {bar // 1000}k", met(None if ours is None else ours >= bar)))

peak = mem.get("demoMaxRSSMB")
rows.append((f"default `stepsync demo` (every type{', %s samples' % format(mem['samples'], ',') if mem.get('samples') else ''}), peak memory",
             "—", f"{peak:.0f} MB" if peak else "not run", "≤ 250 MB", met(None if peak is None else peak <= 250)))

print(open(os.path.join(out, "header.txt")).read())
print("| row | peer | ours (best of the rounds) | bar | met? |")
print("|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
EOF
log "table: $out/table.md"
