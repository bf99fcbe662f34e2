// The convolution kernels on cuDNN 9's legacy API (cudnnConvolutionForward,
// BackwardData, BackwardFilter). For each geometry and direction a plan is
// made once and cached: the descriptors and the algorithm cudnnFind* measured
// fastest (deterministic ones preferred, so that a run repeats bit for bit;
// within DXRT_CUDA_CONV_WORKSPACE_MB, default 1024). The workspace comes from
// the library's scratch (Context.h), which grows only on first use.
//
// cuDNN pads symmetrically; the CPU kernels take (top, bottom, left, right).
// Where the extra padding changes no window (the usual 'same' case, or a
// bottom pad the last window does not reach) the symmetric convolution is
// the same one; otherwise x (or dx) goes through an explicitly zero-padded
// copy in the scratch (DeviceKernels.h's shift_copy), as PyTorch's F.pad would.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Im2col.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

enum Dir : int { kForward = 0, kGradInput = 1, kGradWeight = 2 };

struct Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr; // x: the padded copy's shape when padded
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  bool padded = false;
  int64_t hp = 0, wp = 0; // the padded copy's plane
  int algo = 0;           // of the direction's enum
  size_t workspace = 0;   // bytes
};

using Key = std::array<int64_t, 19>;

std::mutex g_mutex;
std::map<Key, Plan> g_plans; // never freed: a few per layer, alive as long as the model

size_t workspace_limit() {
  static const size_t limit = [] {
    const char *v = std::getenv("DXRT_CUDA_CONV_WORKSPACE_MB");
    long mb = v && *v ? std::atol(v) : 1024;
    return size_t(mb > 0 ? mb : 0) << 20;
  }();
  return limit;
}

int to_int(const char *k, int64_t v, const char *what) {
  DXRT_KERNEL_CHECK(v >= 0 && v <= INT_MAX, k, str(what, " = ", v, " is beyond cuDNN's 32-bit dimensions"));
  return int(v);
}

// The first acceptable result of cudnnFind* (they come fastest first):
// succeeded, fits the workspace limit, no TF32 unless allowed; deterministic
// if any is. Returns the index or -1.
template <typename Perf> int choose(const Perf *perf, int count) {
  int any = -1;
  for (int i = 0; i < count; ++i) {
    const Perf &p = perf[i];
    bool tensor = p.mathType == CUDNN_TENSOR_OP_MATH || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > workspace_limit() || (tensor && !allow_tf32())) continue;
    if (p.determinism == CUDNN_DETERMINISTIC) return i;
    if (any < 0) any = i;
  }
  return any;
}

// A window-preserving symmetric padding for one axis, or -1.
int64_t symmetric_pad(int64_t in, int64_t lo, int64_t hi, int64_t k, int64_t s, int64_t d, int64_t out) {
  if (lo == hi) return lo;
  return conv_out_size(in, lo, lo, k, s, d) == out ? lo : -1;
}

