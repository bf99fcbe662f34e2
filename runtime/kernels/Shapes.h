// The shape checks of the dense, pooling (2-D and 3-D), upsampling and
// random library kernels, shared by the CPU kernels (Dense.cpp, Pool.cpp,
// Pool3d.cpp, Upsample.cpp, Random.cpp) and their device twins
// (cuda/Gemm.cpp, cuda/Pool.cpp, cuda/Upsample.cpp, cuda/Random.cpp), so
// that both refuse the same descriptors with the same messages.
#pragma once

#include "kernels/Descriptor.h"
#include "kernels/Im2col.h"
#include "kernels/Philox.h"

#include <cstdint>

namespace dxrt {

// Dense: x [M, K], w [N, K] (PyTorch's layout), y [M, N].
inline void check_dense_forward(const char *k, const Mat &x, const Mat &w, const Mat &y) {
  DXRT_KERNEL_CHECK(x.cols == w.cols, k, str("x is [", x.rows, ", ", x.cols, "] but w is [", w.rows, ", ", w.cols, "]"));
  DXRT_KERNEL_CHECK(y.rows == x.rows && y.cols == w.rows, k,
                    str("y is [", y.rows, ", ", y.cols, "], expected [", x.rows, ", ", w.rows, "]"));
}
inline void check_dense_grad_input(const char *k, const Mat &dy, const Mat &w, const Mat &dx) {
  DXRT_KERNEL_CHECK(dy.cols == w.rows, k, str("dy is [", dy.rows, ", ", dy.cols, "] but w is [", w.rows, ", ", w.cols, "]"));
  DXRT_KERNEL_CHECK(dx.rows == dy.rows && dx.cols == w.cols, k,
                    str("dx is [", dx.rows, ", ", dx.cols, "], expected [", dy.rows, ", ", w.cols, "]"));
}
inline void check_dense_grad_weight(const char *k, const Mat &dy, const Mat &x, const Mat &dw) {
  DXRT_KERNEL_CHECK(dy.rows == x.rows, k, str("dy has ", dy.rows, " rows but x has ", x.rows));
  DXRT_KERNEL_CHECK(dw.rows == dy.cols && dw.cols == x.cols, k,
                    str("dw is [", dw.rows, ", ", dw.cols, "], expected [", dy.cols, ", ", x.cols, "]"));
}

// Pooling of N*C planes of [h, w] into [ho, wo] in floor mode.
enum PoolKind : int64_t { kMax = 0, kAvg = 1 };
struct PoolGeometry {
  int64_t planes, h, w, ho, wo, kh, kw, sh, sw, pt, pl;
};
inline PoolGeometry pool_geometry(const char *k, const Tensor4 &x, const Tensor4 &y, int64_t kind, int64_t kh,
                                  int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  DXRT_KERNEL_CHECK(kind == kMax || kind == kAvg, k, str("kind = ", kind, " is neither 0 (max) nor 1 (average)"));
  DXRT_KERNEL_CHECK(kh >= 1 && kw >= 1, k, str("window ", kh, "x", kw, " must be positive"));
  DXRT_KERNEL_CHECK(sh >= 1 && sw >= 1, k, str("stride (", sh, ", ", sw, ") must be positive"));
  DXRT_KERNEL_CHECK(pt >= 0 && pb >= 0 && pl >= 0 && pr >= 0, k,
                    str("padding (", pt, ", ", pb, ", ", pl, ", ", pr, ") must not be negative"));
  int64_t ho = conv_out_size(x.h, pt, pb, kh, sh, 1), wo = conv_out_size(x.w, pl, pr, kw, sw, 1);
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == x.c && y.h == ho && y.w == wo, k,
                    str("output is [", y.n, ", ", y.c, ", ", y.h, ", ", y.w, "], expected [", x.n, ", ", x.c, ", ",
                        ho, ", ", wo, "] for input [", x.n, ", ", x.c, ", ", x.h, ", ", x.w, "]"));
  return {x.n * x.c, x.h, x.w, ho, wo, kh, kw, sh, sw, pt, pl};
}

