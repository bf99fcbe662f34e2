#!/usr/bin/env bash
# Builds the fuzzers (clang, libFuzzer, AddressSanitizer with LeakSanitizer,
# UndefinedBehaviorSanitizer) in their own build directory and runs each for a
# bounded time: the front end, then the readers of untrusted bytes (data
# files, images, HDF5, checkpoints, model metadata, weights directories,
# metrics logs). Fails on any crash, sanitizer report, leak, timeout or
# out-of-memory in any of them. See fuzz/README.md.
#
# Usage: fuzz/run.sh [SECONDS]          (the front end's time, default 60)
# Environment:
#   DX_FUZZ_READER_SECONDS  each reader's time      (default 15; 0 skips the readers)
#   DX_FUZZ_ONLY            harnesses to run, e.g. "hdf5 csv" (default: all, as in HARNESSES below)
#   DX_FUZZ_BUILD           build directory         (default build-fuzz)
#   DX_FUZZ_JOBS            ninja jobs for the build (default 2)
#   DX_FUZZ_ARGS            extra libFuzzer flags for every harness, e.g. "-fork=4"
#   DX_FUZZ_FRESH=1         start again from the seeds (drop the grown corpora)
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-60}
READER_SECS=${DX_FUZZ_READER_SECONDS:-15}
BUILD=${DX_FUZZ_BUILD:-build-fuzz}
JOBS=${DX_FUZZ_JOBS:-2}
LOCK=/tmp/dx-build.lock
# name, then libFuzzer's -max_len and -rss_limit_mb for it.
HARNESSES="frontend:65536:4096 npy:4096:2048 idx:4096:2048 csv:4096:2048 image:8192:2048 hdf5:8192:2048 checkpoint:4096:2048 metadata:16384:2048 weights:4096:2048 log:16384:2048"
ONLY=${DX_FUZZ_ONLY:-}
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
if ! locked ninja -C "$BUILD" -j"$JOBS" dx_fuzzers >"$BUILD/build.log" 2>&1; then
  tail -n 60 "$BUILD/build.log" >&2
  echo "fuzz: building the fuzzers failed (log: $BUILD/build.log)" >&2
  exit 1
fi
built=$(date +%s)
echo "fuzz: built the fuzzers in $((built - start))s"

RUNS=$BUILD/fuzz-runs
[ "${DX_FUZZ_FRESH:-0}" = 1 ] && rm -rf "$RUNS"
# The harnesses' scratch directories (ReaderFuzz.h: dx-fuzz-XXXXXX, removed
# at exit) under one directory of this run, removed when it ends however it
# ends: a harness that crashes never reaches its own clean-up.
mkdir -p "$BUILD/fuzz-tmp"
TMPDIR=$(cd "$BUILD/fuzz-tmp" && mktemp -d "$PWD/run-XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

# Seeds found in the repository, into a harness's grown corpus (which
# libFuzzer reads before fuzz/corpus/NAME), named by content hash so reruns
# add nothing twice. The front end: every .dx file, split at `// -----`
# like --split-input-file; the logs: every .jsonl (dxc report's tests).
add_repo_seeds() { # NAME CORPUS
  python3 - "$1" "$2" <<'PY'
import hashlib, pathlib, re, sys
name, out = sys.argv[1], pathlib.Path(sys.argv[2])
if name == "frontend":
    roots, pattern = ["examples", "stdlib", "compiler", "test", "fuzz/imports"], "*.dx"
elif name == "log":
    roots, pattern = ["compiler/report/test", "test"], "*.jsonl"
else:
    sys.exit(0)
for p in (p for r in roots for p in pathlib.Path(r).rglob(pattern) if p.is_file()):
    data = p.read_bytes()
    if len(data) > 65536:
        continue
    chunks = [data] + (re.split(rb"(?m)^// -----.*\n?", data) if name == "frontend" else [])
    for c in chunks:
        if c.strip():
            (out / hashlib.sha1(c).hexdigest()).write_bytes(c)
PY
}

stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -n 1; }

# Whether the crash in a log happened inside libhdf5: the first frame of its
# stack that is not libc, a sanitizer, libFuzzer or the allocator (an
# out-of-memory's stack is its largest allocation's) is libhdf5's. Debian's
# libhdf5 1.10.8 crashes on some corrupt files (h5ls on the same file too);
# DeepEx cannot prevent that, so it is reported, not failed (fuzz/README.md).
crashed_in_libhdf5() { # LOG
  awk '/^    #[0-9]+ 0x/ {
         if ($0 ~ /sysdeps|libc\.so|__interceptor_|__asan|__sanitizer|__ubsan|fuzzer::| in (malloc|calloc|realloc) /) next
         found = ($0 ~ /libhdf5/)
         exit
       }
       END { exit !found }' "$1"
}