Plan make_plan(const char *k, Dir dir, const ConvGeometry &g) {
  Context &ctx = context();
  Plan p;
  int64_t ph = symmetric_pad(g.h, g.pt, g.pb, g.kh, g.sh, g.dh, g.ho);
  int64_t pw = symmetric_pad(g.w, g.pl, g.pr, g.kw, g.sw, g.dw, g.wo);
  p.padded = ph < 0 || pw < 0;
  p.hp = p.padded ? g.h + g.pt + g.pb : g.h;
  p.wp = p.padded ? g.w + g.pl + g.pr : g.w;
  if (p.padded) ph = pw = 0;
  DXRT_KERNEL_CHECK(g.n * g.c * p.hp * p.wp <= INT_MAX && g.n * g.f * g.ho * g.wo <= INT_MAX, k,
                    "a tensor of 2^31 elements or more is beyond cuDNN's legacy API");
  DXRT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.x));
  DXRT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.y));
  DXRT_CUDNN_CHECK(cudnnCreateFilterDescriptor(&p.w));
  DXRT_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
  DXRT_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, to_int(k, g.n, "N"),
                                              to_int(k, g.c, "C"), to_int(k, p.hp, "H"), to_int(k, p.wp, "W")));
  DXRT_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(g.n),
                                              to_int(k, g.f, "F"), to_int(k, g.ho, "HO"), to_int(k, g.wo, "WO")));
  DXRT_CUDNN_CHECK(cudnnSetFilter4dDescriptor(p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(g.f),
                                              to_int(k, g.cg, "C/groups"), to_int(k, g.kh, "KH"),
                                              to_int(k, g.kw, "KW")));
  // Cross-correlation: what deep learning calls convolution (no kernel flip).
  DXRT_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(p.conv, int(ph), int(pw), to_int(k, g.sh, "stride"),
                                                   to_int(k, g.sw, "stride"), to_int(k, g.dh, "dilation"),
                                                   to_int(k, g.dw, "dilation"), CUDNN_CROSS_CORRELATION,
                                                   CUDNN_DATA_FLOAT));
  DXRT_CUDNN_CHECK(cudnnSetConvolutionGroupCount(p.conv, to_int(k, g.groups, "groups")));
  DXRT_CUDNN_CHECK(cudnnSetConvolutionMathType(p.conv, allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));

  int found = 0, at = -1;
  if (dir == kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    DXRT_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(ctx.cudnn, p.x, p.w, p.conv, p.y,
                                                          CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
    at = choose(perf, found);
    if (at >= 0) p.algo = perf[at].algo;
  } else if (dir == kGradInput) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    DXRT_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithm(ctx.cudnn, p.w, p.y, p.conv, p.x,
                                                               CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf));
    at = choose(perf, found);
    if (at >= 0) p.algo = perf[at].algo;
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    DXRT_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithm(
        ctx.cudnn, p.x, p.y, p.conv, p.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf));
    at = choose(perf, found);
    if (at >= 0) p.algo = perf[at].algo;
  }
  DXRT_CHECK(at >= 0,
             str("cuDNN has no algorithm for this convolution within ", workspace_limit() >> 20,
                 " MiB of workspace (", found, " tried)"),
             "raise DXRT_CUDA_CONV_WORKSPACE_MB, or allow TF32 with DXRT_CUDA_TF32=1");
  if (dir == kForward) {
    DXRT_CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(ctx.cudnn, p.x, p.w, p.conv, p.y,
                                                             cudnnConvolutionFwdAlgo_t(p.algo), &p.workspace));
  } else if (dir == kGradInput) {
    DXRT_CUDNN_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(ctx.cudnn, p.w, p.y, p.conv, p.x,
                                                                  cudnnConvolutionBwdDataAlgo_t(p.algo),
                                                                  &p.workspace));
  } else {
    DXRT_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(ctx.cudnn, p.x, p.y, p.conv, p.w,
                                                                    cudnnConvolutionBwdFilterAlgo_t(p.algo),
                                                                    &p.workspace));
  }
  return p;
}

const Plan &plan(const char *k, Dir dir, const ConvGeometry &g) {
  Key key = {dir, g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, g.ho, g.wo, g.sh, g.sw, g.pt, g.pb, g.pl, g.pr, g.dh, g.dw,
             g.groups};
  std::lock_guard lock(g_mutex);
  auto it = g_plans.find(key);
  if (it == g_plans.end()) it = g_plans.emplace(key, make_plan(k, dir, g)).first;
  return it->second;
}

