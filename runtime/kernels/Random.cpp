// Counter-based random numbers for generated code (dropout, randn_like) and
// for the runtime (initialisation, shuffles, synthetic data).
#include "common/Check.h"
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Philox.h"
#include "kernels/Shapes.h"

namespace dxrt {

void fill_uniform(const RngKey &key, uint64_t first, int64_t n, float *out) {
  for (int64_t j = 0; j < n;) {
    uint64_t i = first + uint64_t(j);
    PhiloxBlock b = key.block(i / 4);
    for (uint64_t lane = i % 4; lane < 4 && j < n; ++lane, ++j) out[j] = to_uniform(b[lane]);
  }
}

void fill_normal(const RngKey &key, uint64_t first, int64_t n, float *out) {
  for (int64_t j = 0; j < n;) {
    uint64_t i = first + uint64_t(j);
    PhiloxBlock b = key.block(i / 4);
    double z[4];
    box_muller(b[0], b[1], z[0], z[1]);
    box_muller(b[2], b[3], z[2], z[3]);
    for (uint64_t lane = i % 4; lane < 4 && j < n; ++lane, ++j) out[j] = float(z[lane]);
  }
}

uint64_t random_u64(const RngKey &key, uint64_t i) {
  PhiloxBlock b = key.block(i / 2);
  int lane = int(i % 2) * 2;
  return (uint64_t(b[lane]) << 32) | b[lane + 1];
}

} // namespace dxrt

using namespace dxrt;

// The key of an ABI call and the output it fills.
static RngKey abi_key(const char *kernel, const dxrt_memref1 *out, float **p, int64_t *n, int64_t seed, int64_t step,
                      int64_t rank, int64_t stream) {
  Vec v = view(out, kernel, "out");
  *p = v.p;
  *n = v.n;
  return random_key(kernel, v, seed, step, rank, stream);
}

extern "C" void _mlir_ciface_dxrt_random_uniform(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                                 int64_t stream) {
  float *p;
  int64_t n;
  RngKey key = abi_key("dxrt_random_uniform", out, &p, &n, seed, step, rank, stream);
  fill_uniform(key, 0, n, p);
}

extern "C" void _mlir_ciface_dxrt_random_normal(dxrt_memref1 *out, int64_t seed, int64_t step, int64_t rank,
                                                int64_t stream) {
  float *p;
  int64_t n;
  RngKey key = abi_key("dxrt_random_normal", out, &p, &n, seed, step, rank, stream);
  fill_normal(key, 0, n, p);
}
