#!/usr/bin/env bash
# Training speed of DeepEx against PyTorch on one CPU core, one epoch per
# model (or its first N steps), the DeepEx executable against the same
# network, initialisation, optimizer, learning-rate schedule, batch, loss and
# data in PyTorch (bench/torch_models.py, run with Debian's /usr/bin/python3
# and its python3-torch):
#
#   mlp         examples/fashion-mnist/mlp.dx      Fashion-MNIST (installed)
#   cnn         examples/fashion-mnist/cnn.dx      Fashion-MNIST (installed)
#   cvae        examples/protein-folding/cvae.dx   contact maps of dx-datagen peptide
#   microscopy  examples/microscopy/cnn.dx         STEM images of dx-datagen stem
#
#   bench/vs_pytorch.sh [--models mlp,cnn,cvae,microscopy] [--repeat N] [--steps N]
#                       [--precision fp32|bf16|both] [--cpu CPU] [--seed S] [--build DIR]
#                       [--python PY] [--keep DIR] [--peptide-args ARGS] [--stem-args ARGS]
#
#   --models        which models, comma-separated (default all four)
#   --repeat        run each model on each side N times (default 1); the
#                   table gives the best and the median time
#   --steps         stop after N training steps (default: the whole epoch);
#                   both sides run the same N steps with the same learning
#                   rates, and the times compare those N steps
#   --precision     fp32 (default): both sides in fp32. bf16: DeepEx compiled
#                   with dxc compile --precision bf16 (convolutions and dense
#                   layers on bf16 inputs, fp32 accumulation) against PyTorch
#                   under torch.autocast("cpu", dtype=torch.bfloat16). both:
#                   the two precisions on both sides in each round, and the
#                   bf16 speed-ups (issue 15's benchmark: --precision both
#                   --models cnn,microscopy,cvae)
#   --cpu           DeepEx compiled with dxc compile --cpu CPU (default: dxc's
#                   own, x86-64-v3: AVX2); native: the vector width of this
#                   machine (AVX-512 where it has it), as PyTorch's kernels,
#                   which choose their instructions at run time
#   --seed          seed of both sides (default 1)
#   --build         the build directory with compiler/dxc and datagen/dx-datagen
#                   (default build)
#   --python        the Python with torch (default /usr/bin/python3)
#   --keep          keep the executables, data, logs and results.jsonl in DIR
#                   (data already there with the same generator flags is reused)
#   --peptide-args  dx-datagen peptide flags instead of the defaults below
#   --stem-args     dx-datagen stem flags instead of the defaults below
#
# Data generated into the work directory (a temporary one unless --keep),
# only for the models asked for, both sides reading the same files:
#
#   data/peptide/  dx-datagen peptide --trajectories 30 --frames 500 --stride 100
#                  --equilibration 2000: 12,000 train and 3,000 test contact
#                  maps, 188 steps of 64 (about 10 s; the example's defaults,
#                  60 x 500 frames at stride 300, take about a minute)
#   data/stem/     dx-datagen stem --train 10000 --test 2000 (the example's
#                  defaults): 64x64 images of 5 lattices, 157 steps (about 5 s)
#
# Times are the sums of the training steps' wall times (DeepEx's epoch_time_s:
# gather a batch, forward, backward, update), without start-up, data loading,
# shuffling and the evaluation on the test set. Runs are interleaved
# (DeepEx mlp, PyTorch mlp, DeepEx cnn, PyTorch cnn, ..., then again for each
# repeat; with --precision both, per model DeepEx fp32, DeepEx bf16, PyTorch
# fp32, PyTorch bf16) so that on a noisy, shared machine both sides meet much
# the same load. Each DeepEx run's metrics log must state the precision it was
# compiled for (its start event's "precision", absent meaning fp32), or the
# script stops. Prints Markdown: every run, then per model and precision the
# DeepEx and PyTorch ms/step, their ratio (target <= 0.5), both train losses
# with a loss check (within 10% after the same steps; printed, never fatal) and
# both test accuracies. With --precision both, also per model DeepEx bf16's
# ms/step, its speed-up over DeepEx fp32 (target >= 2.5 on cnn and microscopy),
# DeepEx bf16 / PyTorch bf16 (target <= 0.5), PyTorch's own fp32/bf16 speed-up,
# and DeepEx's train losses and test accuracies in both precisions.
#
# With cnn among the models and fp32 among the precisions, also the GFLOP/s
# of DeepEx's Fashion-MNIST CNN step against the one-core sgemm rate (target
# >= 50%): a step counted as 3 x the forward FLOPs (flops_per_sample of the
# metrics log's start event) x the batch; the rate of a 1024x1024x1024
# dnnl_sgemm (and cblas_sgemm) on one thread by bench/sgemm_rate.c, built into
# the work directory with cc and run before each round of runs and after the
# last (the reference is the mean of the oneDNN rates; with --precision both,
# a line gives the bf16 step's GFLOP/s against that fp32 rate too). Its lines
# go into results.jsonl too, as do the runs', each with its "precision".
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."

