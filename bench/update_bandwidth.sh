#!/usr/bin/env bash
# Memory bandwidth of the optimizer update dxc generates (dx_update, one fused
# loop over the parameter arena) against memcpy on one core, interleaved in
# the same process: for Adam and for SGD with momentum over a model of about
# 67 M parameters (dense 8192x8192 + dense 8192x10, far larger than the
# last-level cache).
#
#   bench/update_bandwidth.sh [--reps N] [--core C|--core none] [--cpu CPU]
#                             [--build DIR] [--keep DIR]
#
#   --reps   timed calls of each (default 9); the table gives the medians
#   --core   the core to pin to with taskset (default 1; `none`: no pinning)
#   --cpu    dxc's --cpu (default: dxc's own default, x86-64-v3)
#   --build  the build directory with compiler/dxc and runtime/libdxrt.a
#   --keep   keep the models, objects and executables in DIR
#
# Per optimizer: writes the model with `optimizer: adam(...)` or
# `optimizer: sgd(..., momentum: 0.9)` (the dataset block only type-checks;
# no data is read), `dxc compile --emit=obj`, links bench/update_bandwidth.c
# with the object, libdxrt and the libraries dxc links executables with, and
# runs it: each rep is one dx_update call (step 2, 3, ...) then one memcpy.
# Bytes are read + write bytes for both. The update must read params, grads
# and every state slot and write params and every state slot: 7 x 4 bytes per
# parameter for Adam (m, v), 5 x 4 for SGD with momentum. The memcpy copies
# half the update's bytes, so its read + write traffic is the same.
# ratio = update GB/s / memcpy GB/s; the target is >= 0.70.
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."

usage() { sed -n '2,26p' "$self" | sed 's/^# \{0,1\}//' >&2; exit 2; }

reps=9 core=1 cpu="" build=build keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=${2:?}; shift 2 ;;
    --reps=*) reps=${1#*=}; shift ;;
    --core) core=${2:?}; shift 2 ;;
    --core=*) core=${1#*=}; shift ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --cpu=*) cpu=${1#*=}; shift ;;
    --build) build=${2:?}; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    --keep=*) keep=${1#*=}; shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: --reps wants a positive integer, got '$reps'" >&2; exit 2; }
[[ $core == none || $core =~ ^[0-9]+$ ]] || { echo "$0: --core wants a core number or none, got '$core'" >&2; exit 2; }

dxc=$build/compiler/dxc
[ -x "$dxc" ] || { echo "$0: no $dxc; build first (bash scripts/setup.sh build)" >&2; exit 1; }
cpu_flags=()
[ -n "$cpu" ] && cpu_flags=(--cpu "$cpu")
pin=()
if [ "$core" != none ]; then
  command -v taskset > /dev/null || { echo "$0: --core needs taskset (util-linux); use --core none" >&2; exit 1; }
  pin=(taskset -c "$core")
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

cpus=$(nproc)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# name, optimizer setting
optimizers=("adam|adam(lr: 1e-3)" "sgd_momentum|sgd(lr: 0.01, momentum: 0.9)")

model() { # optimizer setting -> .dx source
  cat <<EOF
// bench/update_bandwidth.sh: 8192*8192 + 8192 + 8192*10 + 10 = 67,198,986 parameters.
dataset unused {            // only type-checked: the benchmark never reads data
  format: npy
  train: ["/nonexistent/train.npy"]
  test:  ["/nonexistent/test.npy"]
  sample: [8192]
}
model big(x: f32[B, 8192]) -> f32[B, 10] {
  return x |> dense(8192) |> relu |> dense(10)
}
train {
  model: big
  data: unused
  loss: mean(square(output))
  optimizer: $1
}
EOF
}

# The libraries dxc links an executable with (libdxrt first, then OpenBLAS,
# oneDNN, MPI, ...): a C++ driver that records its arguments instead of
# linking (dxc runs `DXC_CXX -o OUT OBJECT LIBS...`).
cat > "$work/record-link.sh" <<EOF
#!/bin/sh
shift 3
printf '%s\n' "\$@" > "$work/link-libs.txt"
EOF
chmod +x "$work/record-link.sh"

cc -O2 -std=c11 -Wall -c bench/update_bandwidth.c -o "$work/update_bandwidth.o"
for entry in "${optimizers[@]}"; do
  name=${entry%%|*}
  model "${entry#*|}" > "$work/$name.dx"
done
echo "compiling with $dxc" >&2
# A shared lock: waits for a `flock /tmp/dx-build.lock ninja -C build` that is
# rebuilding dxc or libdxrt, and keeps the next one from starting meanwhile
# (also over the link, which reads libdxrt.a).
flock -s /tmp/dx-build.lock bash -c '
  set -euo pipefail
  dxc=$1 work=$2; shift 2
  first=1
  for name in adam sgd_momentum; do
    "$dxc" compile "$work/$name.dx" --emit=obj ${@+"$@"} -o "$work/$name.o"
    if [ $first = 1 ]; then
      DXC_CXX=$work/record-link.sh "$dxc" compile "$work/$name.dx" ${@+"$@"} -o "$work/unused-exe"
      first=0
    fi
    mapfile -t libs < "$work/link-libs.txt"
    c++ -o "$work/$name" "$work/update_bandwidth.o" "$work/$name.o" "${libs[@]}"
  done' bash "$dxc" "$work" ${cpu_flags[@]+"${cpu_flags[@]}"} 2> "$work/compile.err" ||
  { cat "$work/compile.err" >&2; exit 1; }

results=()
for entry in "${optimizers[@]}"; do
  name=${entry%%|*}
  echo "running $name" >&2
  line=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ${pin[@]+"${pin[@]}"} "$work/$name" --reps "$reps" --label "$name") ||
    { echo "$0: the $name run failed" >&2; exit 1; }
  results+=("$line $(cut -d' ' -f1 /proc/loadavg | sed 's/^/load=/')")
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

