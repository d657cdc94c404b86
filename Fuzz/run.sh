#!/usr/bin/env bash
# Builds stepsync's libFuzzer targets straight from the package's current sources and runs them, one at a time.
#
#   Fuzz/run.sh                         build and run every target for 300 s each
#   Fuzz/run.sh --time 900 wire-request run one target for 15 minutes
#   Fuzz/run.sh --build-only            only build (.build-fuzz/bin/<target>)
#   Fuzz/run.sh --replay                run every corpus and crash file once through each target, then stop
#   Fuzz/run.sh --merge iso8601         after the run, add the inputs that reach new code (edges) to Fuzz/Corpus/
#   Fuzz/run.sh --minimise              rebuild each Fuzz/Corpus/<target> as its seed-* files plus a small set of
#                                       inputs (of it and .build-fuzz/corpus/<target>) reaching every edge they reach
#   Fuzz/run.sh --list                  list the targets
#
# Each target is Fuzz/Targets/<target>.swift: a `@_cdecl("LLVMFuzzerTestOneInput")` entry point whose first line
# `// fuzz-sources: core` or `// fuzz-sources: import` says which sources it needs. Every target links
# Sources/StepSyncCore, built once into a static library. `core` compiles the oracles of
# Tests/StepSyncCoreTests/FuzzOracles/ (the checks the replay tests run too) with the entry point; `import` compiles
# the files of Sources/StepSyncImport that need only Foundation, StepSyncCore and ZIPFoundation (built from
# SwiftPM's checkout: run `swift package resolve` once) — everything but the store's side — and the oracles of
# Tests/StepSyncImportTests/FuzzOracles/, in the target's own module so internal types are reachable. Everything is a debug build (-Onone: bounds and
# overflow checks on) with AddressSanitizer and libFuzzer's coverage. See Fuzz/README.md.
#
# Runs are single-process (one core): the machine is shared. New inputs go to .build-fuzz/corpus/<target> (not
# committed); crashes to Fuzz/Crashes/<target>/ (commit them: the replay tests run each once); logs to
# .build-fuzz/logs/. The exit status is 1 if any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/.build-fuzz
seconds=300
build_only=0
replay=0
merge=0
minimise=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) seconds=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --replay) replay=1; shift ;;
    --merge) merge=1; shift ;;
    --minimise|--minimize) minimise=1; shift ;;
    --list) for f in Fuzz/Targets/*.swift; do basename "$f" .swift; done; exit 0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/Targets/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi
for t in "${targets[@]}"; do
  [ -f "Fuzz/Targets/$t.swift" ] || { echo "run.sh: no target $t (Fuzz/Targets/$t.swift); try --list" >&2; exit 2; }
done

flags=(-parse-as-library -swift-version 6 -sanitize=fuzzer,address -Onone -g)
mkdir -p "$out/lib" "$out/bin" "$out/logs" "$out/corpus"

# The gold linker warns "Cannot export local symbol" for every Swift symbol: harmless, hidden.
quiet() {
  local log code=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || code=$?
  grep -v -e 'Cannot export local symbol' "$log" || true
  rm -f "$log"
  return $code
}

# StepSyncCore's SHA-1 wraps swift-crypto (BoringSSL), which these swiftc builds do not have: the fuzz builds put in
# its place the hand-written SHA-1 it replaced (kept as the tests' reference, Tests/StepSyncImportTests/
# HandwrittenSHA1.swift; the same digests, checked by DerivedUUIDTests), renamed `SHA1` and made public.
fuzz_sha1() {
  mkdir -p "$out/gen"
  sed -E -e 's/^struct HandwrittenSHA1 \{/public struct SHA1: Sendable {/' \
         -e 's/^    init\(\)/    public init()/' -e 's/^    mutating func/    public mutating func/' \
    Tests/StepSyncImportTests/HandwrittenSHA1.swift >"$out/gen/SHA1.swift.new"
  cmp -s "$out/gen/SHA1.swift.new" "$out/gen/SHA1.swift" 2>/dev/null || mv "$out/gen/SHA1.swift.new" "$out/gen/SHA1.swift"
  rm -f "$out/gen/SHA1.swift.new"
}
# The other core files that import Crypto use only `SHA256.hash(data:)` (a token's fingerprint, SinkTarget): the fuzz
# builds compile a copy without the import, beside a stand-in `SHA256` that stops the process if reached — no target
# reaches it (a fingerprint is never computed from fuzzed bytes), and a target that ever did would say so as a crash.
fuzz_crypto_free() {
  local f copy
  mkdir -p "$out/gen/nocrypto"
  cat >"$out/gen/SHA256.swift.new" <<'SWIFT'
import Foundation
/// Fuzz builds only (Fuzz/run.sh): swift-crypto is not linked; nothing fuzzed computes a SHA-256.
enum SHA256 {
    static func hash(data: Data) -> [UInt8] { fatalError("SHA-256 is not in fuzz builds (Fuzz/run.sh)") }
}
SWIFT
  cmp -s "$out/gen/SHA256.swift.new" "$out/gen/SHA256.swift" 2>/dev/null || mv "$out/gen/SHA256.swift.new" "$out/gen/SHA256.swift"
  rm -f "$out/gen/SHA256.swift.new"
  for f in $(grep -rlx 'import Crypto' Sources/StepSyncCore --include='*.swift' | grep -v '/Identity/SHA1.swift$' | sort); do
    copy="$out/gen/nocrypto/$(basename "$f")"
    grep -vx 'import Crypto' "$f" >"$copy.new"
    cmp -s "$copy.new" "$copy" 2>/dev/null || mv "$copy.new" "$copy"
    rm -f "$copy.new"
    echo "$f"
  done
}
core_sources() {
  fuzz_sha1
  local replaced
  replaced=$(fuzz_crypto_free)
  { find Sources/StepSyncCore -name '*.swift' ! -path '*/Identity/SHA1.swift' | grep -vxF "$replaced"
    for f in $replaced; do echo "$out/gen/nocrypto/$(basename "$f")"; done
    echo "$out/gen/SHA1.swift"; echo "$out/gen/SHA256.swift"; } | sort
}

