// See DeviceKernels.h: pooling and the padding copy. One thread per output
// element, grid-stride loops (Grid.h).
#include "DeviceKernels.h"
#include "Grid.h"

#include <cuda_runtime.h>

namespace dxrt::cuda {

namespace {

// runtime/kernels/Pool.cpp's argmax_window: the index (in the plane) of the
// first maximal element of the window at (oh, ow), a NaN winning and the
// first NaN staying; -1 when the window lies entirely in the padding.
__device__ int64_t argmax_window(const PoolShape &s, const float *plane, int64_t oh, int64_t ow) {
  int64_t h0 = oh * s.sh - s.pt, w0 = ow * s.sw - s.pl;
  int64_t best = -1;
  float bestv = -INFINITY;
  int64_t h1 = min(h0 + s.kh, s.h), w1 = min(w0 + s.kw, s.w);
  for (int64_t ih = max(h0, int64_t(0)); ih < h1; ++ih)
    for (int64_t iw = max(w0, int64_t(0)); iw < w1; ++iw) {
      float v = plane[ih * s.w + iw];
      bool take = best < 0 || (!isnan(bestv) && (v > bestv || isnan(v)));
      if (take) {
        best = ih * s.w + iw;
        bestv = v;
      }
    }
  return best;
}

__global__ void pool_forward_kernel(PoolShape s, const float *x, float *y) {
  int64_t n = s.planes * s.ho * s.wo;
  // The CPU multiplies by 1/(kh*kw) computed in float.
  const float inv = 1.0f / float(s.kh * s.kw);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t ow = i % s.wo, oh = (i / s.wo) % s.ho, p = i / (s.wo * s.ho);
    const float *plane = x + p * s.h * s.w;
    if (s.kind == 0) {
      int64_t at = argmax_window(s, plane, oh, ow);
      y[i] = at < 0 ? -INFINITY : plane[at];
    } else {
      int64_t h0 = oh * s.sh - s.pt, w0 = ow * s.sw - s.pl;
      int64_t h1 = min(h0 + s.kh, s.h), w1 = min(w0 + s.kw, s.w);
      float sum = 0.0f;
      for (int64_t ih = max(h0, int64_t(0)); ih < h1; ++ih)
        for (int64_t iw = max(w0, int64_t(0)); iw < w1; ++iw) sum = __fadd_rn(sum, plane[ih * s.w + iw]);
      y[i] = __fmul_rn(sum, inv);
    }
  }
}

__global__ void pool_grad_kernel(PoolShape s, const float *x, const float *dy, float *dx) {
  int64_t n = s.planes * s.h * s.w;
  const float inv = 1.0f / float(s.kh * s.kw);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t iw = i % s.w, ih = (i / s.w) % s.h, p = i / (s.w * s.h);
    const float *plane = x + p * s.h * s.w;
    const float *grad = dy + p * s.ho * s.wo;
    // Windows (oh, ow) covering (ih, iw): oh*sh - pt <= ih < oh*sh - pt + kh.
    int64_t ah = ih + s.pt, aw = iw + s.pl;
    int64_t oh0 = ah - s.kh + 1 > 0 ? (ah - s.kh + 1 + s.sh - 1) / s.sh : 0, oh1 = min(ah / s.sh, s.ho - 1);
    int64_t ow0 = aw - s.kw + 1 > 0 ? (aw - s.kw + 1 + s.sw - 1) / s.sw : 0, ow1 = min(aw / s.sw, s.wo - 1);
    float acc = 0.0f;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        float d = grad[oh * s.wo + ow];
        if (s.kind == 0) {
          if (argmax_window(s, plane, oh, ow) == ih * s.w + iw) acc = __fadd_rn(acc, d);
        } else {
          acc = __fadd_rn(acc, __fmul_rn(d, inv));
        }
      }
    dx[i] = acc;
  }
}

__global__ void shift_copy_kernel(const float *src, int64_t planes, int64_t sh, int64_t sw, float *dst, int64_t dh,
                                  int64_t dw, int64_t top, int64_t left) {
  int64_t n = planes * dh * dw;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t j = i % dw, r = (i / dw) % dh, p = i / (dw * dh);
    int64_t si = r - top, sj = j - left;
    dst[i] = si >= 0 && si < sh && sj >= 0 && sj < sw ? src[(p * sh + si) * sw + sj] : 0.0f;
  }
}

} // namespace

int pool_forward(const PoolShape &s, const float *x, float *y, CUstream_st *stream) {
  int64_t n = s.planes * s.ho * s.wo;
  if (n == 0) return 0;
  pool_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, x, y);
  return int(cudaGetLastError());
}

int pool_grad(const PoolShape &s, const float *x, const float *dy, float *dx, CUstream_st *stream) {
  int64_t n = s.planes * s.h * s.w;
  if (n == 0) return 0;
  pool_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, x, dy, dx);
  return int(cudaGetLastError());
}

int shift_copy(const float *src, int64_t planes, int64_t sh, int64_t sw, float *dst, int64_t dh, int64_t dw,
               int64_t top, int64_t left, CUstream_st *stream) {
  int64_t n = planes * dh * dw;
  if (n == 0) return 0;
  shift_copy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, planes, sh, sw, dst, dh, dw, top, left);
  return int(cudaGetLastError());
}

} // namespace dxrt::cuda
