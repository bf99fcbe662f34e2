// Bilinear and trilinear upsampling on the device: the descriptor and shape checks of
// runtime/kernels/Upsample.cpp (kernels/Shapes.h), then UpsampleKernels.cu's
// kernels, bit for bit the CPU kernel's results; the gradient gathers per
// input element (no atomics, deterministic).
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

using namespace dxrt;
using namespace dxrt::cuda;

extern "C" void _mlir_ciface_dxrt_cuda_upsample_bilinear_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t sh,
                                                                 int64_t sw) {
  const char *k = "dxrt_cuda_upsample_bilinear_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  check_upsample(k, x, y, sh, sw);
  UpsampleShape s{x.n * x.c, x.h, x.w, sh, sw};
  guard(k, [&] { DXRT_CUDA_CHECK(upsample_bilinear_forward(s, x.p, y.p, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_upsample_bilinear_grad(dxrt_memref4 *dyd, dxrt_memref4 *dxd, int64_t sh,
                                                              int64_t sw) {
  const char *k = "dxrt_cuda_upsample_bilinear_grad";
  Tensor4 dy = view(dyd, k, "dy"), dx = view(dxd, k, "dx");
  check_upsample(k, dx, dy, sh, sw);
  UpsampleShape s{dx.n * dx.c, dx.h, dx.w, sh, sw};
  guard(k, [&] { DXRT_CUDA_CHECK(upsample_bilinear_grad(s, dy.p, dx.p, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_upsample_trilinear_forward(dxrt_memref5 *xd, dxrt_memref5 *yd, int64_t sd,
                                                                  int64_t sh, int64_t sw) {
  const char *k = "dxrt_cuda_upsample_trilinear_forward";
  Tensor5 x = view(xd, k, "x"), y = view(yd, k, "y");
  check_upsample(k, x, y, sd, sh, sw);
  Upsample3dShape s{x.n * x.c, x.d, x.h, x.w, sd, sh, sw};
  guard(k, [&] { DXRT_CUDA_CHECK(upsample_trilinear_forward(s, x.p, y.p, context().stream)); });
}

extern "C" void _mlir_ciface_dxrt_cuda_upsample_trilinear_grad(dxrt_memref5 *dyd, dxrt_memref5 *dxd, int64_t sd,
                                                               int64_t sh, int64_t sw) {
  const char *k = "dxrt_cuda_upsample_trilinear_grad";
  Tensor5 dy = view(dyd, k, "dy"), dx = view(dxd, k, "dx");
  check_upsample(k, dx, dy, sd, sh, sw);
  Upsample3dShape s{dx.n * dx.c, dx.d, dx.h, dx.w, sd, sh, sw};
  guard(k, [&] { DXRT_CUDA_CHECK(upsample_trilinear_grad(s, dy.p, dx.p, context().stream)); });
}