usage() { sed -n '2,/^set -euo/p' "$self" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

models=mlp,cnn,cvae,microscopy repeat=1 steps=0 precision=fp32 cpu="" seed=1 build=build python=/usr/bin/python3 keep=""
peptide_args="--trajectories 30 --frames 500 --stride 100 --equilibration 2000"
stem_args="--train 10000 --test 2000"
while [ $# -gt 0 ]; do
  case $1 in
    --models) models=${2:?}; shift 2 ;;
    --models=*) models=${1#*=}; shift ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --repeat=*) repeat=${1#*=}; shift ;;
    --steps) steps=${2:?}; shift 2 ;;
    --steps=*) steps=${1#*=}; shift ;;
    --precision) precision=${2:?}; shift 2 ;;
    --precision=*) precision=${1#*=}; shift ;;
    --cpu) cpu=${2:?}; shift 2 ;;
    --cpu=*) cpu=${1#*=}; shift ;;
    --seed) seed=${2:?}; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --build) build=${2:?}; shift 2 ;;
    --build=*) build=${1#*=}; shift ;;
    --python) python=${2:?}; shift 2 ;;
    --python=*) python=${1#*=}; shift ;;
    --keep) keep=${2:?}; shift 2 ;;
    --keep=*) keep=${1#*=}; shift ;;
    --peptide-args) peptide_args=${2?}; shift 2 ;;
    --peptide-args=*) peptide_args=${1#*=}; shift ;;
    --stem-args) stem_args=${2?}; shift 2 ;;
    --stem-args=*) stem_args=${1#*=}; shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "$0: --repeat wants a positive integer, got '$repeat'" >&2; exit 2; }
[[ $steps =~ ^[0-9]+$ ]] || { echo "$0: --steps wants a non-negative integer, got '$steps'" >&2; exit 2; }
[[ $seed =~ ^[0-9]+$ ]] || { echo "$0: --seed wants a non-negative integer, got '$seed'" >&2; exit 2; }
case $precision in
  fp32|bf16) precisions=("$precision") ;;
  both) precisions=(fp32 bf16) ;;
  *) echo "$0: --precision wants fp32, bf16 or both, got '$precision'" >&2; exit 2 ;;
esac

# The .dx file of each model.
source_of() {
  case $1 in
    mlp) echo examples/fashion-mnist/mlp.dx ;;
    cnn) echo examples/fashion-mnist/cnn.dx ;;
    cvae) echo examples/protein-folding/cvae.dx ;;
    microscopy) echo examples/microscopy/cnn.dx ;;
  esac
}
IFS=, read -r -a model_list <<< "$models"
[ ${#model_list[@]} -gt 0 ] || { echo "$0: --models is empty" >&2; exit 2; }
need_fashion=0 need_peptide=0 need_stem=0 need_sgemm=0
for m in "${model_list[@]}"; do
  case $m in
    mlp) need_fashion=1 ;;
    cnn) need_fashion=1; [ "$precision" = bf16 ] || need_sgemm=1 ;;
    cvae) need_peptide=1 ;;
    microscopy) need_stem=1 ;;
    *) echo "$0: unknown model '$m' (mlp, cnn, cvae, microscopy)" >&2; exit 2 ;;
  esac
done

