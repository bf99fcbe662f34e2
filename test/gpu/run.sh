#!/usr/bin/env bash
# The GPU checks, in one script, for a machine with an NVIDIA GPU and driver.
# That machine needs no MPI, MLIR, compiler or build tree: only this working
# tree and build/gpu/ (made here by test/gpu/pack.sh, carried). The CUDA
# libraries (cuBLAS 13, cuDNN 9, NCCL 2) are looked up there (README.md).
#
#   bash test/gpu/run.sh            # results and logs in $OUT (default /tmp/dx-gpu)
#
# Steps:
#   1. nvidia-smi
#   2. dxrt_cuda_tests: every device kernel against libdxrt's CPU kernel (the
#      3-D convolution and pooling against naive host loops), the device
#      arena and batch stager, the mgpu* shim on hand-written PTX, NCCL
#      with one rank; dxrt_cuda_backend_tests: the device backend
#      (CudaBackend.cpp) on a hand-written device model against the host
#      backend's semantics; 2b: the convolution tests once per cuDNN
#      algorithm (each preferred in turn)
#   3. CPU vs GPU loss trajectories of the Fashion-MNIST MLP and CNN, a
#      regression MLP (continuous targets) and a segmentation net (per-pixel
#      labels) over 50 steps (--target=cuda executables against CPU logs made
#      by pack.sh), 1e-3 relative (the CNN's first 7 steps; why below); and
#      their evaluation metrics (val_mae, val_iou, ...) at the same tolerance
#   4. training throughput of the same two against PyTorch eager on this GPU
#      (test/gpu/torch_throughput.py), batch 64 and 512: a table of ratios;
#      also the MLP built with reductions split only from 1024 elements per
#      output (mlp_split1024; the default splits from 64)
#   5. the bandwidth of a generated fused kernel (the Adam update) against a
#      device-to-device copy of the same bytes
#   6. the inference library of a --target=cuda build (the MLP), called from
#      C with host and with device pointers: the same bits both ways, equal
#      to the CUDA executable's --predict, and within 1e-4 of the CPU's
#   7. bf16 (--precision bf16 builds of the Fashion-MNIST MLP and CNN): CPU
#      vs GPU loss trajectories over step 3's 50 steps, 3e-2 relative per
#      step (the CNN's first 3 steps; why below), the final loss against
#      step 3's GPU fp32 run; the CNN's bf16 storage against fp32 storage,
#      the same bits; and their throughput against PyTorch's bf16
#      autocast on this GPU, batch 64 and 512, with the bf16 / fp32 speed-up
#      ($OUT/throughput_bf16.md)
# Each program runs under `timeout $DX_GPU_TIMEOUT` (seconds, default 300): a
# hung kernel or NCCL call fails its step instead of the session's device time.
# DX_GPU_SPEED_STEPS (default 500): the steps per epoch of the throughput
# runs (steps 4 and 7b); DX_GPU_TMP (default /tmp): where the packed
# programs and libraries are unpacked. test/gpu/run-smoke.test runs this
# script on CPU stand-ins with a few steps and a directory of its own.
# Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/dx-gpu}
mkdir -p "$OUT"
fail=0
limit=${DX_GPU_TIMEOUT:-300}
tmp=${DX_GPU_TMP:-/tmp} # where the packed programs and libraries are unpacked
mkdir -p "$tmp"

echo "== 1. nvidia-smi"
nvidia-smi || { echo "FAIL: nvidia-smi did not run: no NVIDIA driver here"; fail=1; }

echo "== CUDA libraries"
# Directories holding each library the test binary needs: DXRT_CUDA_LIBS
# first (a colon-separated list), then a CUDA install, then the NVIDIA pip
# wheels a PyTorch install brings (nvidia/cublas, nvidia/cudnn, nvidia/nccl, ...).
search=()
IFS=: read -r -a extra <<<"${DXRT_CUDA_LIBS:-}"
search+=("${extra[@]}" /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu)
for py in python3 /opt/torch/.venv/bin/python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  while read -r d; do search+=("$d"); done < <("$py" - <<'PY' 2>/dev/null
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for d in sorted(glob.glob(os.path.join(r, "nvidia", "*", "lib"))):
        print(d)
PY
)
done
libdirs=()
for lib in libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2; do
  found=
  for d in "${search[@]}"; do
    [ -n "$d" ] && [ -e "$d/$lib" ] && { found=$d; break; }
  done
  if [ -z "$found" ]; then
    echo "FAIL: $lib not found (looked in: ${search[*]}); set DXRT_CUDA_LIBS"
    fail=1
  else
    echo "$lib: $found"
    case " ${libdirs[*]-} " in *" $found "*) ;; *) libdirs+=("$found") ;; esac
  fi