# Fuzzes one harness for SECONDS; prints one line, and on a finding the
# report's tail and how to reproduce it. Returns non-zero on a finding.
fuzz_one() { # NAME SECONDS MAX_LEN RSS_MB
  local name=$1 secs=$2 max_len=$3 rss=$4
  local fuzzer=$BUILD/fuzz/dx_${name}_fuzzer dir=$RUNS/$name
  local corpus=$dir/corpus artifacts=$dir/artifacts log=$dir/fuzz.log dict=fuzz/$name.dict
  [ "$name" = frontend ] && dict=fuzz/dx.dict
  mkdir -p "$corpus" "$artifacts"
  add_repo_seeds "$name" "$corpus"
  local limits=(-timeout=10 -rss_limit_mb="$rss")
  local asan=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64}
  # libhdf5 allocates what corrupt metadata says and fails cleanly when malloc
  # returns null, as in a run; the harness checks DeepEx's own allocation.
  [ "$name" = hdf5 ] && { limits+=(-malloc_limit_mb=16777216); asan+=:allocator_may_return_null=1; }
  local env=(ASAN_OPTIONS="$asan" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
             LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan-suppressions.txt:print_suppressions=0}")
  local args=(-max_total_time="$secs" -max_len="$max_len" "${limits[@]}" -artifact_prefix="$artifacts/"
              -print_final_stats=1)
  [ -f "$dict" ] && args+=(-dict="$dict")
  # The front end's inputs each hit tens of thousands of features; with the
  # entropic schedule's default threshold (255) libFuzzer spent half the
  # time counting their frequencies (perf: InputCorpus::UpdateFeatureFrequency).
  # A feature seen 16 times counts as abundant: the same schedule at twice
  # the executions a second (fuzz/README.md, "The front end's speed").
  [ "$name" = frontend ] && args+=(-entropic_feature_frequency_threshold=16)
  local t0 rc
  t0=$(date +%s)
  touch "$dir/started"
  set +e
  # shellcheck disable=SC2086
  env "${env[@]}" "$fuzzer" "${args[@]}" ${DX_FUZZ_ARGS:-} "$corpus" "fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  set -e
  # -fork=N -ignore_crashes=1: libFuzzer exits with its last worker's status
  # even when it goes on past crashes, so a run that ended on its own ("INFO:
  # exiting") is judged by replaying its artifacts below, as one that exits 0.
  if [ "$rc" -ne 0 ] && [[ " ${DX_FUZZ_ARGS:-} " == *" -ignore_crashes=1 "* ]] &&
     grep -q '^INFO: exiting: ' "$log"; then
    rc=0
  fi
  local runs rate cov files elapsed=$(($(date +%s) - t0))
  runs=$(stat "$log" number_of_executed_units)
  rate=$(stat "$log" average_exec_per_sec)
  if [ -z "$runs" ]; then # -fork=N prints no final stats: its last "#RUNS: cov: ..." line
    runs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -n 1)
    [ -n "$runs" ] && rate=$((runs / (elapsed > 0 ? elapsed : 1)))
  fi
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  files=$(find "$corpus" "fuzz/corpus/$name" -type f | wc -l)
  local art
  art=$(grep -o "Test unit written to .*" "$log" | tail -n 1 | sed 's/Test unit written to //')
  if [ "$rc" -ne 0 ] && [ "$name" = hdf5 ] && crashed_in_libhdf5 "$log"; then
    echo "fuzz: $name: stopped by a crash inside libhdf5 after ${runs:-?} executions: Debian's libhdf5 on a corrupt file, not DeepEx's code (stack: $log; input: $art)"
    return 0
  fi
  if [ "$rc" -ne 0 ]; then
    grep -v '^#[0-9]' "$log" | tail -n 60 >&2
    echo "fuzz: $name: FAILED (libFuzzer exit $rc) after ${runs:-?} executions; full log: $log" >&2
    if [ -n "$art" ]; then
      echo "fuzz: $name: reproduce with: $fuzzer $art" >&2
      [ "$name" = frontend ] && echo "fuzz: $name: or: ./build/compiler/dxc check $art" >&2
    fi
    return 1
  fi
  # With -fork=N -ignore_crashes=1 libFuzzer goes on after a finding and
  # exits 0: the artifacts it wrote tell (each replayed, for libhdf5's).
  local found=0 a
  while IFS= read -r a; do
    [ -n "$a" ] || continue
    env "${env[@]}" "$fuzzer" "${limits[@]}" "$a" >"$a.log" 2>&1 && continue
    if [ "$name" = hdf5 ] && crashed_in_libhdf5 "$a.log"; then
      echo "fuzz: $name: a crash inside libhdf5, not DeepEx's code: $a"
    else
      echo "fuzz: $name: FAILED: $a (replayed: $a.log)" >&2
      found=1
    fi
  done < <(find "$artifacts" -type f -newer "$dir/started" ! -name '*.log')
  [ "$found" = 0 ] || return 1
  echo "fuzz: $name: OK: ${runs:-0} executions in ${elapsed}s (${rate:-0} exec/s), corpus $files files, coverage ${cov:-?} edges"
}

failed=()
for h in $HARNESSES; do
  IFS=: read -r name max_len rss <<<"$h"
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  secs=$READER_SECS
  [ "$name" = frontend ] && secs=$SECS
  [ "$secs" -gt 0 ] || continue # libFuzzer would take 0 as "no limit"
  fuzz_one "$name" "$secs" "$max_len" "$rss" || failed+=("$name")
done
end=$(date +%s)
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (logs in $RUNS/NAME/fuzz.log)" >&2
  exit 1
fi
echo "fuzz: all OK in $((end - start))s"
