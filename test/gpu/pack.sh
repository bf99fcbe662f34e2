#!/usr/bin/env bash
# Run HERE (the build machine) before a GPU session. Fills build/gpu/, the one
# folder to carry to the GPU machine (the device tool moves at most 64 MiB):
#   dxrt_cuda_tests.xz            the GPU unit tests (stripped, xz)
#   dxrt_cuda_backend_tests.xz    the device backend on a hand-written model
#   mlp_gpu.xz, cnn_gpu.xz        examples/fashion-mnist/{mlp,cnn}.dx compiled
#                                 with dxc --target=cuda --gpu-arch=sm_90;
#   regression_gpu.xz,            test/e2e/Inputs/{regression,segmentation}.dx
#   segmentation_gpu.xz           (continuous targets, per-pixel labels) too
#   ref_{mlp,...}_cpu.jsonl       the CPU twins' metrics logs of the 50-step
#                                 trajectory run (run here: the GPU machine
#                                 then needs no oneDNN), and its flags in
#                                 trajectory_flags
#   mlp_bf16_gpu.xz,              the same two Fashion-MNIST nets compiled
#   cnn_bf16_gpu.xz               with --precision bf16 (run.sh step 7)
#   cnn_bf16wide_gpu.xz           the CNN's bf16 build with --fp32-product-inputs
#   ref_{mlp,cnn}_bf16_cpu.jsonl  their CPU bf16 twins' logs of the same
#                                 trajectory; on a CPU without bf16
#                                 instructions, ref_{mlp,cnn}_bf16_cpu.skipped
#                                 (the executable's message) instead
#   update_bandwidth.xz           the generated Adam update against a device
#                                 copy (bandwidth/update_bandwidth.cpp)
#   infer_host.xz, infer_device.xz  test/infer/predict.c linked with the
#                                 inference library of the CUDA MLP
#                                 (--emit=lib --target=cuda), host and device
#                                 pointers; infer/: its weights (a short CPU
#                                 run), 100 raw samples (x.npy, x.f32) and the
#                                 CPU executable's --predict of them (cpu/)
#   lib/                          every non-glibc, non-CUDA shared library
#                                 they load: MPI's (the GPU machine has no
#                                 MPI), oneDNN's, HDF5's and curl's (.xz)
# cuBLAS, cuDNN and NCCL are far too large to carry: run.sh finds them there.
set -euo pipefail
cd "$(dirname "$0")/../.."
flock /tmp/dx-build.lock ninja -C build -j2 dxrt_cuda_tests dxrt_cuda_backend_tests dxc
out=build/gpu
rm -rf "$out" && mkdir -p "$out/lib"
for t in dxrt_cuda_tests dxrt_cuda_backend_tests; do
  strip -o "$out/$t" "build/runtime/cuda/$t"
  xz -T1 -6 -f "$out/$t"
done

flags="--synthetic --synthetic-samples 64 --batch 64 --epochs 50 --seed 1"
echo "$flags" >"$out/trajectory_flags"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1
for m in mlp cnn regression segmentation; do
  case $m in
    mlp|cnn) src=examples/fashion-mnist/$m.dx ;;
    *) src=test/e2e/Inputs/$m.dx ;;
  esac
  build/compiler/dxc compile "$src" --target=cuda --gpu-arch=sm_90 -o "$tmp/${m}_gpu"
  strip -o "$out/${m}_gpu" "$tmp/${m}_gpu"
  xz -T1 -6 -f "$out/${m}_gpu"
  build/compiler/dxc compile "$src" -o "$tmp/${m}_cpu"
  # shellcheck disable=SC2086
  "$tmp/${m}_cpu" $flags --log "$out/ref_${m}_cpu.jsonl" >"$tmp/${m}_cpu.out"
  tail -n 1 "$tmp/${m}_cpu.out"
done
# bf16 (run.sh step 7): the two Fashion-MNIST nets with --precision bf16,
# built and packed as the fp32 ones above, and their CPU bf16 twins' logs of
# the same trajectory. The CPU twin needs AVX512_BF16 or AMX-BF16: without
# them it exits 1 before training, and we record why instead of failing the
# whole pack (run.sh then reports the CPU comparison as skipped; the GPU
# executables are still packed and timed).
for m in mlp cnn; do
  src=examples/fashion-mnist/$m.dx
  build/compiler/dxc compile "$src" --target=cuda --gpu-arch=sm_90 --precision bf16 -o "$tmp/${m}_bf16_gpu"
  strip -o "$out/${m}_bf16_gpu" "$tmp/${m}_bf16_gpu"
  xz -T1 -6 -f "$out/${m}_bf16_gpu"
  build/compiler/dxc compile "$src" --precision bf16 -o "$tmp/${m}_bf16_cpu"
  # shellcheck disable=SC2086
  if "$tmp/${m}_bf16_cpu" $flags --log "$out/ref_${m}_bf16_cpu.jsonl" >"$tmp/${m}_bf16_cpu.out" 2>&1; then
    tail -n 1 "$tmp/${m}_bf16_cpu.out"
  elif grep -q "this CPU has no bf16 instructions" "$tmp/${m}_bf16_cpu.out"; then
    rm -f "$out/ref_${m}_bf16_cpu.jsonl"
    cp "$tmp/${m}_bf16_cpu.out" "$out/ref_${m}_bf16_cpu.skipped"
    echo "pack.sh: this CPU has no bf16 instructions (AVX512_BF16 or AMX-BF16): no CPU bf16 reference for $m;" \
      "run.sh step 7 will skip its CPU comparison (pack on a CPU with them to have it)"
  else
    cat "$tmp/${m}_bf16_cpu.out" >&2
    echo "pack.sh: ${m}_bf16_cpu failed (above)" >&2
    exit 1
  fi