field() { # line key
  tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p"
}

echo "# Optimizer update (dx_update) vs memcpy, one core$([ "$core" != none ] && echo " (core $core)"), median of $reps"
echo
echo "$cpus CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)); load average $load_start before," \
  "$load_end after; dxc --cpu ${cpu:-default (x86-64-v3)}; $(git log -1 --format='commit %h' 2> /dev/null)$(
  git diff --quiet HEAD -- compiler runtime 2> /dev/null || echo ' + uncommitted changes in compiler/runtime')"
echo
echo "Bytes are read + write bytes. update: params, grads and each state slot read, params and each state"
echo "slot written (Adam 7 x 4 B per parameter, SGD with momentum 5 x 4 B); memcpy copies half as many"
echo "bytes, so it reads and writes the same total. ratio = update GB/s / memcpy GB/s (target >= 0.70)."
echo
echo "| optimizer | parameters | bytes / update | update ms | update GB/s | memcpy bytes | memcpy ms | memcpy GB/s | ratio | best-of ratio | load |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for line in "${results[@]}"; do
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$(field "$line" label)" "$(field "$line" params)" \
    "$(awk -v b="$(field "$line" update_bytes)" 'BEGIN { printf "%.2f GB", b / 1e9 }')" \
    "$(field "$line" update_ms)" "$(field "$line" update_gbs)" \
    "$(awk -v b="$(field "$line" copy_bytes)" 'BEGIN { printf "%.2f GB", b / 1e9 }')" \
    "$(field "$line" copy_ms)" "$(field "$line" copy_gbs)" \
    "$(field "$line" ratio)" "$(field "$line" best_ratio)" "$(field "$line" load)"
done
for line in "${results[@]}"; do
  awk -v n="$(field "$line" label)" -v uw="$(field "$line" update_ms)" -v uc="$(field "$line" update_cpu_ms)" \
      -v cw="$(field "$line" copy_ms)" -v cc="$(field "$line" copy_cpu_ms)" \
    'BEGIN { if (uc < 0.9 * uw || cc < 0.9 * cw)
               printf "\nNote: %s was off the core part of the time (median CPU / wall ms: update %s / %s, memcpy %s / %s).\n", n, uc, uw, cc, cw }'
done
awk -v l="$load_end" -v c="$cpus" 'BEGIN { if (l + 0 > c - 1) print "\nNote: the load average was above " c - 1 " at the end: another process competed for the cores or memory bus; rerun when quieter." }'
if [ -n "$keep" ]; then echo "(models, objects, executables and link-libs.txt kept in $work)" >&2; fi
