#include "cuda/Context.h"
#include "cuda/Check.h"
#include "cuda/Device.h"
#include "cuda/Environment.h"
#include "cuda/Kernel.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <mutex>

namespace dxrt::cuda {

namespace {

// cuBLAS's own workspace, set once so that it never allocates inside a step
// (NVIDIA's recommendation for Hopper is 32 MiB).
constexpr size_t kCublasWorkspace = size_t(32) << 20;

Context make() {
  current_device();
  Context c;
  // Non-blocking: the legacy default stream must not serialise against it.
  DXRT_CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  DXRT_CUBLAS_CHECK(cublasCreate(&c.cublas));
  DXRT_CUBLAS_CHECK(cublasSetStream(c.cublas, c.stream));
  void *ws = nullptr;
  DXRT_CUDA_CHECK(cudaMalloc(&ws, kCublasWorkspace));
  DXRT_CUBLAS_CHECK(cublasSetWorkspace(c.cublas, ws, kCublasWorkspace));
  DXRT_CUBLAS_CHECK(cublasSetMathMode(c.cublas, allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  DXRT_CUDNN_CHECK(cudnnCreate(&c.cudnn));
  DXRT_CUDNN_CHECK(cudnnSetStream(c.cudnn, c.stream));
  return c;
}

std::mutex g_scratch_mutex;
void *g_scratch = nullptr;
size_t g_scratch_bytes = 0;
int64_t g_scratch_grows = 0;

} // namespace

Context &context() {
  // The handles live until the process ends: destroying them from a static
  // destructor can run after the driver has shut down.
  static Context *c = new Context(make());
  return *c;
}

void *scratch(size_t bytes) {
  std::lock_guard lock(g_scratch_mutex);
  if (bytes <= g_scratch_bytes) return g_scratch;
  Context &c = context();
  DXRT_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  if (g_scratch) DXRT_CUDA_CHECK(cudaFree(g_scratch));
  g_scratch = nullptr;
  g_scratch_bytes = 0;
  // Half as much again, so that a few growing shapes do not each reallocate.
  size_t want = (bytes + bytes / 2 + 255) & ~size_t(255);
  DXRT_CUDA_CHECK(cudaMalloc(&g_scratch, want));
  g_scratch_bytes = want;
  ++g_scratch_grows;
  return g_scratch;
}

int64_t scratch_grows() { return g_scratch_grows; }

bool allow_tf32() { return environment().tf32; }

} // namespace dxrt::cuda

extern "C" void *dxrt_cuda_stream(void) {
  void *s = nullptr;
  dxrt::cuda::guard("dxrt_cuda_stream", [&] { s = dxrt::cuda::context().stream; });
  return s;
}

extern "C" void dxrt_cuda_synchronize(void) {
  dxrt::cuda::guard("dxrt_cuda_synchronize",
                    [] { DXRT_CUDA_CHECK(cudaStreamSynchronize(dxrt::cuda::context().stream)); });
}

extern "C" int64_t dxrt_cuda_scratch_grows(void) { return dxrt::cuda::scratch_grows(); }
