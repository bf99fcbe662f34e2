// libdxrt_cuda's own CUDA kernels, the files nvcc compiles: 2-D and 3-D
// pooling and the zero-padding copies that give cuDNN's symmetric padding
// the CPU kernels' asymmetric one (DeviceKernels.cu), bilinear and
// trilinear upsampling (UpsampleKernels.cu), Philox random fills
// (RandomKernels.cu), the conversions around bf16 matrix products
// (Bf16Kernels.cu). Plain launchers: they queue the kernel on `stream` and
// return cudaGetLastError() as an int (0 = success), so that this header
// needs no CUDA header and the callers check it with DXRT_CUDA_CHECK.
#pragma once

#include "kernels/Philox.h"

#include <cstdint>

struct CUstream_st;

namespace dxrt::cuda {

// Pooling over `planes` = N*C planes of [h, w] into [ho, wo]; kind 0 = max,
// 1 = average; the semantics of runtime/kernels/Pool.cpp, bit for bit (the
// same window order, the same first-maximum and NaN rules, the same order
// of summation).
struct PoolShape {
  int64_t planes, h, w, ho, wo, kh, kw, sh, sw, pt, pl, kind;
};
int pool_forward(const PoolShape &s, const float *x, float *y, CUstream_st *stream);
// dx (overwritten) from dy. Each element of dx sums the gradients of the
// windows it wins (or, for average, lies in) in row-major window order,
// as the CPU kernel does: deterministic, no atomics.
int pool_grad(const PoolShape &s, const float *x, const float *dy, float *dx, CUstream_st *stream);

// 3-D pooling over `planes` = N*C volumes of [d, h, w] into [do_, ho, wo];
// kind 0 = max, 1 = average (padding counts as zeros, divisor kd*kh*kw,
// multiplied as 1/(kd*kh*kw) in float), windows read in (d, h, w) order:
// the first maximal element wins, a NaN wins and the first NaN stays; a
// window entirely in the padding gives -inf (max) or 0 (average).
struct Pool3dShape {
  int64_t planes, d, h, w, do_, ho, wo, kd, kh, kw, sd, sh, sw, pf, pt, pl, kind;
};
int pool3d_forward(const Pool3dShape &s, const float *x, float *y, CUstream_st *stream);
// dx (overwritten) from dy. For max, a first pass writes each window's
// winner (its index within the window, -1 for none) to `argmax`
// (planes*do_*ho*wo ints of device scratch); then each element of dx sums,
// in (od, oh, ow) order, the gradients of the windows it wins (or, for
// average, lies in): deterministic, no atomics. `argmax` is unused for
// average and may be null.
int pool3d_grad(const Pool3dShape &s, const float *x, const float *dy, float *dx, int32_t *argmax,
                CUstream_st *stream);

// dst[p, i, j] = src[p, i - top, j - left] where that lies inside the
// [sh, sw] source plane, else 0, for dst planes of [dh, dw]. A positive
// top/left pads, a negative one crops.
int shift_copy(const float *src, int64_t planes, int64_t sh, int64_t sw, float *dst, int64_t dh, int64_t dw,
               int64_t top, int64_t left, CUstream_st *stream);
// The same for volumes: dst[p, a, i, j] = src[p, a - front, i - top, j - left]
// where that lies inside the [sd, sh, sw] source volume, else 0, for dst
// volumes of [dd, dh, dw].
struct ShiftShape3d {
  int64_t planes, sd, sh, sw, dd, dh, dw, front, top, left;
};
int shift_copy3d(const ShiftShape3d &s, const float *src, float *dst, CUstream_st *stream);

// Bilinear upsampling (align_corners=False) of `planes` = N*C planes of
// [h, w] into [h*sh, w*sw]; the semantics of runtime/kernels/Upsample.cpp,
// bit for bit (the same source indices and weights, the same float
// operations in the same order, none fused).
struct UpsampleShape {
  int64_t planes, h, w, sh, sw;
};
int upsample_bilinear_forward(const UpsampleShape &s, const float *x, float *y, CUstream_st *stream);
// dx [planes, h, w] (overwritten) from dy [planes, h*sh, w*sw]. Each element
// of dx gathers its contributions in the order the CPU kernel scatters them
// (output row, then column, then its four taps): deterministic, no atomics.
int upsample_bilinear_grad(const UpsampleShape &s, const float *dy, float *dx, CUstream_st *stream);

// Trilinear upsampling (align_corners=False) of `planes` = N*C volumes of
// [d, h, w] into [d*sd, h*sh, w*sw], bit for bit the CPU kernel's results as
// above; the gradient gathers in the order the CPU scatters (output plane,
// row, column, then its eight taps in (plane, row, column) order).
struct Upsample3dShape {
  int64_t planes, d, h, w, sd, sh, sw;
};
int upsample_trilinear_forward(const Upsample3dShape &s, const float *x, float *y, CUstream_st *stream);
int upsample_trilinear_grad(const Upsample3dShape &s, const float *dy, float *dx, CUstream_st *stream);

// bf16 precision (kernels/Precision.h): dst[i] = src[i] rounded to bf16 as
// kernels/Bf16Round.h rounds (the CPU's rounding, bit for bit), and back
// (exact). cuBLAS and cuDNN read and write the bf16 copies.
int to_bf16(const float *src, uint16_t *dst, int64_t n, CUstream_st *stream);
int from_bf16(const uint16_t *src, float *dst, int64_t n, CUstream_st *stream);
// dst[i] = src[i] rounded to bf16, as a float: the operands of an fp32
// convolution that computes what a bf16 one would (Conv.cpp's fallback).
int round_to_bf16(const float *src, float *dst, int64_t n, CUstream_st *stream);

// Elements [0, n) of the stream `key` into out: uniforms in [0, 1), or
// standard normals, as runtime/kernels/Random.cpp's fill_uniform and
// fill_normal compute them (Philox.h; one thread per block of four).
int random_uniform(const RngKey &key, float *out, int64_t n, CUstream_st *stream);
int random_normal(const RngKey &key, float *out, int64_t n, CUstream_st *stream);

} // namespace dxrt::cuda
