// See DeviceKernels.h: 2-D and 3-D pooling and the padding copies. One
// thread per output element, grid-stride loops (Grid.h).
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

// ---- 3-D pooling ----

// The window of output (od, oh, ow): its corner in the unpadded input (may
// be negative) and its range clipped to the input, [lo, hi) per axis.
struct Window3d {
  int64_t d0, h0, w0, d_lo, d_hi, h_lo, h_hi, w_lo, w_hi;
};

__device__ Window3d window3d(const Pool3dShape &s, int64_t od, int64_t oh, int64_t ow) {
  Window3d v;
  v.d0 = od * s.sd - s.pf;
  v.h0 = oh * s.sh - s.pt;
  v.w0 = ow * s.sw - s.pl;
  v.d_lo = max(v.d0, int64_t(0));
  v.h_lo = max(v.h0, int64_t(0));
  v.w_lo = max(v.w0, int64_t(0));
  v.d_hi = min(v.d0 + s.kd, s.d);
  v.h_hi = min(v.h0 + s.kh, s.h);
  v.w_hi = min(v.w0 + s.kw, s.w);
  return v;
}

// The first maximal element of a window in (d, h, w) order, a NaN winning
// and the first NaN staying (argmax_window's rule), as its index within the
// window ((a * kh + b) * kw + c); -1 when the window lies entirely in the
// padding. *value gets its value (-inf for none).
__device__ int32_t argmax_window3d(const Pool3dShape &s, const float *vol, const Window3d &v, float *value) {
  int32_t best = -1;
  float bestv = -INFINITY;
  for (int64_t id = v.d_lo; id < v.d_hi; ++id)
    for (int64_t ih = v.h_lo; ih < v.h_hi; ++ih)
      for (int64_t iw = v.w_lo; iw < v.w_hi; ++iw) {
        float x = vol[(id * s.h + ih) * s.w + iw];
        bool take = best < 0 || (!isnan(bestv) && (x > bestv || isnan(x)));
        if (take) {
          best = int32_t(((id - v.d0) * s.kh + (ih - v.h0)) * s.kw + (iw - v.w0));
          bestv = x;
        }
      }
  *value = bestv;
  return best;
}

// Output i of [planes, do_, ho, wo]: its plane and window.
__device__ void output_at(const Pool3dShape &s, int64_t i, int64_t &p, int64_t &od, int64_t &oh, int64_t &ow) {
  ow = i % s.wo;
  oh = (i / s.wo) % s.ho;
  od = (i / (s.wo * s.ho)) % s.do_;
  p = i / (s.wo * s.ho * s.do_);
}

__global__ void pool3d_forward_kernel(Pool3dShape s, const float *x, float *y) {
  int64_t n = s.planes * s.do_ * s.ho * s.wo;
  const float inv = 1.0f / float(s.kd * s.kh * s.kw);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t p, od, oh, ow;
    output_at(s, i, p, od, oh, ow);
    const float *vol = x + p * s.d * s.h * s.w;
    Window3d v = window3d(s, od, oh, ow);
    if (s.kind == 0) {
      float best;
      argmax_window3d(s, vol, v, &best);
      y[i] = best;
    } else {
      float sum = 0.0f;
      for (int64_t id = v.d_lo; id < v.d_hi; ++id)
        for (int64_t ih = v.h_lo; ih < v.h_hi; ++ih)
          for (int64_t iw = v.w_lo; iw < v.w_hi; ++iw) sum = __fadd_rn(sum, vol[(id * s.h + ih) * s.w + iw]);
      y[i] = __fmul_rn(sum, inv);
    }
  }
}

// Max pooling's first pass: each window's winner, within the window.
__global__ void pool3d_argmax_kernel(Pool3dShape s, const float *x, int32_t *argmax) {
  int64_t n = s.planes * s.do_ * s.ho * s.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t p, od, oh, ow;
    output_at(s, i, p, od, oh, ow);
    float best;
    argmax[i] = argmax_window3d(s, x + p * s.d * s.h * s.w, window3d(s, od, oh, ow), &best);
  }
}