// 3-D pooling of N*C volumes of [d, h, w] into [od, ho, wo] in floor mode.
struct Pool3dGeometry {
  int64_t planes, d, h, w, od, ho, wo, kd, kh, kw, sd, sh, sw, pf, pt, pl;
};
inline Pool3dGeometry pool3d_geometry(const char *k, const Tensor5 &x, const Tensor5 &y, int64_t kind, int64_t kd,
                                      int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw, int64_t pf,
                                      int64_t pk, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  DXRT_KERNEL_CHECK(kind == kMax || kind == kAvg, k, str("kind = ", kind, " is neither 0 (max) nor 1 (average)"));
  DXRT_KERNEL_CHECK(kd >= 1 && kh >= 1 && kw >= 1, k, str("window ", kd, "x", kh, "x", kw, " must be positive"));
  DXRT_KERNEL_CHECK(sd >= 1 && sh >= 1 && sw >= 1, k, str("stride (", sd, ", ", sh, ", ", sw, ") must be positive"));
  DXRT_KERNEL_CHECK(pf >= 0 && pk >= 0 && pt >= 0 && pb >= 0 && pl >= 0 && pr >= 0, k,
                    str("padding (", pf, ", ", pk, ", ", pt, ", ", pb, ", ", pl, ", ", pr, ") must not be negative"));
  int64_t od = conv_out_size(x.d, pf, pk, kd, sd, 1), ho = conv_out_size(x.h, pt, pb, kh, sh, 1),
          wo = conv_out_size(x.w, pl, pr, kw, sw, 1);
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == x.c && y.d == od && y.h == ho && y.w == wo, k,
                    str("output is [", y.n, ", ", y.c, ", ", y.d, ", ", y.h, ", ", y.w, "], expected [", x.n, ", ",
                        x.c, ", ", od, ", ", ho, ", ", wo, "] for input [", x.n, ", ", x.c, ", ", x.d, ", ", x.h,
                        ", ", x.w, "]"));
  return {x.n * x.c, x.d, x.h, x.w, od, ho, wo, kd, kh, kw, sd, sh, sw, pf, pt, pl};
}

// Upsampling of x [N, C, H, W] into y [N, C, H*sh, W*sw] at integer scales.
inline void check_upsample(const char *k, const Tensor4 &x, const Tensor4 &y, int64_t sh, int64_t sw) {
  DXRT_KERNEL_CHECK(sh >= 1 && sw >= 1, k, str("scale [", sh, ", ", sw, "] must be >= 1"));
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == x.c && y.h == x.h * sh && y.w == x.w * sw, k,
                    str("the output is [", y.n, ", ", y.c, ", ", y.h, ", ", y.w, "] for an input [", x.n, ", ", x.c,
                        ", ", x.h, ", ", x.w, "] at scale [", sh, ", ", sw, "]"));
}
// The same for x [N, C, D, H, W] into y [N, C, D*sd, H*sh, W*sw].
inline void check_upsample(const char *k, const Tensor5 &x, const Tensor5 &y, int64_t sd, int64_t sh, int64_t sw) {
  DXRT_KERNEL_CHECK(sd >= 1 && sh >= 1 && sw >= 1, k, str("scale [", sd, ", ", sh, ", ", sw, "] must be >= 1"));
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == x.c && y.d == x.d * sd && y.h == x.h * sh && y.w == x.w * sw, k,
                    str("the output is [", y.n, ", ", y.c, ", ", y.d, ", ", y.h, ", ", y.w, "] for an input [", x.n,
                        ", ", x.c, ", ", x.d, ", ", x.h, ", ", x.w, "] at scale [", sd, ", ", sh, ", ", sw, "]"));
}

// The key of a random fill's ABI call (seed, step, rank, stream), once out
// fits one stream's 32-bit block counter.
inline RngKey random_key(const char *k, const Vec &out, int64_t seed, int64_t step, int64_t rank, int64_t stream) {
  DXRT_KERNEL_CHECK(out.n / 4 < (int64_t(1) << 32), k, str("out has ", out.n, " elements, more than 2^34 per stream"));
  return RngKey{uint64_t(seed), uint32_t(step), uint32_t(rank), uint32_t(stream)};
}

} // namespace dxrt
