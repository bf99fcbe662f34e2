#!/usr/bin/env bash
# Run HERE (the build machine) before a GPU session: builds the GPU test
# binary and packs it, stripped and xz-compressed (about 1.7 MiB instead of
# 33 MiB), into build/gpu/, the one folder to carry to the GPU machine.
# CUDA-target model executables (mlp_cpu, mlp_gpu, cnn_cpu, cnn_gpu), once
# the compiler can build them, go there too (see README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
flock /tmp/dx-build.lock ninja -C build -j1 dxrt_cuda_tests
mkdir -p build/gpu
strip -o build/gpu/dxrt_cuda_tests build/runtime/cuda/dxrt_cuda_tests
xz -T1 -6 -f build/gpu/dxrt_cuda_tests
ls -la build/gpu
echo "carry: build/gpu   then run: bash test/gpu/run.sh"
