#!/usr/bin/env bash
# Builds the front-end fuzzer (clang, libFuzzer, AddressSanitizer with
# LeakSanitizer, UndefinedBehaviorSanitizer) in its own build directory and fuzzes for a bounded time. Fails on any crash,
# sanitizer report, leak, timeout or out-of-memory. See fuzz/README.md.
#
# Usage: fuzz/run.sh [SECONDS]          (default 60)
# Environment:
#   DX_FUZZ_BUILD   build directory            (default build-fuzz)
#   DX_FUZZ_JOBS    ninja jobs for the build   (default 2)
#   DX_FUZZ_ARGS    extra libFuzzer flags, e.g. "-jobs=4 -workers=4"
#   DX_FUZZ_FRESH=1 start again from the seeds (drop the grown corpus)
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-60}
BUILD=${DX_FUZZ_BUILD:-build-fuzz}
JOBS=${DX_FUZZ_JOBS:-2}
LOCK=/tmp/dx-build.lock
start=$(date +%s)

locked() { # serialise builds with other work on this machine (2 jobs overall)
  if command -v flock >/dev/null; then flock "$LOCK" "$@"; else "$@"; fi
}

for tool in clang++ cmake ninja python3; do
  command -v "$tool" >/dev/null || { echo "fuzz: '$tool' not found (run scripts/setup.sh)" >&2; exit 1; }
done

# ---- build: a separate tree; build/ (g++) is never touched. -O1 and line
# tables only (enough for symbolised stacks) keep the build short; no NDEBUG ----
# _GLIBCXX_ASSERTIONS: bounds-checked operator[], front(), back() in libstdc++.
SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
SAN+=" -D_GLIBCXX_ASSERTIONS"
LAUNCHER=()
command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
mkdir -p "$BUILD"
CXX=clang++ cmake -G Ninja -S . -B "$BUILD" -Wno-dev \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DDX_FUZZ=ON -DDX_ENABLE_MLIR=OFF -DCMAKE_CXX_FLAGS="$SAN" "${LAUNCHER[@]}" >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log" >&2; exit 1; }
if ! locked ninja -C "$BUILD" -j"$JOBS" dx_frontend_fuzzer >"$BUILD/build.log" 2>&1; then
  tail -n 60 "$BUILD/build.log" >&2
  echo "fuzz: building the fuzzer failed (log: $BUILD/build.log)" >&2
  exit 1
fi
FUZZER=$BUILD/fuzz/dx_frontend_fuzzer
built=$(date +%s)

# ---- seeds: every .dx the project has, split at `// -----` like
# --split-input-file, named by content hash so reruns add nothing twice ----
CORPUS=$BUILD/corpus
ARTIFACTS=$BUILD/artifacts
[ "${DX_FUZZ_FRESH:-0}" = 1 ] && rm -rf "$CORPUS"
mkdir -p "$CORPUS" "$ARTIFACTS"
python3 - "$CORPUS" <<'EOF'
import hashlib, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
roots = ["examples", "stdlib", "compiler", "test", "fuzz/imports"]
files = [p for r in roots for p in pathlib.Path(r).rglob("*.dx") if p.is_file()]
for p in files:
    data = p.read_bytes()
    if len(data) > 65536:
        continue
    chunks = [data] + re.split(rb"(?m)^// -----.*\n?", data)
    for c in chunks:
        if c.strip():
            (out / hashlib.sha1(c).hexdigest()).write_bytes(c)
EOF
seeds=$(find "$CORPUS" fuzz/corpus -type f | wc -l)

# ---- fuzz ----
LOG=$BUILD/fuzz.log
echo "fuzz: fuzzing the front end for ${SECS}s from $seeds seeds (log: $LOG)"
set +e
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} "$FUZZER" \
  -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -dict=fuzz/dx.dict -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 \
  ${DX_FUZZ_ARGS:-} "$CORPUS" fuzz/corpus >"$LOG" 2>&1
rc=$?
set -e
end=$(date +%s)

stat() { sed -n "s/^stat::$1: *//p" "$LOG" | tail -n 1; }
runs=$(stat number_of_executed_units)
rate=$(stat average_exec_per_sec)
cov=$(grep -o 'cov: [0-9]*' "$LOG" | tail -n 1 | cut -d' ' -f2)
corpus=$(find "$CORPUS" -type f | wc -l)

if [ "$rc" -ne 0 ]; then
  grep -v '^#[0-9]' "$LOG" | tail -n 80 >&2
  art=$(grep -o "Test unit written to .*" "$LOG" | tail -n 1 | sed 's/Test unit written to //')
  echo "fuzz: FAILED (libFuzzer exit $rc) after ${runs:-?} executions; full log: $LOG" >&2
  if [ -n "$art" ]; then
    echo "fuzz: reproduce with: $FUZZER $art" >&2
    echo "fuzz: or: ./build/compiler/dxc check $art" >&2
  fi
  exit 1
fi
echo "fuzz: OK: ${runs:-0} executions in $((end - built))s (${rate:-0} exec/s), corpus $corpus files, coverage ${cov:-?} edges; build+seeds $((built - start))s"
