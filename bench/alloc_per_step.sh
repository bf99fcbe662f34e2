#!/usr/bin/env bash
# Heap allocations per training step of a compiled example, measured with an
# LD_PRELOAD malloc counter (bench/malloc_count.c): the executable runs
# --max-steps N1 and --max-steps N2 with everything else equal (data loading,
# start-up and the final evaluation are the same in both), and
#   allocations per step = (allocs(N2) - allocs(N1)) / (N2 - N1).
# The target is 0: dx-plan-memory puts every buffer of a step in one reused
# workspace, and the runtime's step loop allocates nothing either.
#
#   bench/alloc_per_step.sh [-b BUILD_DIR] [-1 N1] [-2 N2] [-t] EXAMPLE.dx [-- RUN FLAGS...]
#
#   -1, -2  step counts (default 20 and 40)
#   -t      also run both under heaptrack (if installed) and print its counts
# Run flags go to the executable, e.g. `-- --synthetic --batch 8` for a
# model whose dataset is not installed. Both runs must end in the same epoch
# (an epoch's end evaluates, logs and checkpoints, which allocates): a
# --synthetic epoch has only 32 steps, so give it --synthetic-samples of at
# least N2 + 1 batches.
#
# Examples:
#   bench/alloc_per_step.sh examples/fashion-mnist/mlp.dx
#   bench/alloc_per_step.sh -t examples/fashion-mnist/cnn.dx
#   bench/alloc_per_step.sh examples/protein-folding/cvae.dx -- --synthetic --synthetic-samples 4096
#   bench/alloc_per_step.sh -1 2 -2 4 examples/imagenet/resnet50.dx -- --synthetic --batch 4
set -euo pipefail
cd "$(dirname "$0")/.."

build=build n1=20 n2=40 heaptrack=0
while getopts "b:1:2:t" opt; do
  case $opt in
    b) build=$OPTARG ;;
    1) n1=$OPTARG ;;
    2) n2=$OPTARG ;;
    t) heaptrack=1 ;;
    *) sed -n '2,24p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,24p' "$0" >&2; exit 2; }
example=$1
shift
[ "${1:-}" = "--" ] && shift
flags=("$@")
(( n2 > n1 )) || { echo "$0: N2 must be larger than N1" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "$example" .dx)

cc -shared -fPIC -O2 -o "$work/libmalloc_count.so" bench/malloc_count.c
"$build/compiler/dxc" compile "$example" --remarks -o "$work/$name" 2> "$work/compile.err" || { cat "$work/compile.err" >&2; exit 1; }
heap=$(grep -c "buffer left on the heap" "$work/compile.err" || true)

allocs() { # steps -> total allocation calls of the run
  MALLOC_COUNT_OUT="$work/count.$1" LD_PRELOAD="$work/libmalloc_count.so" \
    "$work/$name" --max-steps "$1" ${flags[@]+"${flags[@]}"} > "$work/run.$1.log" 2>&1 ||
    { echo "$0: the run with --max-steps $1 failed:" >&2; tail -5 "$work/run.$1.log" >&2; exit 1; }
  awk '$1 == "allocs" { print $2 }' "$work/count.$1"
}

a1=$(allocs "$n1")
a2=$(allocs "$n2")
row() { printf '%-28s %s\n' "$1" "$2"; }
row "example:" "$example ${flags[*]+${flags[*]}}"
row "buffers left on the heap:" "$heap (dx-plan-memory remarks)"
row "allocations, $n1 steps:" "$a1"
row "allocations, $n2 steps:" "$a2"
row "allocations per step:" "$(echo "scale=3; ($a2 - $a1) / ($n2 - $n1)" | bc)"

if (( heaptrack )); then
  if command -v heaptrack > /dev/null; then
    for n in "$n1" "$n2"; do
      heaptrack -o "$work/ht.$n" "$work/$name" --max-steps "$n" ${flags[@]+"${flags[@]}"} > /dev/null 2>&1
      calls=$(heaptrack_print -f "$work/ht.$n".* 2> /dev/null | awk -F': ' '/^calls to allocation functions/ { print $2 }')
      row "heaptrack, $n steps:" "$calls"
    done
  else
    row "heaptrack:" "not installed (apt-get install heaptrack)"
  fi
fi
