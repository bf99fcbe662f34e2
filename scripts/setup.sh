#!/usr/bin/env bash
# Installs what DeepEx needs from Debian's archive (idempotent) and builds it.
# Usage: scripts/setup.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

PACKAGES=(
  cmake ninja-build ccache g++ python3
  antlr4 libantlr4-runtime-dev libcli11-dev
  llvm-19-dev libmlir-19-dev mlir-19-tools   # MLIR/LLVM 19: the code generator
  llvm-19-tools python3-psutil        # lit and FileCheck; psutil: lit's time limit per test
  clang libclang-rt-14-dev            # libFuzzer for the fuzz tests (fuzz/run.sh)
  lld                                 # the linker dxc links executables with (CMake DX_LINKER)
  libopenblas-dev zlib1g-dev nlohmann-json3-dev libgtest-dev   # the runtime, libdxrt
  libdnnl-dev                                                    # oneDNN: libdxrt's convolutions
  libpng-dev libjpeg62-turbo-dev                                 # dx-datagen image folders; the image-folder reader
  libhdf5-dev                                                    # format: hdf5 datasets; dx-datagen --hdf5
  openmpi-bin libopenmpi-dev                                     # data-parallel training under mpirun
  slurm-wlm munge                     # test/slurm: a one-node Slurm (slurmctld, slurmd, sbatch) and its auth daemon
  dataset-fashion-mnist
  python3-torch python3-numpy         # the reference of the gradient checks; NPY checks in tests
  python3-h5py                        # HDF5 files written by the tests (test/e2e/hdf5.test)
  gfortran pkg-config                 # the inference library's Fortran and C test programs (test/infer)
  chromium python3-pil                # report-browser.test: report.html in headless Chromium, its screenshot decoded
  xz-utils                            # test/gpu: pack.sh's compressed programs, run-smoke.test
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
# One job per core, at most one per ~3 GB of memory (an MLIR translation unit
# needs about that); DX_BUILD_JOBS=N overrides.
jobs=${DX_BUILD_JOBS:-}
if [ -z "$jobs" ]; then
  cores=$(nproc)
  mem_gb=$(awk '/MemTotal/ {print int($2 / 1048576)}' /proc/meminfo)
  jobs=$(( mem_gb / 3 < cores ? mem_gb / 3 : cores ))
  [ "$jobs" -ge 1 ] || jobs=1
fi
echo "setup: building with $jobs jobs (DX_BUILD_JOBS overrides)"
ninja -C "$BUILD" -j"$jobs"
