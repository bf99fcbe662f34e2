#!/bin/bash
# emulate_gpu.sh DXC MODEL.dx DIR [RUN FLAGS...]: the CUDA lowering's kernels,
# run on the CPU with their threads in three orders (dxc --emulate-gpu=ORDER,
# lowering/EmulateGpuOrder.h), and the CPU build with the same reductions
# split and the same sums in the same order (--split-reductions --strict-fp)
# train MODEL.dx with the same seed and flags, then export every output.
# Fails unless all four give the same bits: every exported output and every
# epoch's losses. A kernel whose threads depend on each other (a race on the
# GPU) shows as a difference between the orders; a kernel that computes
# something else than the CPU's loop (a wrong index, a lost element) as a
# difference from the CPU build. DXC_FLAGS (e.g. --precision bf16) go to
# every compile.
set -euo pipefail
dxc=$1 model=$2 dir=$3
shift 3
rm -rf "$dir" && mkdir -p "$dir"
"$dxc" compile "$model" ${DXC_FLAGS:-} --split-reductions --strict-fp -o "$dir/cpu"
for order in forward reverse odd-even; do
  "$dxc" compile "$model" ${DXC_FLAGS:-} --emulate-gpu=$order -o "$dir/$order"
done
for build in cpu forward reverse odd-even; do
  if ! "$dir/$build" "$@" --checkpoint-every 0 --log "$dir/$build.jsonl" --export "$dir/export-$build" \
      > "$dir/$build.out" 2>&1; then
    echo "emulate_gpu.sh: the $build build of $model failed:" >&2
    tail -5 "$dir/$build.out" >&2
    exit 1
  fi
done
# The losses, without the timings.
losses() { python3 -c 'import json,sys
for e in map(json.loads, open(sys.argv[1])):
    if e.get("event") == "epoch": print(e["epoch"], repr(e["train_loss"]), repr(e.get("val_loss")))' "$1"; }
losses "$dir/cpu.jsonl" > "$dir/cpu.losses"
ls "$dir/export-cpu" > "$dir/outputs"
[ -s "$dir/outputs" ] || { echo "emulate_gpu.sh: $model exported nothing" >&2; exit 1; }
for order in forward reverse odd-even; do
  losses "$dir/$order.jsonl" > "$dir/$order.losses"
  diff "$dir/cpu.losses" "$dir/$order.losses" >&2 ||
    { echo "emulate_gpu.sh: $model: the losses of the GPU loops in $order order differ from the CPU's" >&2; exit 1; }
  while read -r out; do
    cmp "$dir/export-cpu/$out" "$dir/export-$order/$out" >&2 ||
      { echo "emulate_gpu.sh: $model: $out of the GPU loops in $order order differs from the CPU's" >&2; exit 1; }
  done < "$dir/outputs"
done
echo "emulate_gpu.sh: $model: the CPU's bits in 3 orders ($(wc -l < "$dir/outputs") outputs, $(wc -l < "$dir/cpu.losses") epochs)"