dxc=$build/compiler/dxc datagen=$build/datagen/dx-datagen
[ -x "$dxc" ] || { echo "$0: no $dxc; build first (bash scripts/setup.sh build)" >&2; exit 1; }
if [ $((need_peptide + need_stem)) -gt 0 ] && [ ! -x "$datagen" ]; then
  echo "$0: no $datagen; build first (bash scripts/setup.sh build)" >&2; exit 1
fi
"$python" -c "import torch, numpy" 2> /dev/null ||
  { echo "$0: $python cannot import torch and numpy (apt-get install python3-torch)" >&2; exit 1; }
if [ "$need_fashion" = 1 ] && [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  echo "$0: Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)" >&2; exit 1
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
results=$work/results.jsonl
: > "$results"
helper=bench/torch_models.py

cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)    # nproc obeys OMP_NUM_THREADS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# The generated data sets, in $work/data/ where the executables (run in $work)
# find the .dx files' relative paths data/peptide/..., data/stem/...; a stamp
# with the generator's flags lets a --keep directory reuse them.
generate() { # generate KIND FLAGS
  local kind=$1 flags=$2 dir=$work/data/$1
  if [ -f "$dir/.flags" ] && [ "$(cat "$dir/.flags")" = "$flags" ]; then
    echo "reusing $dir (dx-datagen $kind $flags)" >&2
    return
  fi
  echo "generating $dir: dx-datagen $kind $flags" >&2
  rm -rf "$dir"
  # shellcheck disable=SC2086  # the flags are words
  flock -s /tmp/dx-build.lock "$datagen" "$kind" $flags -o "$dir" --quiet > "$work/datagen-$kind.out" 2>&1 ||
    { cat "$work/datagen-$kind.out" >&2; exit 1; }
  printf '%s' "$flags" > "$dir/.flags"
}
[ "$need_peptide" = 1 ] && generate peptide "$peptide_args"
[ "$need_stem" = 1 ] && generate stem "$stem_args"

# One thread everywhere: DeepEx's OpenBLAS, PyTorch's OpenMP and oneDNN.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

# The one-core sgemm rate, the reference of the CNN's GFLOP/s: linked like
# libdxrt's products (oneDNN, OpenBLAS), run between the rounds of runs.
if [ "$need_sgemm" = 1 ]; then
  echo "building $work/sgemm_rate" >&2
  cc -O2 -fopenmp -o "$work/sgemm_rate" bench/sgemm_rate.c -ldnnl -lopenblas -lm 2> "$work/sgemm_rate.build.err" ||
    { cat "$work/sgemm_rate.build.err" >&2; echo "$0: cannot build bench/sgemm_rate.c (libdnnl-dev, libopenblas-dev)" >&2; exit 1; }
fi
sgemm_rate() { # sgemm_rate LABEL: one line of results.jsonl
  [ "$need_sgemm" = 1 ] || return 0
  echo "sgemm rate, $1" >&2
  "$work/sgemm_rate" --json --label "$1" >> "$results" 2> "$work/sgemm_rate.err" ||
    { cat "$work/sgemm_rate.err" >&2; echo "$0: bench/sgemm_rate.c failed" >&2; exit 1; }
}

# The files of a model in a precision are named by its tag: the model for fp32
# (as before bf16 came), MODEL.bf16 for bf16.
tag_of() { [ "$2" = fp32 ] && echo "$1" || echo "$1.$2"; }

for m in "${model_list[@]}"; do
  src=$(source_of "$m")
  for p in "${precisions[@]}"; do
    t=$(tag_of "$m" "$p")
    # fp32 compiles as written (the examples' train blocks are fp32); bf16 overrides it.
    pflags=()
    [ "$p" = fp32 ] || pflags=(--precision "$p")
    [ -z "$cpu" ] || pflags+=(--cpu "$cpu")
    echo "compiling $src${pflags[*]+ ${pflags[*]}}" >&2
    # A shared lock: waits for a `flock /tmp/dx-build.lock ninja -C build` that is
    # rebuilding libdxrt or dxc, and keeps the next one from starting meanwhile.
    flock -s /tmp/dx-build.lock "$dxc" compile "$src" ${pflags[@]+"${pflags[@]}"} -o "$work/$t" \
      2> "$work/$t.compile.err" ||
      { cat "$work/$t.compile.err" >&2; echo "$0: dxc compile $src${pflags[*]+ ${pflags[*]}} failed" >&2; exit 1; }
  done
