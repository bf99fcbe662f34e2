// See DeviceKernels.h: bilinear and trilinear upsampling and their
// gradients, one thread per output element (forward) or per input element
// (gradient), grid-stride loops (Grid.h). Every float operation is an
// explicit _rn intrinsic, so that nvcc fuses none of them into an FMA: the
// results are the CPU kernels' bit for bit (runtime/kernels/Upsample.cpp,
// built for x86-64 without FMA).
#include "DeviceKernels.h"
#include "Grid.h"

#include <cuda_runtime.h>

namespace dxrt::cuda {

namespace {

// runtime/kernels/Upsample.cpp's tap: where output index o samples an input
// axis of `in` elements at scale s (PyTorch's area_pixel_compute_source_index,
// align_corners=False): the two neighbours and the weight of the second.
struct Tap {
  int64_t i0, i1;
  float w1;
};

__device__ Tap tap(int64_t o, int64_t in, int64_t s) {
  float a = __fsub_rn(__fdiv_rn(__fadd_rn(float(o), 0.5f), float(s)), 0.5f);
  float src = a < 0.0f ? 0.0f : a; // std::max(a, 0.0f)
  int64_t i0 = min(int64_t(src), in - 1);
  int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
  return {i0, i1, __fsub_rn(src, float(i0))};
}

// (1 - w) * a + w * b, as the CPU kernel rounds it.
__device__ float lerp(float w, float a, float b) {
  return __fadd_rn(__fmul_rn(__fsub_rn(1.0f, w), a), __fmul_rn(w, b));
}

__global__ void upsample_forward_kernel(UpsampleShape s, const float *x, float *y) {
  const int64_t ho = s.h * s.sh, wo = s.w * s.sw, n = s.planes * ho * wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % wo, oh = (i / wo) % ho, p = i / (wo * ho);
    const float *in = x + p * s.h * s.w;
    const Tap r = tap(oh, s.h, s.sh), c = tap(ow, s.w, s.sw);
    const float *row0 = in + r.i0 * s.w, *row1 = in + r.i1 * s.w;
    const float top = lerp(c.w1, row0[c.i0], row0[c.i1]), bottom = lerp(c.w1, row1[c.i0], row1[c.i1]);
    y[i] = lerp(r.w1, top, bottom);
  }
}

// The first output index whose taps can reach input index i: tap() is
// monotone in o, and output (i - 2) * s samples at most i - 2 + 1/(2s) - 1/2
// <= i - 2, below both taps of anything that reaches i.
__device__ int64_t first_output(int64_t i, int64_t s) { return i >= 2 ? (i - 2) * s : 0; }

__global__ void upsample_grad_kernel(UpsampleShape s, const float *dy, float *dx) {
  const int64_t ho = s.h * s.sh, wo = s.w * s.sw, n = s.planes * s.h * s.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t iw = i % s.w, ih = (i / s.w) % s.h, p = i / (s.w * s.h);
    const float *g = dy + p * ho * wo;
    // The CPU kernel adds, for each output (oh, ow) in row-major order,
    // (1-cw)*top and cw*top to row i0's columns i0, i1, then (1-cw)*bottom
    // and cw*bottom to row i1's, with top = (1-rw)*v, bottom = rw*v: the same
    // additions, in the same order, restricted to element (ih, iw).
    float acc = 0.0f;
    for (int64_t oh = first_output(ih, s.sh); oh < ho; ++oh) {
      const Tap r = tap(oh, s.h, s.sh);
      if (r.i0 > ih) break; // and every later row too
      const bool row0 = r.i0 == ih, row1 = r.i1 == ih;
      if (!row0 && !row1) continue;
      for (int64_t ow = first_output(iw, s.sw); ow < wo; ++ow) {
        const Tap c = tap(ow, s.w, s.sw);
        if (c.i0 > iw) break;
        const bool col0 = c.i0 == iw, col1 = c.i1 == iw;
        if (!col0 && !col1) continue;
        const float v = g[oh * wo + ow];
        const float cw0 = __fsub_rn(1.0f, c.w1);
        if (row0) {
          const float top = __fmul_rn(__fsub_rn(1.0f, r.w1), v);
          if (col0) acc = __fadd_rn(acc, __fmul_rn(cw0, top));
          if (col1) acc = __fadd_rn(acc, __fmul_rn(c.w1, top));
        }
        if (row1) {
          const float bottom = __fmul_rn(r.w1, v);
          if (col0) acc = __fadd_rn(acc, __fmul_rn(cw0, bottom));
          if (col1) acc = __fadd_rn(acc, __fmul_rn(c.w1, bottom));
        }
      }
    }
    dx[i] = acc;
  }
}