done
# The CNN's bf16 build with the activations that only products read kept
# in fp32 (--fp32-product-inputs, as before dx-bf16-product-inputs ran for
# CUDA): run.sh step 7 requires the same bits as cnn_bf16_gpu's bf16 storage.
build/compiler/dxc compile examples/fashion-mnist/cnn.dx --target=cuda --gpu-arch=sm_90 --precision bf16 \
  --fp32-product-inputs -o "$tmp/cnn_bf16wide_gpu"
strip -o "$out/cnn_bf16wide_gpu" "$tmp/cnn_bf16wide_gpu"
xz -T1 -6 -f "$out/cnn_bf16wide_gpu"
# The MLP with reductions split only from 1024 elements per output (the
# default is 64, compiler/lowering/SplitReductions.cpp): run.sh times both.
build/compiler/dxc compile examples/fashion-mnist/mlp.dx --target=cuda --gpu-arch=sm_90 --split-reductions=1024 \
  -o "$tmp/mlp_split1024_gpu"
strip -o "$out/mlp_split1024_gpu" "$tmp/mlp_split1024_gpu"
xz -T1 -6 -f "$out/mlp_split1024_gpu"
# The bandwidth benchmark: wide-adam.dx's object and a main of our own, with
# the runtime's link lines (--as-needed: it uses neither MPI nor oneDNN).
build/compiler/dxc compile test/gpu/Inputs/wide-adam.dx --target=cuda --gpu-arch=sm_90 --emit=obj -o "$tmp/wide.o"
# shellcheck disable=SC2046
c++ -std=c++20 -O2 -Wall -Wextra -I runtime -I runtime/include -I . -isystem /usr/local/cuda/include \
  test/gpu/bandwidth/update_bandwidth.cpp "$tmp/wide.o" -Wl,--as-needed \
  $(cat build/runtime/cuda/dxrt-cuda-link.txt) $(cat build/runtime/dxrt-link.txt) -o "$tmp/update_bandwidth"
strip -o "$out/update_bandwidth" "$tmp/update_bandwidth"
xz -T1 -6 -f "$out/update_bandwidth"
# The inference library of the CUDA MLP, called from C with host pointers and
# with device pointers (run.sh step 6); the weights, inputs and CPU outputs
# it is checked against.
mkdir -p "$tmp/lib" "$out/infer"
build/compiler/dxc compile examples/fashion-mnist/mlp.dx --emit=lib --target=cuda --gpu-arch=sm_90 -o "$tmp/lib/libmlp.a"
for v in host device; do
  extra=()
  [ $v = device ] && extra=(-DPREDICT_DEVICE -isystem /usr/local/cuda/include)
  # shellcheck disable=SC2046
  cc -O2 -o "$tmp/infer_$v" test/infer/predict.c -DMODEL_HEADER='"mlp.h"' "${extra[@]}" \
    $(pkg-config --cflags --libs "$tmp/lib/mlp.pc")
  strip -o "$out/infer_$v" "$tmp/infer_$v"
  xz -T1 -6 -f "$out/infer_$v"
done
"$tmp/mlp_cpu" --synthetic --synthetic-samples 256 --epochs 1 --checkpoint-every 0 --save-weights "$out/infer/w" >/dev/null
/usr/bin/python3 test/infer/Inputs/make_inputs.py fashion 100 "$out/infer"
"$tmp/mlp_cpu" --predict "$out/infer/x.npy" --init-from "$out/infer/w" --predict-out "$out/infer/cpu" >/dev/null
# Every shared library the packed programs load that is neither glibc's and
# the compiler's runtime (which any Linux has) nor CUDA's (which run.sh finds
# there): MPI's, oneDNN's and what it loads (libdxrt's CPU GEMM, which the
# kernel tests' CPU references and every model executable link), HDF5's and
# what it loads (libcurl, TLS, Kerberos, ...: the model executables' HDF5
# reader). The GPU machine's image has none of them; all but MPI's travel
# xz-compressed (oneDNN alone is 40 MB), and run.sh unpacks each one that
# machine lacks, behind its own copies.
{
  for t in dxrt_cuda_tests dxrt_cuda_backend_tests; do ldd "build/runtime/cuda/$t"; done
  for f in "$tmp"/*_gpu "$tmp"/infer_* "$tmp/update_bandwidth"; do ldd "$f"; done
} | awk '/=>/ && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    case $name in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|libgcc_s.so.*|libstdc++.so.*|ld-linux*) ;;
      libcublas*|libcudnn*|libnccl*|libcuda.so*) ;;
      libmpi*|libopen-*|libhwloc*|libevent*|libudev*|libpmix*|libfabric*|libucp*|libucs*|libucm*|libuct*)
        cp -L "$path" "$out/lib/$name" ;;
      *) xz -T1 -6 -c "$path" >"$out/lib/$name.xz" ;;
    esac
  done
ls -la "$out" "$out/lib"
du -sh "$out"
echo "carry: build/gpu   then run: bash test/gpu/run.sh"
