// Counter-based random numbers on the device: the descriptor check and key
// of runtime/kernels/Random.cpp (kernels/Shapes.h), then RandomKernels.cu's
// fills. Element i is the CPU's element i: uniforms bit for bit, normals
// equal or (rarely) one float ulp apart (RandomKernels.cu says why).
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

using namespace dxrt;
using namespace dxrt::cuda;

extern "C" void _mlir_ciface_dxrt_cuda_random_uniform(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                                      int64_t stream) {
  const char *k = "dxrt_cuda_random_uniform";
  Vec v = view(out, k, "out");
  RngKey key = random_key(k, v, seed, step, rank, stream);
  guard(k, [&] { DXRT_CUDA_CHECK(random_uniform(key, v.p, v.n, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_random_normal(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                                     int64_t stream) {
  const char *k = "dxrt_cuda_random_normal";
  Vec v = view(out, k, "out");
  RngKey key = random_key(k, v, seed, step, rank, stream);
  guard(k, [&] { DXRT_CUDA_CHECK(random_normal(key, v.p, v.n, context().stream)); });
}
