#!/usr/bin/env bash
# The main job: build DeepEx, check every example, then compile the
# Fashion-MNIST MLP to a native executable and train it data-parallel under
# mpirun: 2 ranks of 32 samples (global batch 64), one BLAS thread each.
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
echo "== mpirun -np 2 build/examples/mlp --batch 32 --log runs/mlp.jsonl"
# Open MPI refuses root unless told; CI machines run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# On VMs like this one, Open MPI's single-copy shared-memory path (CMA) is
# slower than plain copies for the MLP's 1 MB all-reduce (see docs/cli.md).
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun -np 2 --oversubscribe --bind-to none ./build/examples/mlp --batch 32 --checkpoint-dir runs/checkpoints/mlp \
  --log runs/mlp.jsonl
echo
echo "Metrics log: runs/mlp.jsonl"
tail -n 3 runs/mlp.jsonl