__global__ void upsample3d_forward_kernel(Upsample3dShape s, const float *x, float *y) {
  const int64_t od_n = s.d * s.sd, ho = s.h * s.sh, wo = s.w * s.sw, n = s.planes * od_n * ho * wo;
  const int64_t plane = s.h * s.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % wo, oh = (i / wo) % ho, od = (i / (wo * ho)) % od_n, p = i / (wo * ho * od_n);
    const float *in = x + p * s.d * plane;
    const Tap t = tap(od, s.d, s.sd), r = tap(oh, s.h, s.sh), c = tap(ow, s.w, s.sw);
    const float *plane0 = in + t.i0 * plane, *plane1 = in + t.i1 * plane;
    const float *row00 = plane0 + r.i0 * s.w, *row01 = plane0 + r.i1 * s.w;
    const float *row10 = plane1 + r.i0 * s.w, *row11 = plane1 + r.i1 * s.w;
    // The CPU kernel's order: each plane's two rows along the columns, the
    // plane along its rows, then the two planes along the depth.
    const float top0 = lerp(c.w1, row00[c.i0], row00[c.i1]), bottom0 = lerp(c.w1, row01[c.i0], row01[c.i1]);
    const float top1 = lerp(c.w1, row10[c.i0], row10[c.i1]), bottom1 = lerp(c.w1, row11[c.i0], row11[c.i1]);
    y[i] = lerp(t.w1, lerp(r.w1, top0, bottom0), lerp(r.w1, top1, bottom1));
  }
}

// The CPU trilinear gradient's four additions for one output and one of its
// depth planes (its share `v` of the output's gradient), restricted to the
// element at (row0 or row1, col0 or col1), in the CPU's order: row i0's
// columns i0, i1, then row i1's.
__device__ float add_plane_taps(float acc, float v, const Tap &r, const Tap &c, bool row0, bool row1, bool col0,
                                bool col1) {
  const float cw0 = __fsub_rn(1.0f, c.w1);
  if (row0) {
    const float top = __fmul_rn(__fsub_rn(1.0f, r.w1), v);
    if (col0) acc = __fadd_rn(acc, __fmul_rn(cw0, top));
    if (col1) acc = __fadd_rn(acc, __fmul_rn(c.w1, top));
  }
  if (row1) {
    const float bottom = __fmul_rn(r.w1, v);
    if (col0) acc = __fadd_rn(acc, __fmul_rn(cw0, bottom));
    if (col1) acc = __fadd_rn(acc, __fmul_rn(c.w1, bottom));
  }
  return acc;
}

__global__ void upsample3d_grad_kernel(Upsample3dShape s, const float *dy, float *dx) {
  const int64_t od_n = s.d * s.sd, ho = s.h * s.sh, wo = s.w * s.sw, n = s.planes * s.d * s.h * s.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t iw = i % s.w, ih = (i / s.w) % s.h, id = (i / (s.w * s.h)) % s.d, p = i / (s.w * s.h * s.d);
    const float *g = dy + p * od_n * ho * wo;
    // The CPU kernel, for each output (od, oh, ow) in row-major order, shares
    // v between planes t.i0 and t.i1 ((1-tw)*v, then tw*v) and adds each
    // share to its plane's four taps: the same additions, in the same order,
    // restricted to element (id, ih, iw).
    float acc = 0.0f;
    for (int64_t od = first_output(id, s.sd); od < od_n; ++od) {
      const Tap t = tap(od, s.d, s.sd);
      if (t.i0 > id) break; // and every later plane too
      const bool plane0 = t.i0 == id, plane1 = t.i1 == id;
      if (!plane0 && !plane1) continue;
      for (int64_t oh = first_output(ih, s.sh); oh < ho; ++oh) {
        const Tap r = tap(oh, s.h, s.sh);
        if (r.i0 > ih) break;
        const bool row0 = r.i0 == ih, row1 = r.i1 == ih;
        if (!row0 && !row1) continue;
        for (int64_t ow = first_output(iw, s.sw); ow < wo; ++ow) {
          const Tap c = tap(ow, s.w, s.sw);
          if (c.i0 > iw) break;
          const bool col0 = c.i0 == iw, col1 = c.i1 == iw;
          if (!col0 && !col1) continue;
          const float v = g[(od * ho + oh) * wo + ow];
          if (plane0) acc = add_plane_taps(acc, __fmul_rn(__fsub_rn(1.0f, t.w1), v), r, c, row0, row1, col0, col1);
          if (plane1) acc = add_plane_taps(acc, __fmul_rn(t.w1, v), r, c, row0, row1, col0, col1);
        }
      }
    }
    dx[i] = acc;
  }
}

} // namespace

int upsample_bilinear_forward(const UpsampleShape &s, const float *x, float *y, CUstream_st *stream) {
  int64_t n = s.planes * s.h * s.sh * s.w * s.sw;
  if (n == 0) return 0;
  upsample_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, x, y);
  return int(cudaGetLastError());
}

int upsample_bilinear_grad(const UpsampleShape &s, const float *dy, float *dx, CUstream_st *stream) {
  int64_t n = s.planes * s.h * s.w;
  if (n == 0) return 0;
  upsample_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, dy, dx);
  return int(cudaGetLastError());
}

int upsample_trilinear_forward(const Upsample3dShape &s, const float *x, float *y, CUstream_st *stream) {
  int64_t n = s.planes * s.d * s.sd * s.h * s.sh * s.w * s.sw;
  if (n == 0) return 0;
  upsample3d_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, x, y);
  return int(cudaGetLastError());
}

int upsample_trilinear_grad(const Upsample3dShape &s, const float *dy, float *dx, CUstream_st *stream) {
  int64_t n = s.planes * s.d * s.h * s.w;
  if (n == 0) return 0;
  upsample3d_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, dy, dx);
  return int(cudaGetLastError());
}

} // namespace dxrt::cuda
