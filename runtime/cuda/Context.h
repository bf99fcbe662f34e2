// What every device kernel of libdxrt_cuda shares: the one stream all of a
// step's work goes to (library calls and the generated code's launches, so
// they are ordered without synchronising), the cuBLAS and cuDNN handles bound
// to it, and the kernels' scratch memory. Created on first use, after the
// device is selected (Device.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dxrt/cuda_kernels.h"

struct CUstream_st;
struct cublasContext;
struct cudnnContext;

namespace dxrt::cuda {

struct Context {
  CUstream_st *stream = nullptr;
  cublasContext *cublas = nullptr;
  cudnnContext *cudnn = nullptr;
};

// The process's context (one device per process).
Context &context();

// Device scratch of at least `bytes` bytes, 256-byte aligned, shared by all
// kernels (they run one after another on the stream). It grows only when a
// kernel needs more than before: after the first step of a training loop a
// step allocates nothing. Growing waits for the stream, since work queued
// before may still use the old buffer.
void *scratch(size_t bytes);
int64_t scratch_grows();

// TF32 tensor cores for float GEMMs and convolutions: off unless
// DXRT_CUDA_TF32=1, so that results match the CPU kernels to float rounding.
bool allow_tf32();

} // namespace dxrt::cuda

// The C entry points (dxrt_cuda_stream, ...) are declared in dxrt/cuda_kernels.h.