// (x side, w side, y side) as in runtime/kernels/Conv2d.h: kForward reads x
// and w and writes y; kGradInput reads y (dy) and w and writes x (dx);
// kGradWeight reads x and y (dy) and writes w (dw).
void run(const char *k, Dir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  Context &ctx = context();
  cudaStream_t s = ctx.stream;
  int64_t xn = g.n * g.c * g.h * g.w, wn = g.f * g.cg * g.kh * g.kw, yn = g.n * g.f * g.ho * g.wo;
  if (xn == 0 || wn == 0 || yn == 0) {
    // cuDNN rejects empty tensors; the result is all zeros (an empty sum).
    float *out = dir == kForward ? y : dir == kGradInput ? x : w;
    int64_t n = dir == kForward ? yn : dir == kGradInput ? xn : wn;
    if (n) DXRT_CUDA_CHECK(cudaMemsetAsync(out, 0, size_t(n) * sizeof(float), s));
    return;
  }
  const Plan &p = plan(k, dir, g);
  size_t pad_bytes = p.padded ? (size_t(g.n * g.c * p.hp * p.wp) * sizeof(float) + 255) & ~size_t(255) : 0;
  char *base = static_cast<char *>(scratch(pad_bytes + p.workspace + 1));
  float *xp = p.padded ? reinterpret_cast<float *>(base) : x;
  void *ws = p.workspace ? base + pad_bytes : nullptr;
  const float one = 1.0f, zero = 0.0f;
  if (p.padded && dir != kGradInput)
    DXRT_CUDA_CHECK(shift_copy(x, g.n * g.c, g.h, g.w, xp, p.hp, p.wp, g.pt, g.pl, s));
  if (dir == kForward) {
    DXRT_CUDNN_CHECK(cudnnConvolutionForward(ctx.cudnn, &one, p.x, xp, p.w, w, p.conv,
                                             cudnnConvolutionFwdAlgo_t(p.algo), ws, p.workspace, &zero, p.y, y));
  } else if (dir == kGradInput) {
    DXRT_CUDNN_CHECK(cudnnConvolutionBackwardData(ctx.cudnn, &one, p.w, w, p.y, y, p.conv,
                                                  cudnnConvolutionBwdDataAlgo_t(p.algo), ws, p.workspace, &zero, p.x,
                                                  xp));
    // The gradient of the padding is dropped: crop the padded dx.
    if (p.padded) DXRT_CUDA_CHECK(shift_copy(xp, g.n * g.c, p.hp, p.wp, x, g.h, g.w, -g.pt, -g.pl, s));
  } else {
    DXRT_CUDNN_CHECK(cudnnConvolutionBackwardFilter(ctx.cudnn, &one, p.x, xp, p.y, y, p.conv,
                                                    cudnnConvolutionBwdFilterAlgo_t(p.algo), ws, p.workspace, &zero,
                                                    p.w, w));
  }
}

} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd,
                                                      int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                      int64_t pr, int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_cuda_conv2d_forward";
  Tensor4 x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  guard(k, [&] { run(k, kForward, g, x.p, w.p, y.p); });
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_input(dxrt_memref4 *dyd, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                                                         int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                         int64_t pr, int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_cuda_conv2d_grad_input";
  Tensor4 dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  guard(k, [&] { run(k, kGradInput, g, dx.p, w.p, dy.p); });
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_weight(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dwd,
                                                          int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                          int64_t pr, int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_cuda_conv2d_grad_weight";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  guard(k, [&] { run(k, kGradWeight, g, x.p, dw.p, dy.p); });
}

// Both gradients from one dy (the CPU kernel's twin: dxrt_conv2d_backward),
// as the two calls above; cuDNN reads dy in place, so there is nothing to share.
extern "C" void _mlir_ciface_dxrt_cuda_conv2d_backward(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                       dxrt_memref4 *dxd, dxrt_memref4 *dwd, int64_t sh, int64_t sw,
                                                       int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                       int64_t ddw, int64_t groups) {
  _mlir_ciface_dxrt_cuda_conv2d_grad_input(dyd, wd, dxd, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  _mlir_ciface_dxrt_cuda_conv2d_grad_weight(dyd, xd, dwd, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
}
