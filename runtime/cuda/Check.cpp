// The failure paths of the DXRT_*_CHECK macros: one place that turns a status
// into a message and a hint.
#include "cuda/Check.h"
#include "cuda/Driver.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

namespace dxrt::cuda {

namespace {

const char *kLocateHint = "set CUDA_LAUNCH_BLOCKING=1 to make the failing call report itself, or run the "
                          "executable under compute-sanitizer";

std::string cuda_hint(cudaError_t e) {
  switch (e) {
  case cudaErrorMemoryAllocation:
    return "the GPU is out of memory: use a smaller --batch, or check with nvidia-smi that no other process "
           "holds the device";
  case cudaErrorInsufficientDriver:
  case cudaErrorNoDevice:
    return "no usable GPU: check nvidia-smi and CUDA_VISIBLE_DEVICES; the NVIDIA driver must be at least as new "
           "as CUDA 13 needs";
  case cudaErrorUnsupportedPtxVersion:
  case cudaErrorNoKernelImageForDevice:
    return "the embedded GPU code does not match this device or driver: compile with --gpu-arch for this GPU, "
           "or update the driver";
  default:
    return kLocateHint;
  }
}

} // namespace

void fail_cuda(int status, const char *call, const char *file, int line) {
  auto e = static_cast<cudaError_t>(status);
  throw Error(str(call, " failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e)), cuda_hint(e), file, line);
}

void fail_driver(int status, const char *call, const char *file, int line) {
  throw Error(str(call, " failed: ", driver_error_text(status)),
              status == 2 /* CUDA_ERROR_OUT_OF_MEMORY */ ? cuda_hint(cudaErrorMemoryAllocation) : kLocateHint, file,
              line);
}

void fail_cublas(int status, const char *call, const char *file, int line) {
  auto s = static_cast<cublasStatus_t>(status);
  std::string hint = s == CUBLAS_STATUS_ALLOC_FAILED ? cuda_hint(cudaErrorMemoryAllocation)
                     : s == CUBLAS_STATUS_NOT_INITIALIZED
                         ? "cuBLAS could not start: is libcublas.so.13 the one from CUDA 13 (LD_LIBRARY_PATH)?"
                         : kLocateHint;
  throw Error(str(call, " failed: ", cublasGetStatusName(s), ": ", cublasGetStatusString(s)), hint, file, line);
}

void fail_cudnn(int status, const char *call, const char *file, int line) {
  auto s = static_cast<cudnnStatus_t>(status);
  // cuDNN 9 keeps a more precise message about the last failure per thread.
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof detail);
  std::string hint = s == CUDNN_STATUS_ALLOC_FAILED ? cuda_hint(cudaErrorMemoryAllocation)
                     : s == CUDNN_STATUS_NOT_INITIALIZED
                         ? "cuDNN could not start: are libcudnn*.so.9 on LD_LIBRARY_PATH (test/gpu/README.md)?"
                         : kLocateHint;
  throw Error(str(call, " failed: ", cudnnGetErrorString(s), detail[0] ? str(" (", detail, ")") : std::string()),
              hint, file, line);
}

void fail_nccl(int status, const char *call, const char *file, int line) {
  auto r = static_cast<ncclResult_t>(status);
  throw Error(str(call, " failed: ", ncclGetErrorString(r)),
              "set NCCL_DEBUG=WARN (or INFO) to see NCCL's own report of the failure", file, line);
}

} // namespace dxrt::cuda
