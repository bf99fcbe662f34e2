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
#   2. dxrt_cuda_tests: every device kernel against libdxrt's CPU kernel, the
#      device arena and batch stager, the mgpu* shim on hand-written PTX, NCCL
#      with one rank
#   3. PLACEHOLDER (needs dxc --target=cuda, not built yet): CPU vs GPU loss
#      trajectories of the Fashion-MNIST MLP and CNN over 50 steps
#   4. PLACEHOLDER (same): GPU throughput against PyTorch on the GPU
# Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/dx-gpu}
mkdir -p "$OUT"
fail=0

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

echo "== 2. dxrt_cuda_tests"
bin=
if [ -f build/gpu/dxrt_cuda_tests.xz ]; then
  xz -dc build/gpu/dxrt_cuda_tests.xz >/tmp/dxrt_cuda_tests && chmod +x /tmp/dxrt_cuda_tests && bin=/tmp/dxrt_cuda_tests
elif [ -x build/runtime/cuda/dxrt_cuda_tests ]; then
  bin=build/runtime/cuda/dxrt_cuda_tests
fi
if [ -z "$bin" ]; then
  echo "FAIL: no test binary: run test/gpu/pack.sh on the build machine and carry build/gpu"
  fail=1
else
  ldd "$bin" | tee "$OUT/ldd.txt"
  if grep -q "not found" "$OUT/ldd.txt"; then
    echo "FAIL: the test binary is missing libraries (above)"
    fail=1
  else
    # One process per suite: a kernel failure aborts its process (as it
    # would a training run), and must not hide the other suites' results.
    suites=$("$bin" --gtest_list_tests | grep -v '^ ' | grep -v '^Running' | sed 's/\.$//')
    : >"$OUT/dxrt_cuda_tests.log"
    for s in $suites; do
      timeout 300 "$bin" --gtest_filter="$s.*" --gtest_output="xml:$OUT/${s//\//_}.xml" 2>&1 | tee -a "$OUT/dxrt_cuda_tests.log"
      rc=${PIPESTATUS[0]}
      echo "suite $s: exit $rc" | tee -a "$OUT/dxrt_cuda_tests.log"
      [ "$rc" = 0 ] || fail=1
    done
    grep "^suite " "$OUT/dxrt_cuda_tests.log"
  fi
fi

# ---- 3 and 4 need model executables compiled with dxc --target=cuda (the
# compiler's half of issue 5, not done yet). Build them on the build machine
# into build/gpu/ (dxc compile examples/fashion-mnist/mlp.dx --target=cuda -o
# build/gpu/mlp_gpu; the CPU twins as mlp_cpu, cnn_cpu) and carry them.
# Until they exist these steps say so and are skipped: nothing is pretended.

echo "== 3. PLACEHOLDER: CPU vs GPU loss trajectories, 50 steps"
for m in mlp cnn; do
  cpu=build/gpu/${m}_cpu gpu=build/gpu/${m}_gpu
  if [ -x "$cpu" ] && [ -x "$gpu" ]; then
    "$cpu" --synthetic --max-steps 50 --seed 1 --log "$OUT/${m}_cpu.jsonl" >"$OUT/${m}_cpu.out" 2>&1 || fail=1
    "$gpu" --device cuda --synthetic --max-steps 50 --seed 1 --log "$OUT/${m}_gpu.jsonl" >"$OUT/${m}_gpu.out" 2>&1 || fail=1
    python3 - "$OUT/${m}_cpu.jsonl" "$OUT/${m}_gpu.jsonl" <<'PY' || fail=1
import json, sys
def losses(p):
    return [r["loss"] for r in map(json.loads, open(p)) if "loss" in r and "step" in r]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
worst = max((abs(x - y) / max(1.0, abs(x)) for x, y in zip(a, b)), default=float("nan"))
print(f"{len(a)} / {len(b)} steps, largest relative loss difference {worst:.2e}")
sys.exit(0 if a and len(a) == len(b) and worst < 1e-3 else 1)
PY
  else
    echo "skipped: not built ($gpu needs dxc compile --target=cuda; $cpu its CPU twin)"
  fi
done

echo "== 4. PLACEHOLDER: GPU throughput against PyTorch"
if [ -x build/gpu/mlp_gpu ] && [ -x build/gpu/cnn_gpu ]; then
  for m in mlp cnn; do
    build/gpu/${m}_gpu --device cuda --max-steps 500 --log "$OUT/${m}_gpu_speed.jsonl" >"$OUT/${m}_gpu_speed.out" 2>&1 || fail=1
  done
  # Not written yet: the executables would exist before the comparison does,
  # and a step that cannot compare must not pass.
  echo "FAIL: the PyTorch comparison (bench/torch_fashion.py on the GPU, same 500 steps) is not implemented yet"
  fail=1
else
  echo "skipped: not built (needs build/gpu/mlp_gpu and build/gpu/cnn_gpu from dxc --target=cuda)"
fi

echo "== done: $([ $fail = 0 ] && echo PASS || echo FAIL); logs in $OUT"
exit $fail