# Files of the importer that need nothing but Foundation, StepSyncCore and ZIPFoundation: those importing nothing
# else, minus (until nothing changes) those that use a type declared in a file left out (HealthImporter needs the
# store, GRDB).
import_sources() {
  local f keep="" out="" types changed=1
  for f in $(find Sources/StepSyncImport -name '*.swift' | sort); do
    if grep -E '^(@testable )?import ' "$f" | grep -qvE '^import (Foundation|StepSyncCore|ZIPFoundation)$'; then
      out="$out $f"
    else
      keep="$keep $f"
    fi
  done
  while [ $changed = 1 ]; do
    changed=0
    # shellcheck disable=SC2086
    types=$(sed -nE 's/^(public |final |private |fileprivate )*(struct|enum|class|actor|protocol) ([A-Za-z0-9_]+).*/\3/p' $out | sort -u)
    for f in $keep; do
      if [ -n "$types" ] && grep -vE '^[[:space:]]*//' "$f" | grep -qwF "$types"; then
        keep=$(echo "$keep" | tr ' ' '\n' | grep -vxF "$f" | tr '\n' ' ')
        out="$out $f"
        changed=1
      fi
    done
  done
  echo "$keep" | tr ' ' '\n' | grep . || true
}

build_core() {
  local lib=$out/lib/libStepSyncCore.a
  if [ -f "$lib" ] && [ -z "$(find Sources/StepSyncCore "$out/gen" Tests/StepSyncImportTests/HandwrittenSHA1.swift -name '*.swift' -newer "$lib")" ] \
     && [ "$(core_sources | cksum)" = "$(cat "$out/lib/sources.sum" 2>/dev/null)" ]; then
    return 0
  fi
  echo "fuzz: building StepSyncCore (debug, ASan, coverage)"
  # shellcheck disable=SC2046
  quiet swiftc "${flags[@]}" -enable-testing -module-name StepSyncCore -I Sources/StepSyncZlib -emit-module \
    -emit-module-path "$out/lib/StepSyncCore.swiftmodule" -emit-library -static -o "$lib" $(core_sources)
  core_sources | cksum > "$out/lib/sources.sum"
}

