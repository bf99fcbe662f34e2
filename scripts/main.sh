#!/usr/bin/env bash
# The main job: build DeepEx, check every example, then compile the
# Fashion-MNIST MLP to a native executable and train it (single process;
# data-parallel training under mpirun comes with the runtime issue).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
DXC=./build/compiler/dxc

for f in examples/*/*.dx; do
  echo "== dxc check $f"
  $DXC check "$f"
done
echo

mkdir -p build/examples runs
echo "== dxc compile examples/fashion-mnist/mlp.dx -o build/examples/mlp"
time $DXC compile --print-model examples/fashion-mnist/mlp.dx -o build/examples/mlp
echo
echo "== build/examples/mlp --log runs/mlp.jsonl"
OPENBLAS_NUM_THREADS=1 ./build/examples/mlp --log runs/mlp.jsonl
echo
echo "Metrics log: runs/mlp.jsonl"
tail -n 3 runs/mlp.jsonl
