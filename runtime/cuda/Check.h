// Checks for the CUDA libraries, in the style of common/Check.h: a failed
// call throws dxrt::Error naming runtime/cuda/file:line, the call as written,
// the library's own error name and text, and a hint.
//
// This header includes no CUDA header: the macros pass the status on as an
// int, so code that only checks calls (and the tests) need not see cuDNN or
// NCCL. Kernels called from generated code must not let the exception unwind
// through generated frames: they run their body under dxrt::cuda::guard
// (Kernel.h), which turns it into dxrt::fatal.
#pragma once

#include "common/Check.h"

namespace dxrt::cuda {

[[noreturn]] void fail_cuda(int status, const char *call, const char *file, int line);
[[noreturn]] void fail_driver(int status, const char *call, const char *file, int line);
[[noreturn]] void fail_cublas(int status, const char *call, const char *file, int line);
[[noreturn]] void fail_cudnn(int status, const char *call, const char *file, int line);
[[noreturn]] void fail_nccl(int status, const char *call, const char *file, int line);

} // namespace dxrt::cuda

// cudaError_t: cudaSuccess is 0.
#define DXRT_CUDA_CHECK(call)                                                                                     \
  do {                                                                                                            \
    int dxrt_status_ = static_cast<int>(call);                                                                    \
    if (dxrt_status_ != 0) ::dxrt::cuda::fail_cuda(dxrt_status_, #call, __FILE__, __LINE__);                      \
  } while (0)

// CUresult of a driver entry point (Driver.h): CUDA_SUCCESS is 0.
#define DXRT_DRIVER_CHECK(call)                                                                                   \
  do {                                                                                                            \
    int dxrt_status_ = static_cast<int>(call);                                                                    \
    if (dxrt_status_ != 0) ::dxrt::cuda::fail_driver(dxrt_status_, #call, __FILE__, __LINE__);                    \
  } while (0)

// cublasStatus_t: CUBLAS_STATUS_SUCCESS is 0.
#define DXRT_CUBLAS_CHECK(call)                                                                                   \
  do {                                                                                                            \
    int dxrt_status_ = static_cast<int>(call);                                                                    \
    if (dxrt_status_ != 0) ::dxrt::cuda::fail_cublas(dxrt_status_, #call, __FILE__, __LINE__);                    \
  } while (0)

// cudnnStatus_t: CUDNN_STATUS_SUCCESS is 0.
#define DXRT_CUDNN_CHECK(call)                                                                                    \
  do {                                                                                                            \
    int dxrt_status_ = static_cast<int>(call);                                                                    \
    if (dxrt_status_ != 0) ::dxrt::cuda::fail_cudnn(dxrt_status_, #call, __FILE__, __LINE__);                     \
  } while (0)

// ncclResult_t: ncclSuccess is 0. NcclComm adds the rank to its messages.
#define DXRT_NCCL_CHECK(call)                                                                                     \
  do {                                                                                                            \
    int dxrt_status_ = static_cast<int>(call);                                                                    \
    if (dxrt_status_ != 0) ::dxrt::cuda::fail_nccl(dxrt_status_, #call, __FILE__, __LINE__);                      \
  } while (0)