done
# cuDNN loads its sub-libraries (libcudnn_cnn.so.9, ...) from its own directory.
export LD_LIBRARY_PATH="$(IFS=:; echo "${libdirs[*]-}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

echo "== 2. dxrt_cuda_tests, dxrt_cuda_backend_tests"
# MPI's shared libraries travel in build/gpu/lib: dxrt_cuda_backend_tests and
# the model executables link libmpi (MPI itself only starts under a launcher,
# so a plain run needs just the files).
[ -d build/gpu/lib ] && export LD_LIBRARY_PATH="$PWD/build/gpu/lib:$LD_LIBRARY_PATH"
# oneDNN (libdxrt's CPU GEMM, which the kernel tests' CPU references and the
# model executables link) travels xz-compressed: unpacked here, used only
# where this machine has no copy of its own.
if compgen -G "build/gpu/lib/*.xz" >/dev/null; then
  mkdir -p "$tmp/dx-gpu-lib"
  for f in build/gpu/lib/*.xz; do
    name=$(basename "$f" .xz)
    ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$name " || xz -dc "$f" >"$tmp/dx-gpu-lib/$name"
  done
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$tmp/dx-gpu-lib"
fi
gtest_suites() { # NAME: build/gpu/NAME.xz (or the build tree's NAME), each suite in its own process
  local name=$1 bin= s rc
  if [ -f "build/gpu/$name.xz" ]; then
    xz -dc "build/gpu/$name.xz" >"$tmp/$name" && chmod +x "$tmp/$name" && bin="$tmp/$name"
  elif [ -x "build/runtime/cuda/$name" ]; then
    bin=build/runtime/cuda/$name
  fi
  if [ -z "$bin" ]; then
    echo "FAIL: no $name: run test/gpu/pack.sh on the build machine and carry build/gpu"
    fail=1
    return
  fi
  ldd "$bin" | tee "$OUT/ldd_$name.txt"
  if grep -q "not found" "$OUT/ldd_$name.txt"; then
    echo "FAIL: $name is missing libraries (above)"
    fail=1
    return
  fi
  # One process per suite: a kernel failure aborts its process (as it
  # would a training run), and must not hide the other suites' results.
  : >"$OUT/$name.log"
  for s in $("$bin" --gtest_list_tests | grep -v '^ ' | grep -v '^Running' | sed 's/\.$//'); do
    timeout "$limit" "$bin" --gtest_filter="$s.*" --gtest_output="xml:$OUT/${s//\//_}.xml" 2>&1 | tee -a "$OUT/$name.log"
    rc=${PIPESTATUS[0]}
    echo "suite $s: exit $rc" | tee -a "$OUT/$name.log"
    [ "$rc" = 0 ] || fail=1
  done
  grep "^suite " "$OUT/$name.log"
}
gtest_suites dxrt_cuda_tests
gtest_suites dxrt_cuda_backend_tests

echo "== 2b. the convolution tests under each cuDNN algorithm DeepEx may choose"
# cudnnFind* times the candidates, so the algorithm a run gets can change
# from one run to the next, and the tests above see only the one chosen
# (on 2026-12-04 a 5x5 convolution failed in one of two runs: cuDNN's
# non-fused Winograd, now excluded, runtime/cuda/Conv.cpp). Here each
# algorithm number of each direction is preferred in turn
# (DXRT_CUDA_CONV_{FWD,BWD_DATA,BWD_FILTER}_ALGO: used wherever cuDNN offers
# it for a geometry and DeepEx accepts it), and the 2-D, 3-D and bf16
# convolution tests must pass under each.
conv_tests="$tmp/dxrt_cuda_tests"
[ -x "$conv_tests" ] || conv_tests=build/runtime/cuda/dxrt_cuda_tests
if [ -x "$conv_tests" ]; then
  for spec in FWD:8:forward BWD_DATA:6:grad_input BWD_FILTER:7:grad_weight; do
    IFS=: read -r dir count plan <<<"$spec"
    var=DXRT_CUDA_CONV_${dir}_ALGO
    for ((a = 0; a < count; a++)); do
      log="$OUT/algo_${dir}_$a.log"
      env "$var=$a" DXRT_CUDA_CONV_LOG=1 timeout "$limit" "$conv_tests" \
        --gtest_filter='Geometries/Conv.*:Geometries/Conv3d.*:Shapes/GpuBf16Conv.*' >"$log" 2>&1
      rc=$?
      used=$(grep -c "conv plan: $plan .*: algo $a " "$log")
      summary=$(grep -E '^\[  PASSED  \] [0-9]+ tests?|^ *[0-9]+ FAILED TESTS?$' "$log" | tr -s ' \n' ' ')
      echo "$var=$a: used by $used $plan plans; ${summary:-no summary}; exit $rc"
      [ "$rc" = 0 ] || fail=1
    done
  done
else
  echo "FAIL: no dxrt_cuda_tests for step 2b"
  fail=1
fi

# ---- 3 and 4: model executables compiled with dxc --target=cuda, packed by
# test/gpu/pack.sh into build/gpu/ (xz), with the CPU twins' reference logs
# (the CPU run happens on the build machine).
unpack() { # build/gpu/NAME.xz -> $tmp/dx-gpu-bin/NAME; prints the path
  mkdir -p "$tmp/dx-gpu-bin"
  [ -f "build/gpu/$1.xz" ] || return 1
  xz -dc "build/gpu/$1.xz" >"$tmp/dx-gpu-bin/$1" && chmod +x "$tmp/dx-gpu-bin/$1" && echo "$tmp/dx-gpu-bin/$1"
}

echo "== 3. CPU vs GPU loss trajectories, 50 steps"
# 50 epochs of one step each (--synthetic-samples = --batch): every epoch's
# train_loss is one step's loss, logged. The same seed gives both sides the
# same data, initialisation and dropout masks (Philox, bit-exact on the GPU).
# Each step's train and eval loss (and the task's metrics) within 1e-3
# relative of the CPU's, over all 50 steps; for the CNN over its first
# CNN_STEPS (default 7), after which it must only learn (every loss finite,
# the mean of the last 10 steps below the first step's). Why: measured on an
# H200 (2026-12-04), the GPU CNN's loss agrees with the CPU's to 1e-7..6e-6
# over steps 1-7, and at step 8 by 7.7e-4, after which the two trajectories
# part (31% at most, the full learning rate from step 2 on 64 samples
# makes the loss jump from 2.3 to 4.7 by step 6). The cause is one ReLU:
# in step 7's forward pass the first dense layer's unit 64 has, for one
# sample, a pre-activation of 3.2e-4 (the median |pre-activation| is 5.2;
# float64 PyTorch on the CPU build's weights after 6 steps). The GPU's sums
# (cuBLAS, cuDNN), a few 1e-6 apart from oneDNN's after six steps, put it on
# the other side of zero, so that unit's row of weights gets one sample's
# gradient more or less (after 7 steps the weights differ in that row and
# bias by 5e-3; elsewhere by 1e-5). Nothing is wrong on either side: a run
# repeats bit for bit on the GPU, cuDNN restricted to non-transform
# algorithms gave the same step 8, and three of oneDNN's CPU kernels (AVX-512,
# AVX2, SSE4.1) stay within 5.4e-4 of each other over all 50 steps. The
# convolutions' algorithms are printed (DXRT_CUDA_CONV_LOG=1).
for m in mlp cnn regression segmentation; do
  case $m in
    cnn) gate=${CNN_STEPS:-7} ;;
    *) gate=50 ;;
  esac
  gpu=$(unpack ${m}_gpu) || gpu=
  ref=build/gpu/ref_${m}_cpu.jsonl
  if [ -z "$gpu" ] || [ ! -f "$ref" ]; then
    echo "FAIL: build/gpu/${m}_gpu.xz or $ref missing: run test/gpu/pack.sh on the build machine"
    fail=1
    continue
  fi
  # shellcheck disable=SC2046
  DXRT_CUDA_CONV_LOG=1 timeout "$limit" "$gpu" $(cat build/gpu/trajectory_flags) --log "$OUT/${m}_gpu.jsonl" \
    >"$OUT/${m}_gpu.out" 2>&1
  rc=$?
  grep "conv plan" "$OUT/${m}_gpu.out"
  tail -n 3 "$OUT/${m}_gpu.out"
  [ "$rc" = 0 ] || { echo "FAIL: ${m}_gpu exited with $rc (log: $OUT/${m}_gpu.out)"; fail=1; continue; }
  python3 test/gpu/trajectory_check.py "$ref" "$OUT/${m}_gpu.jsonl" "$m" "$gate" || fail=1
done

echo "== 4. training throughput against PyTorch eager on this GPU"
# Both sides: 500 steps of the same network, batch, fp32 (no TF32), data in
# host memory copied every step, the loss read back every step; the second
# of two epochs is timed. Ratio = DeepEx samples/s / PyTorch samples/s
# (target >= 1.0). A benchmark: it reports, a low ratio does not fail.
py=
for cand in python3 /usr/bin/python3 /opt/torch/.venv/bin/python3; do
  command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch" 2>/dev/null && { py=$cand; break; }
done
[ -n "$py" ] || { echo "FAIL: no python3 with torch here"; fail=1; }
printf "| model | batch | DeepEx samples/s | PyTorch samples/s | ratio |\n|---|---|---|---|---|\n" >"$OUT/throughput.md"
for m in mlp cnn mlp_split1024; do
  gpu="$tmp/dx-gpu-bin/${m}_gpu"
  [ -x "$gpu" ] || gpu=$(unpack ${m}_gpu) || { echo "FAIL: build/gpu/${m}_gpu.xz missing: run test/gpu/pack.sh"; fail=1; continue; }
  [ -n "$py" ] || continue
  for b in 64 512; do
    steps=${DX_GPU_SPEED_STEPS:-500}
    timeout "$limit" "$gpu" --synthetic --synthetic-samples $((steps * b)) --batch $b --epochs 2 --seed 1 \
      --log "$OUT/${m}_b${b}_speed.jsonl" >"$OUT/${m}_b${b}_speed.out" 2>&1 || { echo "FAIL: $m batch $b"; fail=1; continue; }
    timeout "$limit" "$py" test/gpu/torch_throughput.py --model ${m%%_*} --batch $b --steps $steps >"$OUT/${m}_b${b}_torch.json" \
      2>"$OUT/${m}_b${b}_torch.err" || { echo "FAIL: PyTorch $m batch $b"; cat "$OUT/${m}_b${b}_torch.err"; fail=1; continue; }
    python3 - "$OUT/${m}_b${b}_speed.jsonl" "$OUT/${m}_b${b}_torch.json" "$m" "$b" >>"$OUT/throughput.md" <<'PY'
import json, sys
ep = [r for r in map(json.loads, open(sys.argv[1])) if r.get("event") == "epoch"]
t = json.load(open(sys.argv[2]))
dx = ep[-1]["samples_per_s"]
print(f"| {sys.argv[3]} | {sys.argv[4]} | {dx:.0f} | {t['samples_per_s']:.0f} | {dx / t['samples_per_s']:.2f} |")
PY
  done
done
cat "$OUT/throughput.md"

echo "== 5. a generated fused elementwise kernel against the copy bandwidth"
# The Adam update dxc generates for Inputs/wide-adam.dx (74 M parameters,
# one kernel, 28 bytes per parameter) against cudaMemcpy of the same bytes,
# best of 20 each (target: ratio >= 0.70). Reports; fails only if it cannot run.
if bw=$(unpack update_bandwidth); then
  timeout "$limit" "$bw" 2>&1 | tee "$OUT/bandwidth.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL: update_bandwidth"; fail=1; }
else
  echo "FAIL: build/gpu/update_bandwidth.xz missing: run test/gpu/pack.sh"
  fail=1
fi

echo "== 6. the inference library of a --target=cuda build"
# test/infer/predict.c linked with the CUDA MLP's library (pack.sh): 100 raw
# samples, 64 per call (two calls), host pointers and device pointers
# (cudaMalloc'd inputs and outputs). Both must give the same bits, equal to
# the CUDA executable's --predict with the same weights (the same kernels at
# the same batch of 64), and agree with the CPU build's outputs to 1e-4.
inf=build/gpu/infer
gpu="$tmp/dx-gpu-bin/mlp_gpu"
[ -x "$gpu" ] || gpu=$(unpack mlp_gpu) || gpu=
if [ -z "$gpu" ] || [ ! -d "$inf" ] || [ -z "$py" ]; then
  echo "FAIL: build/gpu/mlp_gpu.xz, $inf or a python3 with numpy missing: run test/gpu/pack.sh"
  fail=1
else
  ok=1
  for v in host device; do
    bin=$(unpack infer_$v) || { echo "FAIL: build/gpu/infer_$v.xz missing"; ok=0; continue; }
    timeout "$limit" "$bin" "$inf/w" "$inf/x.f32" 100 64 "$OUT/infer_${v}_" >"$OUT/infer_$v.out" 2>&1 ||
      { echo "FAIL: infer_$v: $(cat "$OUT/infer_$v.out")"; ok=0; }
  done
  timeout "$limit" "$gpu" --predict "$inf/x.npy" --init-from "$inf/w" --predict-out "$OUT/infer_exe" >"$OUT/infer_exe.out" 2>&1 ||
    { echo "FAIL: mlp_gpu --predict: $(tail -n 3 "$OUT/infer_exe.out")"; ok=0; }
  if [ $ok = 1 ]; then
    "$py" - "$OUT/infer_host_0.f32" "$OUT/infer_device_0.f32" "$OUT/infer_exe/predict_logits.npy" \
      "$inf/cpu/predict_logits.npy" <<'PY' || fail=1
import sys
import numpy as np
host, device = (np.fromfile(p, dtype=np.float32) for p in sys.argv[1:3])
exe, cpu = (np.load(p).reshape(-1) for p in sys.argv[3:5])
same = lambda a, b: a.size == b.size and np.array_equal(a.view(np.uint32), b.view(np.uint32))
rel = float(np.max(np.abs(host.astype(np.float64) - cpu)) / max(float(np.max(np.abs(cpu))), 1e-30))
ok = same(host, device) and same(host, exe) and rel < 1e-4
print(f"library, host pointers = device pointers: {same(host, device)}; = the CUDA executable's --predict: "
      f"{same(host, exe)}; largest relative difference to the CPU build {rel:.1e} (limit 1e-4): "
      + ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
  else
    fail=1
  fi
fi

echo "== 7. bf16: CPU vs GPU loss trajectories, 50 steps; throughput against PyTorch autocast"
# (a) The --precision bf16 builds of the Fashion-MNIST MLP and CNN (pack.sh:
# {mlp,cnn}_bf16_gpu; cuBLAS on bf16 inputs with fp32 accumulation and
# output, cuDNN convolutions in PSEUDO_BFLOAT16: bf16 x, w and y, fp32
# compute) over step 3's trajectory (same flags: same data, initialisation
# and dropout masks), against their CPU bf16 twins' logs (oneDNN on bf16
# inputs, fp32 accumulation and output), made by pack.sh.
# Tolerance: bf16 keeps 8 significant bits (relative rounding 2^-9, about
# 2e-3, per operand); the CPU keeps its convolutions' outputs in fp32 where
# cuDNN rounds them (and the convolution gradients) to bf16; and the two sum
# in different orders. So each step's train loss within 3e-2 relative (about
# 15 times one operand's rounding), and the GPU bf16 run's final loss within
# 3e-2 of the GPU fp32 run's (step 3's $OUT/<model>_gpu.jsonl, where it ran).
# That binds over all 50 steps for the MLP, whose trajectory damps differences
# (measured on the build machine: CPU bf16 against CPU fp32 at most 3.3e-3 in
# a step, 1.0e-3 at the end). The CNN's does not: its loss jumps from 2.3 to
# 4-4.7 by step 6 (the full learning rate from step 1 on 64 samples), and over
# steps 3 to 5 any difference grows five- to a hundredfold a step. Measured on
# the build machine: the CPU bf16 build against itself with DXRT_CONV=im2col
# (the convolutions' summation order alone) differs by 3.6e-2 at step 5 and
# ends at 1.56 against 0.76; CPU bf16 against CPU fp32 by 4.1e-2 at step 4 and
# 18% at the end. A correct GPU build differs from the CPU bf16 one in both
# ways (rounding and order), so it would fail a 50-step limit as surely. So
# the CNN's limit binds on its first BF16_CNN_STEPS steps (default 3, where
# bf16 against fp32 on the CPU differs by 2e-5, 2e-4, 9e-4: a wrong layout,
# scale or conversion shows there at once); its later steps must only learn
# (every loss finite, the mean of the last 10 below the first step's), and
# their differences are printed beside what rounding alone does on the CPU
# (bf16 against fp32, pack.sh's logs). BF16_CNN_STEPS=50 binds the limit over
# every step, and the final loss against fp32, as for the MLP.
bf16_limit=3e-2
for m in mlp cnn; do
  case $m in
    cnn) gate=${BF16_CNN_STEPS:-3} ;;
    *) gate=50 ;;
  esac
  gpu=$(unpack ${m}_bf16_gpu) || gpu=
  ref=build/gpu/ref_${m}_bf16_cpu.jsonl
  if [ -z "$gpu" ]; then
    echo "FAIL: build/gpu/${m}_bf16_gpu.xz missing: run test/gpu/pack.sh on the build machine (a dxc with CUDA bf16)"
    fail=1
    continue
  fi
  if [ ! -f "$ref" ]; then
    if [ -f "build/gpu/ref_${m}_bf16_cpu.skipped" ]; then
      # pack.sh ran on a CPU without bf16 instructions, and said so: not a failure here.
      echo "SKIP: no CPU bf16 reference for $m (pack.sh: $(tail -n 1 "build/gpu/ref_${m}_bf16_cpu.skipped"));" \
        "the GPU run is still checked against fp32; pack on a CPU with AVX512_BF16 or AMX-BF16 to compare"
    else
      echo "FAIL: $ref missing: run test/gpu/pack.sh on the build machine"
      fail=1
    fi
    ref=-
  fi
  # shellcheck disable=SC2046
  timeout "$limit" "$gpu" $(cat build/gpu/trajectory_flags) --log "$OUT/${m}_bf16_gpu.jsonl" >"$OUT/${m}_bf16_gpu.out" 2>&1
  rc=$?
  tail -n 3 "$OUT/${m}_bf16_gpu.out"
  [ "$rc" = 0 ] || { echo "FAIL: ${m}_bf16_gpu exited with $rc (log: $OUT/${m}_bf16_gpu.out)"; fail=1; continue; }
  python3 test/gpu/bf16_trajectory_check.py "$ref" "$OUT/${m}_bf16_gpu.jsonl" "$m" "$gate" "$bf16_limit" \
    "$OUT/${m}_gpu.jsonl" "build/gpu/ref_${m}_cpu.jsonl" || fail=1
done

# (a2) bf16 storage on the GPU: the CNN's bf16 build stores the activations
# and the gradient that only products read in bf16 (generated kernels write
# 16-bit values; the _bf16x/_bf16dy twins hand them to cuBLAS and cuDNN as
# they are); cnn_bf16wide_gpu keeps them in fp32 and rounds copies. The
# products read the same bits either way, so the two trajectories must be
# the same bits, step by step. Both runs prefer the same deterministic
# cuDNN algorithms (step 2b's variables), so that cudnnFind's timings cannot
# choose differently; DXRT_CUDA_CONV_LOG=1 records the choices in the logs.
narrow=$(unpack cnn_bf16_gpu) || narrow=
wide=$(unpack cnn_bf16wide_gpu) || wide=
if [ -z "$narrow" ] || [ -z "$wide" ]; then
  echo "FAIL: build/gpu/cnn_bf16_gpu.xz or cnn_bf16wide_gpu.xz missing: run test/gpu/pack.sh"
  fail=1
else
  storage_ok=1
  for b in narrow wide; do
    exe=$narrow
    [ $b = wide ] && exe=$wide
    # shellcheck disable=SC2046
    env DXRT_CUDA_CONV_FWD_ALGO=1 DXRT_CUDA_CONV_BWD_DATA_ALGO=1 DXRT_CUDA_CONV_BWD_FILTER_ALGO=1 DXRT_CUDA_CONV_LOG=1 \
      timeout "$limit" "$exe" $(cat build/gpu/trajectory_flags) --log "$OUT/cnn_bf16_storage_$b.jsonl" \
      >"$OUT/cnn_bf16_storage_$b.out" 2>&1 ||
      { echo "FAIL: the CNN's bf16 build ($b storage) exited with $? (log: $OUT/cnn_bf16_storage_$b.out)"; storage_ok=0; }
  done
  if [ $storage_ok = 1 ]; then
    python3 - "$OUT/cnn_bf16_storage_narrow.jsonl" "$OUT/cnn_bf16_storage_wide.jsonl" "$OUT" <<'PY' || fail=1
import json, sys
def losses(p):  # every epoch's (= step's) train and eval loss, as logged
    return [(r["train_loss"], r.get("val_loss")) for r in map(json.loads, open(p)) if r.get("event") == "epoch"]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
differ = [i + 1 for i in range(min(len(a), len(b))) if a[i] != b[i]]
if a and len(a) == len(b) and not differ:
    print(f"cnn bf16 storage: the same bits as fp32 storage over {len(a)} steps: PASS")
    sys.exit(0)
print(f"FAIL: cnn bf16 storage: {len(a)} and {len(b)} steps, differing from step {differ[0] if differ else '-'}: "
      f"bf16 {a[differ[0] - 1] if differ else '-'}, fp32 {b[differ[0] - 1] if differ else '-'} "
      f"(cuDNN's choices: grep algo {sys.argv[3]}/cnn_bf16_storage_*.out)")
sys.exit(1)
PY
  else
    fail=1
  fi
fi

# (b) Throughput of the bf16 builds against PyTorch's bf16 autocast on this
# GPU, with step 4's protocol: 500 steps of the same network and batch (64
# and 512), data in host memory copied every step, the loss read back every
# step, the second of two epochs timed. PyTorch: torch_throughput.py
# --precision bf16, the forward and the loss under torch.autocast("cuda",
# dtype=torch.bfloat16), fp32 master weights (what the bf16 build keeps).
# Ratio = DeepEx bf16 samples/s / PyTorch bf16 samples/s (target >= 1.0);
# bf16 / fp32 = DeepEx bf16 samples/s / step 4's DeepEx fp32 samples/s at the
# same batch ("-" where step 4 did not time it). Reports; a low ratio does not
# fail.
printf "| model | batch | DeepEx bf16 samples/s | PyTorch autocast bf16 samples/s | ratio | DeepEx bf16 / fp32 |\n|---|---|---|---|---|---|\n" \
  >"$OUT/throughput_bf16.md"
for m in mlp cnn; do
  gpu=$(unpack ${m}_bf16_gpu) || { echo "FAIL: build/gpu/${m}_bf16_gpu.xz missing: run test/gpu/pack.sh"; fail=1; continue; }
  [ -n "$py" ] || continue
  for b in 64 512; do
    steps=${DX_GPU_SPEED_STEPS:-500}
    timeout "$limit" "$gpu" --synthetic --synthetic-samples $((steps * b)) --batch $b --epochs 2 --seed 1 \
      --log "$OUT/${m}_bf16_b${b}_speed.jsonl" >"$OUT/${m}_bf16_b${b}_speed.out" 2>&1 ||
      { echo "FAIL: ${m}_bf16 batch $b (log: $OUT/${m}_bf16_b${b}_speed.out)"; fail=1; continue; }
    timeout "$limit" "$py" test/gpu/torch_throughput.py --model $m --batch $b --steps $steps --precision bf16 \
      >"$OUT/${m}_bf16_b${b}_torch.json" 2>"$OUT/${m}_bf16_b${b}_torch.err" ||
      { echo "FAIL: PyTorch bf16 $m batch $b"; cat "$OUT/${m}_bf16_b${b}_torch.err"; fail=1; continue; }
    python3 - "$OUT/${m}_bf16_b${b}_speed.jsonl" "$OUT/${m}_bf16_b${b}_torch.json" "$m" "$b" \
      "$OUT/${m}_b${b}_speed.jsonl" >>"$OUT/throughput_bf16.md" <<'PY'
import json, os, sys
def speed(p):  # the last epoch's samples/s of a DeepEx metrics log, or None
    if not os.path.isfile(p):
        return None
    ep = [r for r in map(json.loads, open(p)) if r.get("event") == "epoch"]
    return ep[-1]["samples_per_s"] if ep else None
dx, fp32 = speed(sys.argv[1]), speed(sys.argv[5])
t = json.load(open(sys.argv[2]))
up = f"{dx / fp32:.2f}" if fp32 else "-"
print(f"| {sys.argv[3]} | {sys.argv[4]} | {dx:.0f} | {t['samples_per_s']:.0f} | {dx / t['samples_per_s']:.2f} | {up} |")
PY
  done
done
cat "$OUT/throughput_bf16.md"

echo "== done: $([ $fail = 0 ] && echo PASS || echo FAIL); logs in $OUT"
exit $fail
