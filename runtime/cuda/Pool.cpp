// The pooling kernels on the device: the descriptor and geometry checks of
// runtime/kernels/Pool.cpp, then DeviceKernels.cu's kernels. Not cuDNN's
// pooling: it takes symmetric padding only, and its max-pooling gradient does
// not promise the CPU kernel's "first maximal element" rule.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

// The CPU kernel's checks and geometry, plus the kind, as the device kernels take it.
PoolShape pool_shape(const char *k, const Tensor4 &x, const Tensor4 &y, int64_t kind, int64_t kh, int64_t kw,
                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  const PoolGeometry g = pool_geometry(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  return {g.planes, g.h, g.w, g.ho, g.wo, g.kh, g.kw, g.sh, g.sw, g.pt, g.pl, kind};
}

} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_pool_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t kind, int64_t kh,
                                                    int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                    int64_t pl, int64_t pr) {
  const char *k = "dxrt_cuda_pool_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  PoolShape s = pool_shape(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  guard(k, [&] { DXRT_CUDA_CHECK(pool_forward(s, x.p, y.p, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_pool_grad(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dxd, int64_t kind,
                                                 int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                                                 int64_t pb, int64_t pl, int64_t pr) {
  const char *k = "dxrt_cuda_pool_grad";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dx = view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(dx.n == x.n && dx.c == x.c && dx.h == x.h && dx.w == x.w, k,
                    str("dx is [", dx.n, ", ", dx.c, ", ", dx.h, ", ", dx.w, "] but x is [", x.n, ", ", x.c, ", ",
                        x.h, ", ", x.w, "]"));
  PoolShape s = pool_shape(k, x, dy, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  guard(k, [&] { DXRT_CUDA_CHECK(pool_grad(s, x.p, dy.p, dx.p, context().stream)); });
}
