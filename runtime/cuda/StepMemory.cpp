// The two host-side helpers that code compiled with --target=cuda calls
// (compiler/lowering/PrepareGpu.cpp, CudaKernelNames.cpp):
//   dxrt_cuda_workspace: the step's device workspace. The compiler's memory
//     plan places every activation, gradient and temporary of a step at a
//     fixed offset in it, as dxrt_workspace does on the CPU; it grows only
//     when a step needs more than any step before, so steps allocate nothing
//     after the first. Distinct from the kernels' scratch (Context.h), which
//     cuDNN and cuBLAS use *during* a step.
//   dxrt_cuda_read_f32: the step's loss, a device scalar, copied to the host
//     once the stream has run the step (the one synchronisation of a step).
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/Kernel.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Descriptor.h"

#include <cuda_runtime_api.h>

#include <mutex>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {
std::mutex g_mutex;
void *g_base = nullptr;
int64_t g_capacity = 0, g_grows = 0;
float *g_host_scalar = nullptr; // pinned, so the copy is a true async copy
} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_workspace(dxrt_memref_i8 *result, int64_t bytes) {
  guard("dxrt_cuda_workspace", [&] {
    DXRT_KERNEL_CHECK(bytes >= 0, "dxrt_cuda_workspace", str("a negative workspace size: ", bytes));
    std::lock_guard lock(g_mutex);
    if (bytes > g_capacity) {
      Context &c = context();
      // Work still queued may use the old buffer.
      DXRT_CUDA_CHECK(cudaStreamSynchronize(c.stream));
      if (g_base) DXRT_CUDA_CHECK(cudaFree(g_base));
      g_base = nullptr;
      g_capacity = 0;
      const int64_t size = (bytes + 255) / 256 * 256; // the plan aligns buffers to 64 bytes; cudaMalloc to 256
      DXRT_CUDA_CHECK(cudaMalloc(&g_base, size_t(size > 0 ? size : 256)));
      g_capacity = size;
      ++g_grows;
    }
    describe_bytes(result, g_base, g_capacity);
  });
}

extern "C" int64_t dxrt_cuda_workspace_grows(void) { return g_grows; }
extern "C" int64_t dxrt_cuda_workspace_bytes(void) { return g_capacity; }

extern "C" float _mlir_ciface_dxrt_cuda_read_f32(dxrt_memref0_f32 *scalar) {
  float value = 0;
  guard("dxrt_cuda_read_f32", [&] {
    DXRT_KERNEL_CHECK(scalar && scalar->aligned, "dxrt_cuda_read_f32", "a null device scalar");
    Context &c = context();
    if (!g_host_scalar) DXRT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void **>(&g_host_scalar), sizeof(float)));
    DXRT_CUDA_CHECK(cudaMemcpyAsync(g_host_scalar, scalar->aligned + scalar->offset, sizeof(float),
                                    cudaMemcpyDeviceToHost, c.stream));
    DXRT_CUDA_CHECK(cudaStreamSynchronize(c.stream));
    value = *g_host_scalar;
  });
  return value;
}
