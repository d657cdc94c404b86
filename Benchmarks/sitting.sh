# Sourced by the sitting scripts (issue26.sh, issue36.sh): what every sitting records the same way.
#   sitting_start NAME DEFAULT_ROUNDS   cd to Benchmarks/, set `out` (${NAME^^}_OUT or a new temporary folder),
#                                       `rounds` (ROUNDS or the default), `tmp` and `here`; write
#                                       $out/header.txt: machine (CPU model), toolchain, source commit, start time
#   sitting_binary                      set `stepsync`: $STEPSYNC, else a release build of this checkout; add it
#                                       and the load (`uptime`) to the header
sitting_start() {
  sitting_name=$1
  here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
  cd "$here"
  tmp=${TMPDIR:-/tmp}
  local var="${1^^}_OUT"
  out=${!var:-$(mktemp -d "$tmp/$1-XXXXXX")}
  mkdir -p "$out"
  rounds=${ROUNDS:-$2}
  log "output in $out"
  {
    echo "machine: $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "build: $(swift --version 2>/dev/null | head -1), release"
    echo "source: $(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- Sources Package.swift Benchmarks 2>/dev/null || echo ' + uncommitted changes')"
    echo "started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$out/header.txt"
}

log() { echo "[${sitting_name:-sitting} $(date -u +%H:%M:%S)] $*" >&2; }

sitting_binary() {
  if [[ -n "${STEPSYNC:-}" ]]; then
    stepsync=$(realpath "$STEPSYNC")
  else
    log "building stepsync (release)…"
    swift build -c release --product stepsync --package-path "$here/.." >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
    stepsync=$(swift build -c release --package-path "$here/.." --show-bin-path)/stepsync
  fi
  echo "binary: $stepsync" >>"$out/header.txt"
  echo "before: $(uptime)" >>"$out/header.txt"
}