// The windows o along one axis that cover input index i: o*stride - pad <= i
// < o*stride - pad + k, within [0, out). Empty when lo > hi.
__device__ void covering(int64_t i, int64_t pad, int64_t k, int64_t stride, int64_t out, int64_t &lo, int64_t &hi) {
  int64_t a = i + pad;
  lo = a - k + 1 > 0 ? (a - k + 1 + stride - 1) / stride : 0;
  hi = min(a / stride, out - 1);
}

__global__ void pool3d_grad_kernel(Pool3dShape s, const float *dy, const int32_t *argmax, float *dx) {
  int64_t n = s.planes * s.d * s.h * s.w;
  const float inv = 1.0f / float(s.kd * s.kh * s.kw);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t iw = i % s.w, ih = (i / s.w) % s.h, id = (i / (s.w * s.h)) % s.d, p = i / (s.w * s.h * s.d);
    int64_t od0, od1, oh0, oh1, ow0, ow1;
    covering(id, s.pf, s.kd, s.sd, s.do_, od0, od1);
    covering(ih, s.pt, s.kh, s.sh, s.ho, oh0, oh1);
    covering(iw, s.pl, s.kw, s.sw, s.wo, ow0, ow1);
    int64_t base = p * s.do_ * s.ho * s.wo;
    float acc = 0.0f;
    for (int64_t od = od0; od <= od1; ++od)
      for (int64_t oh = oh0; oh <= oh1; ++oh)
        for (int64_t ow = ow0; ow <= ow1; ++ow) {
          int64_t o = base + (od * s.ho + oh) * s.wo + ow;
          if (s.kind == 0) {
            int64_t local = ((id - (od * s.sd - s.pf)) * s.kh + (ih - (oh * s.sh - s.pt))) * s.kw +
                            (iw - (ow * s.sw - s.pl));
            if (argmax[o] == local) acc = __fadd_rn(acc, dy[o]);
          } else {
            acc = __fadd_rn(acc, __fmul_rn(dy[o], inv));
          }
        }
    dx[i] = acc;
  }
}

__global__ void shift_copy3d_kernel(ShiftShape3d s, const float *src, float *dst) {
  int64_t n = s.planes * s.dd * s.dh * s.dw;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t j = i % s.dw, r = (i / s.dw) % s.dh, a = (i / (s.dw * s.dh)) % s.dd, p = i / (s.dw * s.dh * s.dd);
    int64_t sa = a - s.front, si = r - s.top, sj = j - s.left;
    dst[i] = sa >= 0 && sa < s.sd && si >= 0 && si < s.sh && sj >= 0 && sj < s.sw
                 ? src[((p * s.sd + sa) * s.sh + si) * s.sw + sj]
                 : 0.0f;
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

int pool3d_forward(const Pool3dShape &s, const float *x, float *y, CUstream_st *stream) {
  int64_t n = s.planes * s.do_ * s.ho * s.wo;
  if (n == 0) return 0;
  pool3d_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, x, y);
  return int(cudaGetLastError());
}

int pool3d_grad(const Pool3dShape &s, const float *x, const float *dy, float *dx, int32_t *argmax,
                CUstream_st *stream) {
  int64_t n = s.planes * s.d * s.h * s.w, m = s.planes * s.do_ * s.ho * s.wo;
  if (n == 0) return 0;
  if (s.kind == 0 && m > 0) {
    pool3d_argmax_kernel<<<blocks_for(m), kThreads, 0, stream>>>(s, x, argmax);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return int(e);
  }
  pool3d_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, dy, argmax, dx);
  return int(cudaGetLastError());
}

int shift_copy3d(const ShiftShape3d &s, const float *src, float *dst, CUstream_st *stream) {
  int64_t n = s.planes * s.dd * s.dh * s.dw;
  if (n == 0) return 0;
  shift_copy3d_kernel<<<blocks_for(n), kThreads, 0, stream>>>(s, src, dst);
  return int(cudaGetLastError());
}

} // namespace dxrt::cuda
