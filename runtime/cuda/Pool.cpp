// The pooling kernels on the device: the descriptor and geometry checks of
// runtime/kernels/Pool.cpp, then DeviceKernels.cu's kernels. Not cuDNN's
// pooling: it takes symmetric padding only, and its max-pooling gradient does
// not promise the CPU kernel's "first maximal element" rule.
//
// 3-D pooling (NCDHW) takes pool3d_geometry's checks (kernels/Shapes.h); its
// max gradient keeps each window's winner in the scratch (Context.h) between
// its two passes.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

#include <climits>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

// The CPU kernel's checks and geometry, plus the kind, as the device kernels take it.
PoolShape pool_shape(const char *k, const Tensor4 &x, const Tensor4 &y, int64_t kind, int64_t kh, int64_t kw,
                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  const PoolGeometry g = pool_geometry(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  return {g.planes, g.h, g.w, g.ho, g.wo, g.kh, g.kw, g.sh, g.sw, g.pt, g.pl, kind};
}

// The same for 3-D: pool3d_geometry's checks, and a window the device's
// 32-bit winner indices can number.
Pool3dShape pool3d_shape(const char *k, const Tensor5 &x, const Tensor5 &y, int64_t kind, int64_t kd, int64_t kh,
                         int64_t kw, int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                         int64_t pb, int64_t pl, int64_t pr) {
  const Pool3dGeometry g = pool3d_geometry(k, x, y, kind, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr);
  DXRT_KERNEL_CHECK(kd <= INT_MAX / kh / kw, k, str("window ", kd, "x", kh, "x", kw, " has 2^31 elements or more"));
  return {g.planes, g.d, g.h, g.w, g.od, g.ho, g.wo, g.kd, g.kh, g.kw, g.sd, g.sh, g.sw, g.pf, g.pt, g.pl, kind};
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

extern "C" void _mlir_ciface_dxrt_cuda_pool3d_forward(dxrt_memref5 *xd, dxrt_memref5 *yd, int64_t kind, int64_t kd,
                                                      int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw,
                                                      int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                                                      int64_t pr) {
  const char *k = "dxrt_cuda_pool3d_forward";
  Tensor5 x = view(xd, k, "x"), y = view(yd, k, "y");
  Pool3dShape s = pool3d_shape(k, x, y, kind, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr);
  guard(k, [&] { DXRT_CUDA_CHECK(pool3d_forward(s, x.p, y.p, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_pool3d_grad(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *dxd,
                                                   int64_t kind, int64_t kd, int64_t kh, int64_t kw, int64_t sd,
                                                   int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                                                   int64_t pb, int64_t pl, int64_t pr) {
  const char *k = "dxrt_cuda_pool3d_grad";
  Tensor5 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dx = view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(dx.n == x.n && dx.c == x.c && dx.d == x.d && dx.h == x.h && dx.w == x.w, k,
                    str("dx is [", dx.n, ", ", dx.c, ", ", dx.d, ", ", dx.h, ", ", dx.w, "] but x is [", x.n, ", ",
                        x.c, ", ", x.d, ", ", x.h, ", ", x.w, "]"));
  Pool3dShape s = pool3d_shape(k, x, dy, kind, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr);
  guard(k, [&] {
    // The max gradient's winners, one int per window, in the scratch.
    int64_t windows = s.kind == kMax && dx.numel() > 0 ? dy.numel() : 0;
    int32_t *argmax = windows ? static_cast<int32_t *>(scratch(size_t(windows) * sizeof(int32_t))) : nullptr;
    DXRT_CUDA_CHECK(pool3d_grad(s, x.p, dy.p, dx.p, argmax, context().stream));
  });
}
