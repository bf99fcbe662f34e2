#!/usr/bin/env bash
# Compile time of every example with `dxc compile`, best of N runs:
#   object  = dxc compile F.dx --emit=obj (front end, MLIR pipeline, LLVM -O3, object file)
#   total   = dxc compile F.dx -o F        (the same plus the link with libdxrt)
# and the CPU time (user + sys) and peak memory of the best total run, the
# buffers dx-plan-memory left on the heap (its remarks on stderr) and the size
# of the executable.
#
#   bench/compile_times.sh [-n RUNS] [-b BUILD_DIR] [EXAMPLE.dx ...]
#
# Defaults: 3 runs, build/, and the four examples (mlp, cnn, cvae, resnet50).
# Prints a Markdown table. dxc is single-threaded: on a busy machine the wall
# times grow, the CPU times much less.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
build=build
while getopts "n:b:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    b) build=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-b BUILD_DIR] [EXAMPLE.dx ...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
  examples=(examples/fashion-mnist/mlp.dx examples/fashion-mnist/cnn.dx
            examples/protein-folding/cvae.dx examples/imagenet/resnet50.dx)
fi

dxc=$build/compiler/dxc
[ -x "$dxc" ] || { echo "$0: no $dxc; build first" >&2; exit 1; }
command -v /usr/bin/time > /dev/null || { echo "$0: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs "$@" under /usr/bin/time; prints "wall cpu maxrss_kb".
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" 2> "$out/stderr" > /dev/null
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$out/time"
}

echo "| example | object (s) | total (s) | CPU of total (s) | peak memory (MiB) | buffers left on the heap | executable (MiB) |"
echo "|---|---|---|---|---|---|---|"
for f in "${examples[@]}"; do
  name=$(basename "$f" .dx)
  best_obj="" best_total="" best_line=""
  for ((i = 0; i < runs; i++)); do
    read -r wall _ _ < <(measure "$dxc" compile "$f" --emit=obj -o "$out/$name.o")
    if [ -z "$best_obj" ] || (( $(echo "$wall < $best_obj" | bc -l) )); then best_obj=$wall; fi
    line=$(measure "$dxc" compile "$f" --remarks -o "$out/$name")
    read -r wall _ _ <<< "$line"
    if [ -z "$best_total" ] || (( $(echo "$wall < $best_total" | bc -l) )); then best_total=$wall; best_line=$line; fi
  done
  read -r _ cpu rss <<< "$best_line"
  heap=$(grep -c "buffer left on the heap" "$out/stderr" || true)
  size=$(stat -c %s "$out/$name")
  printf '| %s | %.2f | %.2f | %.2f | %d | %s | %.1f |\n' "$f" "$best_obj" "$best_total" "$cpu" $((rss / 1024)) "$heap" \
    "$(echo "$size / 1048576" | bc -l)"
done
