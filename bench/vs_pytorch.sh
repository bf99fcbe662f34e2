#!/usr/bin/env bash
# Training speed of DeepEx against PyTorch on one CPU core: the Fashion-MNIST
# MLP and CNN (examples/fashion-mnist/{mlp,cnn}.dx) for one epoch each, the
# DeepEx executable against the same network, initialisation, optimizer,
# learning-rate schedule, batch and data in PyTorch (bench/torch_fashion.py,
# run with Debian's /usr/bin/python3 and its python3-torch).
#
#   bench/vs_pytorch.sh [--models mlp,cnn] [--repeat N] [--steps N] [--seed S]
#                       [--build DIR] [--python PY] [--keep DIR]
#
#   --models   which models, comma-separated (default mlp,cnn)
#   --repeat   run each model on each side N times (default 1); the table
#              gives the best and the median time
#   --steps    stop after N training steps (default: the whole epoch, 938
#              steps); both sides run the same N steps with the same
#              learning rates, and the times compare those N steps
#   --seed     seed of both sides (default 1)
#   --build    the build directory with compiler/dxc (default build)
#   --python   the Python with torch (default /usr/bin/python3)
#   --keep     keep the executables, logs and results.jsonl in DIR
#
# Times are the sums of the training steps' wall times (DeepEx's epoch_time_s:
# gather a batch, forward, backward, update), without start-up, data loading,
# shuffling and the evaluation on the test set. Runs are interleaved
# (DeepEx mlp, PyTorch mlp, DeepEx cnn, PyTorch cnn, then again for each
# repeat) so that on a noisy, shared machine both sides meet much the same load.
# Prints Markdown: every run, then per model the DeepEx and PyTorch times,
# their ratio (target <= 1.0) and both test accuracies.
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."

usage() { sed -n '2,28p' "$self" | sed 's/^# \{0,1\}//' >&2; exit 2; }

models=mlp,cnn repeat=1 steps=0 seed=1 build=build python=/usr/bin/python3 keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=${2:?}; shift 2 ;;
    --models=*) models=${1#*=}; shift ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --repeat=*) repeat=${1#*=}; shift ;;
    --steps) steps=${2:?}; shift 2 ;;
    --steps=*) steps=${1#*=}; shift ;;
    --seed) seed=${2:?}; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --build) build=${2:?}; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --python) python=${2:?}; shift 2 ;;
    --python=*) python=${1#*=}; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    --keep=*) keep=${1#*=}; shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "$0: --repeat wants a positive integer, got '$repeat'" >&2; exit 2; }
[[ $steps =~ ^[0-9]+$ ]] || { echo "$0: --steps wants a non-negative integer, got '$steps'" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "$0: --seed wants a non-negative integer, got '$seed'" >&2; exit 2; }
IFS=, read -r -a model_list <<< "$models"
for m in "${model_list[@]}"; do
  if [[ $m != mlp && $m != cnn ]]; then echo "$0: unknown model '$m' (mlp, cnn)" >&2; exit 2; fi
done

dxc=$build/compiler/dxc
[ -x "$dxc" ] || { echo "$0: no $dxc; build first (bash scripts/setup.sh build)" >&2; exit 1; }
"$python" -c "import torch" 2> /dev/null ||
  { echo "$0: $python cannot import torch (apt-get install python3-torch)" >&2; exit 1; }
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
  { echo "$0: Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)" >&2; exit 1; }

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
results=$work/results.jsonl
: > "$results"
helper=bench/torch_fashion.py

cpus=$(nproc)    # before OMP_NUM_THREADS=1, which nproc obeys
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# One thread everywhere: DeepEx's OpenBLAS, PyTorch's OpenMP and oneDNN.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

for m in "${model_list[@]}"; do
  echo "compiling examples/fashion-mnist/$m.dx" >&2
  # A shared lock: waits for a `flock /tmp/dx-build.lock ninja -C build` that is
  # rebuilding libdxrt or dxc, and keeps the next one from starting meanwhile.
  flock -s /tmp/dx-build.lock "$dxc" compile "examples/fashion-mnist/$m.dx" -o "$work/$m" 2> "$work/$m.compile.err" ||
    { cat "$work/$m.compile.err" >&2; exit 1; }
done

step_flags=()
[ "$steps" -gt 0 ] && step_flags=(--max-steps "$steps")
for ((r = 1; r <= repeat; r++)); do
  for m in "${model_list[@]}"; do
    echo "run $r/$repeat: $m DeepEx" >&2
    log=$work/$m.deepex.$r.jsonl
    rm -f "$log"
    # In $work, so that anything the run writes relative to its directory
    # (checkpoints) stays out of the repository.
    (cd "$work" && "./$m" --epochs 1 --seed "$seed" --log "$log" ${step_flags[@]+"${step_flags[@]}"}) \
      > "$work/$m.deepex.$r.out" 2>&1 ||
      { echo "$0: the DeepEx $m run failed:" >&2; tail -5 "$work/$m.deepex.$r.out" >&2; exit 1; }
    "$python" "$helper" deepex "$log" --model "$m" --run "$r" --out "$results"
    echo "run $r/$repeat: $m PyTorch" >&2
    "$python" "$helper" train --model "$m" --steps "$steps" --seed "$seed" --run "$r" --out "$results" \
      > "$work/$m.pytorch.$r.out" 2>&1 ||
      { echo "$0: the PyTorch $m run failed:" >&2; tail -5 "$work/$m.pytorch.$r.out" >&2; exit 1; }
  done
done

echo "# DeepEx vs PyTorch, Fashion-MNIST, one CPU thread, batch 64, $(
  [ "$steps" -gt 0 ] && echo "the first $steps steps of one epoch" || echo "one epoch")"
echo
echo "$cpus CPUs; load average $load_start before the runs, $(cut -d' ' -f1-3 /proc/loadavg) after;" \
  "$("$python" -c 'import torch; print("PyTorch", torch.__version__)'); $(git log -1 --format='commit %h' 2> /dev/null)$(
  git diff --quiet HEAD -- compiler runtime stdlib 2> /dev/null || echo ' + uncommitted changes in compiler/runtime/stdlib')"
echo
"$python" "$helper" table "$results"
if [ -n "$keep" ]; then echo "(executables, logs and results.jsonl kept in $work)" >&2; fi