done

step_flags=()
[ "$steps" -gt 0 ] && step_flags=(--max-steps "$steps")
for ((r = 1; r <= repeat; r++)); do
  sgemm_rate "before round $r"
  for m in "${model_list[@]}"; do
    for p in "${precisions[@]}"; do
      t=$(tag_of "$m" "$p") label=${p/#fp32/}
      echo "run $r/$repeat: $m DeepEx${label:+ $label}" >&2
      log=$work/$t.deepex.$r.jsonl
      rm -f "$log"
      # In $work, so that anything the run writes relative to its directory
      # (checkpoints) stays out of the repository, and data/... is found.
      (cd "$work" && "./$t" --epochs 1 --seed "$seed" --log "$log" ${step_flags[@]+"${step_flags[@]}"}) \
        > "$work/$t.deepex.$r.out" 2>&1 ||
        { echo "$0: the DeepEx $m${label:+ $label} run failed:" >&2; tail -5 "$work/$t.deepex.$r.out" >&2; exit 1; }
      # --precision: stops when the log's start event says another precision than compiled for.
      "$python" "$helper" deepex "$log" --model "$m" --precision "$p" --run "$r" --out "$results"
    done
    for p in "${precisions[@]}"; do
      t=$(tag_of "$m" "$p") label=${p/#fp32/}
      echo "run $r/$repeat: $m PyTorch${label:+ $label}" >&2
      "$python" "$helper" train --model "$m" --data "$work/data" --steps "$steps" --seed "$seed" --run "$r" \
        --precision "$p" --out "$results" > "$work/$t.pytorch.$r.out" 2>&1 ||
        { echo "$0: the PyTorch $m${label:+ $label} run failed:" >&2; tail -5 "$work/$t.pytorch.$r.out" >&2; exit 1; }
    done
  done
done
sgemm_rate "after round $repeat"

case $precision in
  fp32) in_precision="" ;;
  bf16) in_precision=" in bf16" ;;
  both) in_precision=" in fp32 and bf16" ;;
esac
echo "# DeepEx vs PyTorch$in_precision, one CPU thread, batch 64, $(
  [ "$steps" -gt 0 ] && echo "the first $steps steps of one epoch" || echo "one epoch"): ${model_list[*]}"
echo
echo "$cpus CPUs; load average $load_start before the runs, $(cut -d' ' -f1-3 /proc/loadavg) after;" \
  "$("$python" -c 'import torch; print("PyTorch", torch.__version__)'); $(git log -1 --format='commit %h' 2> /dev/null)$(
  git diff --quiet HEAD -- compiler runtime stdlib 2> /dev/null || echo ' + uncommitted changes in compiler/runtime/stdlib')"
echo
echo "DeepEx: dxc compile --cpu ${cpu:-x86-64-v3 (the default)}."
data_line=""
[ "$need_peptide" = 1 ] && data_line+="cvae: dx-datagen peptide $peptide_args; "
[ "$need_stem" = 1 ] && data_line+="microscopy: dx-datagen stem $stem_args; "
[ -n "$data_line" ] && { echo; echo "Data: ${data_line%; }."; }
if [ "$precision" != fp32 ]; then
  # The CPU's bf16 instructions, and the ISA the DeepEx banner says oneDNN runs bf16 on (first bf16 run).
  isa_flags=$({ grep -o -w -E 'avx512_bf16|amx_bf16|amx_tile' /proc/cpuinfo || true; } | sort -u | paste -sd' ' -)
  onednn_isa=$(grep -h -o -m1 'oneDNN on [^)]*' "$work/$(tag_of "${model_list[0]}" bf16).deepex.1.out" 2> /dev/null || true)
  echo
  echo "bf16: CPU flags ${isa_flags:-none of avx512_bf16, amx_bf16}; DeepEx: dxc compile --precision bf16${onednn_isa:+ ($onednn_isa)};" \
    "PyTorch: torch.autocast(\"cpu\", dtype=torch.bfloat16) around the forward pass and the loss."
fi
echo
"$python" "$helper" table "$results"
if [ -n "$keep" ]; then echo "(executables, data, logs and results.jsonl kept in $work)" >&2; fi
