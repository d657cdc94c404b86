#!/bin/bash
# Issue 36's ratios in one sitting: each row beside its peer in the same run, every round's own ratio, the bar on
# the worst round. The import against healthkit-to-sqlite 1.0 on the same export.zip (ImportCompare/compare.sh);
# the PostgreSQL sink at 3 and 30 posters against psql's raw text COPY of the same rows into the same table, each
# round against that round's COPY (SinkLoad/postgres-row.sh). Prints the machine (CPU model) and a markdown table
# for Planning/benchmarks.md's table of this machine.
#
# For a quiet machine only (nothing in `swift test` or CI runs it). Runs as root (PostgreSQL's initdb runs as the
# `postgres` user). About 5 minutes for 3 rounds after the release build.
#
#   H2S=/work/venvs/h2s/bin/healthkit-to-sqlite Benchmarks/issue36.sh      # ROUNDS=3 by default
#
# Environment: STEPSYNC (the binary; default: a release build of this checkout), H2S (required), ROUNDS,
# STEPSYNC_BENCH_EXPORT (the 500k-record export.zip; written by make_export.py when missing), ISSUE36_OUT (logs).
set -euo pipefail
. "$(dirname "$0")/sitting.sh"
sitting_start issue36 3
: "${H2S:?set H2S to healthkit-to-sqlite 1.0 (python3 -m venv V && V/bin/pip install healthkit-to-sqlite==1.0)}"
sitting_binary

log "import: $out/import.txt"
ImportCompare/compare.sh "$stepsync" "$H2S" "${STEPSYNC_BENCH_EXPORT:-$tmp/stepsync-import-bench-r2/export.zip}" "$rounds" \
  >"$out/import.txt" 2>&1
log "postgres: $out/postgres.txt"
SinkLoad/postgres-row.sh "$stepsync" "$(mktemp -d "$tmp/issue36-pg-XXXXXX")" "$rounds" >"$out/postgres.txt" 2>&1
echo "ended: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uptime)" >>"$out/header.txt"

python3 - "$out" <<'EOF' | tee "$out/table.md"
import json, os, sys
out = sys.argv[1]
def last_json(name):
    lines = [l for l in open(os.path.join(out, name + ".txt")) if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {}
imp, pg = last_json("import"), last_json("postgres")
def rounds(xs): return " / ".join("%.2f×" % x for x in xs) if xs else "—"
def met(ok): return "**yes**" if ok else "no"
print(open(os.path.join(out, "header.txt")).read())
print("| row | peer (best round) | ours (best round) | each round's ratio | bar (every round) | met? |")
print("|---|---|---|---|---|---|")
worst, rss = imp.get("worstRoundRatio"), imp.get("stepsyncMaxRSSMB")
print("| import, %s-record export.zip | healthkit-to-sqlite %.1f s | %.2f s, peak %s MB | %s | ≥ 25×, ≤ 128 MB | %s |" % (
    format(imp.get("records", 0), ","), imp.get("h2sSeconds") or 0, imp.get("stepsyncSeconds") or 0, rss,
    rounds(imp.get("roundRatios")), met(worst is not None and worst >= 25 and rss is not None and rss <= 128)))
for n in (3, 30):
    worst = pg.get("posters%dWorstRatio" % n)
    print("| PostgreSQL sink, 400 × 1,000 samples, durable, %d posters | raw text COPY into the same table: %.0fk rows/s | %.0fk samples/s | %s | ≥ 1.5× | %s |" % (
        n, (pg.get("copyV3") or 0) / 1000, (pg.get("posters%d" % n) or 0) / 1000,
        rounds(pg.get("posters%dRoundRatios" % n)), met(worst is not None and worst >= 1.5)))
EOF
log "table: $out/table.md"