# ZIPFoundation (the importer's ExportInput uses it) from SwiftPM's checkout, without instrumentation.
zip_sources=.build/checkouts/ZIPFoundation/Sources
build_zip() {
  local lib=$out/lib/libZIPFoundation.a
  [ -f "$lib" ] && return 0
  if [ ! -d "$zip_sources/ZIPFoundation" ]; then
    echo "run.sh: the importer's targets need ZIPFoundation's sources; run 'swift package resolve' first" >&2
    exit 2
  fi
  echo "fuzz: building ZIPFoundation"
  # shellcheck disable=SC2046
  quiet swiftc -parse-as-library -swift-version 5 -Onone -g -module-name ZIPFoundation -I "$zip_sources/CZLib" \
    -Xcc -D_GNU_SOURCE=1 -emit-module -emit-module-path "$out/lib/ZIPFoundation.swiftmodule" -emit-library -static \
    -o "$lib" $(find "$zip_sources/ZIPFoundation" -name '*.swift' | sort)
}

build_target() {
  local t=$1 file=Fuzz/Targets/$1.swift extra=() needs
  needs=$(sed -n '1s/^\/\/ fuzz-sources://p' "$file")
  local f
  case " $needs " in *" core "*)
    for f in $(find Tests/StepSyncCoreTests/FuzzOracles -name '*.swift' | sort); do extra+=("$f"); done ;;
  esac
  local link=()
  case " $needs " in *" import "*)
    build_zip
    link=(-I "$zip_sources/CZLib" -lZIPFoundation -lz)
    for f in $(import_sources) $(find Tests/StepSyncImportTests/FuzzOracles -name '*.swift' | sort); do extra+=("$f"); done ;;
  esac
  local bin=$out/bin/$t
  if [ -f "$bin" ] && [ -z "$(find "$file" Fuzz/Support "${extra[@]}" "$out/lib/libStepSyncCore.a" -newer "$bin" 2>/dev/null)" ] \
     && [ "${extra[*]}" = "$(cat "$bin.sources" 2>/dev/null)" ]; then
    return 0
  fi
  echo "fuzz: building $t (${#extra[@]} files besides StepSyncCore)"
  local module
  module=Fuzz$(echo "$t" | awk -F- '{ for (i = 1; i <= NF; i++) printf "%s", toupper(substr($i, 1, 1)) substr($i, 2) }')
  quiet swiftc "${flags[@]}" -module-name "$module" -I "$out/lib" -I Sources/StepSyncZlib -L "$out/lib" -lStepSyncCore -lz \
    "${link[@]}" \
    "${extra[@]}" Fuzz/Support/*.swift "$file" -o "$bin"
  echo "${extra[*]}" > "$bin.sources"
}

build_core
for t in "${targets[@]}"; do build_target "$t"; done
[ $build_only = 1 ] && exit 0

# Swift's own crash backtracer trips AddressSanitizer; libFuzzer reports and saves the input itself. Fuzz runs keep
# no allocation stack traces (ASan's unwinding per malloc halved the speed); --replay keeps them for diagnosis.
export SWIFT_BACKTRACE=enable=no
base_asan=${ASAN_OPTIONS:-}
[ $replay = 1 ] || base_asan=${ASAN_OPTIONS:-malloc_context_size=0}
status=0
# Corpus merges count edges only (-use_counters=0: not how often each edge ran) and take a greedy set cover
# (-set_cover_merge=1): on 2026-11-23 this kept every edge of 2,600 inputs with 630 (du: 9.8 MB -> 2.7 MB).
merge_flags=(-set_cover_merge=1 -use_counters=0 -timeout=10 -rss_limit_mb=2048 -max_len=4096)
for t in "${targets[@]}"; do
  bin=$out/bin/$t
  mkdir -p "Fuzz/Corpus/$t" "Fuzz/Crashes/$t" "$out/corpus/$t"
  # A target's own libFuzzer options and AddressSanitizer options: lines `// fuzz-options: -detect_leaks=0` and
  # `// fuzz-asan-options: detect_leaks=0` in its file.
  read -r -a options <<<"$(sed -n 's/^\/\/ fuzz-options://p' "Fuzz/Targets/$t.swift" | head -1)" || true
  asan=$(sed -n 's/^\/\/ fuzz-asan-options: *//p' "Fuzz/Targets/$t.swift" | head -1)
  export ASAN_OPTIONS="${base_asan}${base_asan:+${asan:+:}}${asan}"
  if [ $minimise = 1 ]; then
    fresh=$out/minimise/$t
    rm -rf "$fresh" && mkdir -p "$fresh"
    find "Fuzz/Corpus/$t" -type f -name 'seed-*' -exec cp {} "$fresh/" \;
    before=$(find "Fuzz/Corpus/$t" -type f | wc -l)
    if "$bin" "${merge_flags[@]}" ${options[@]+"${options[@]}"} "$fresh" "Fuzz/Corpus/$t" "$out/corpus/$t" >"$out/logs/$t-minimise.log" 2>&1; then
      rm -rf "Fuzz/Corpus/$t" && mv "$fresh" "Fuzz/Corpus/$t"
      echo "fuzz: $t: corpus minimised, $before -> $(find "Fuzz/Corpus/$t" -type f | wc -l) files"
    else
      status=1
      echo "fuzz: $t: minimising failed (log: $out/logs/$t-minimise.log); Fuzz/Corpus/$t unchanged"
    fi
    continue
  fi
  dict=()
  [ -f "Fuzz/Dictionaries/$t.dict" ] && dict=(-dict="Fuzz/Dictionaries/$t.dict")
  if [ $replay = 1 ]; then
    files=$(find "Fuzz/Corpus/$t" "Fuzz/Crashes/$t" -type f ! -name '.*' | sort)
    echo "fuzz: $t: replaying $(echo "$files" | grep -c . || true) files"
    # shellcheck disable=SC2086
    if [ -n "$files" ] && ! "$bin" ${options[@]+"${options[@]}"} $files >"$out/logs/$t-replay.log" 2>&1; then
      status=1
      grep -m1 -B2 -A25 -E 'ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY' "$out/logs/$t-replay.log" | head -40 || true
    else
      echo "fuzz: $t: replay ok"
    fi
    continue
  fi
  log=$out/logs/$t-$(date +%Y%m%dT%H%M%S).log
  echo "fuzz: $t: running for up to $seconds s (log: ${log#"$root"/})"
  started=$(date +%s)
  before=$(find "Fuzz/Crashes/$t" -type f | wc -l)
  set +e
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="Fuzz/Crashes/$t/" ${dict[@]+"${dict[@]}"} ${options[@]+"${options[@]}"} "$out/corpus/$t" "Fuzz/Corpus/$t" >"$log" 2>&1
  code=$?
  set -e
  runs=$(grep -oE '^stat::number_of_executed_units: +[0-9]+' "$log" | grep -oE '[0-9]+' || echo '?')
  speed=$(grep -oE '^stat::average_exec_per_sec: +[0-9]+' "$log" | grep -oE '[0-9]+' || echo '?')
  after=$(find "Fuzz/Crashes/$t" -type f | wc -l)
  echo "fuzz: $t: $runs inputs in $(($(date +%s) - started)) s ($speed/s), exit $code, $((after - before)) new crash file(s)"
  grep -E '^#[0-9]+ +DONE' "$log" | tail -1 || true
  if [ $code -ne 0 ]; then
    status=1
    grep -m1 -B2 -A25 -E 'ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY' "$log" | head -40 || true
  fi
  if [ $merge = 1 ]; then
    "$bin" "${merge_flags[@]}" ${options[@]+"${options[@]}"} "Fuzz/Corpus/$t" "$out/corpus/$t" >"$out/logs/$t-merge.log" 2>&1 || true
    echo "fuzz: $t: corpus now $(find "Fuzz/Corpus/$t" -type f | wc -l) files"
  fi
done
exit $status
