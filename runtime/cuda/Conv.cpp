// The convolution kernels on cuDNN 9's legacy API (cudnnConvolutionForward,
// BackwardData, BackwardFilter). For each geometry and direction a plan is
// made once and cached: the descriptors and the algorithm cudnnFind* measured
// fastest (deterministic ones preferred, so that a run repeats bit for bit;
// never cuDNN's non-fused Winograd, whose results were 1-2% off on an H200;
// within DXRT_CUDA_CONV_WORKSPACE_MB, default 1024). The workspace comes from
// the library's scratch (Context.h), which grows only on first use.
//
// cuDNN pads symmetrically; the CPU kernels take (top, bottom, left, right).
// Where the extra padding changes no window (the usual 'same' case, or a
// bottom pad the last window does not reach) the symmetric convolution is
// the same one; otherwise x (or dx) goes through an explicitly zero-padded
// copy in the scratch (DeviceKernels.h's shift_copy), as PyTorch's F.pad would.
//
// 3-D convolutions (NCDHW, conv3d_*) take the same path with N-d descriptors
// (cudnnSet*NdDescriptor) and shift_copy3d: one plan cache, one algorithm
// choice, one workspace rule. Both check their descriptors with the CPU
// kernels' conv_geometry (kernels/Im2col.h); a 2-D convolution is a Geom of
// two spatial axes and keeps its 4-d descriptors.
//
// In bf16 precision (kernels/Precision.h) the operands are rounded to bf16
// copies in the scratch (the CPU's rounding, Bf16Kernels.cu) and cuDNN runs
// its PSEUDO_BFLOAT16 configuration: bf16 tensors, fp32 arithmetic, tensor
// cores. cuDNN's legacy API has no bf16-in, fp32-out convolution, so its
// result (y, dx or dw) is bf16 too and is widened into the fp32 tensor: it
// carries one more bf16 rounding than the CPU's, which keeps oneDNN's fp32
// result. PyTorch's autocast on a GPU rounds the same way. Where cuDNN has
// no bf16 algorithm for a shape, the plan runs fp32 on bf16-rounded copies
// of the operands instead: the CPU's semantics, without tensor cores.
//
// The 2-D _bf16x / _bf16dy / _bf16xdy twins (kernels.h; dxc's
// dx-bf16-product-inputs stores those operands in bf16) hand a bf16 x or dy
// to a bf16 plan as it is: its bits are what the rounded copy would hold.
// Where the plan needs fp32 (a zero-padded copy of x, a plan that computes
// fp32 on rounded copies, fp32 precision) it is widened into the scratch
// first, which is exact, so the twin gives its fp32 kernel's bits.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Environment.h"
#include "cuda/Kernel.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Bf16Input.h"
#include "kernels/Descriptor.h"
#include "kernels/Im2col.h"
#include "kernels/Precision.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <iterator>
#include <climits>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

enum Dir : int { kForward = 0, kGradInput = 1, kGradWeight = 2 };

// A convolution of 2 or 3 spatial axes: (d,) h, w, in that order; a 2-D one
// uses axes 0 and 1.
struct Geom {
  int nd = 2;
  int64_t n = 0, c = 0, f = 0, groups = 1, cg = 0;
  int64_t in[3] = {}, k[3] = {}, out[3] = {}, s[3] = {}, lo[3] = {}, hi[3] = {}, dil[3] = {};
  int64_t volume(const int64_t *e) const {
    int64_t v = 1;
    for (int i = 0; i < nd; ++i) v *= e[i];
    return v;
  }
};

// kernels/Im2col.h's geometry (the CPU kernels' checks; spatial 2 or 3) as a Geom.
Geom from_geometry(const ConvGeometry &g) {
  Geom r;
  r.nd = g.spatial == 3 ? 3 : 2;
  r.n = g.n, r.c = g.c, r.f = g.f, r.groups = g.groups, r.cg = g.cg;
  const int64_t in[] = {g.d, g.h, g.w}, k[] = {g.kd, g.kh, g.kw}, out[] = {g.od, g.ho, g.wo},
                s[] = {g.sd, g.sh, g.sw}, lo[] = {g.pf, g.pt, g.pl}, hi[] = {g.pk, g.pb, g.pr},
                dil[] = {g.dd, g.dh, g.dw};
  for (int i = 0, a = 3 - r.nd; i < r.nd; ++i, ++a) {
    r.in[i] = in[a], r.k[i] = k[a], r.out[i] = out[a], r.s[i] = s[a], r.lo[i] = lo[a], r.hi[i] = hi[a];
    r.dil[i] = dil[a];
  }
  return r;
}

struct Plan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr; // x: the padded copy's shape when padded
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  bool padded = false;
  int64_t xp[3] = {};   // the padded copy's spatial extents ((d,) h, w)
  int algo = 0;         // of the direction's enum
  size_t workspace = 0; // bytes
  bool bf16 = false;    // cuDNN reads and writes bf16 copies (PSEUDO_BFLOAT16)
  bool rounds = false;  // bf16 precision on fp32 tensors: the operands are rounded copies
};

// dir, nd, n, c, f, groups, then (in, k, out, s, lo, hi, dil) of 3 axes,
// then the precision.
using Key = std::array<int64_t, 28>;

std::mutex g_mutex;
std::map<Key, Plan> g_plans; // never freed: a few per layer, alive as long as the model

size_t workspace_limit() { return size_t(environment().conv_workspace_mb) << 20; }

int to_int(const char *k, int64_t v, const char *what) {
  DXRT_KERNEL_CHECK(v >= 0 && v <= INT_MAX, k, str(what, " = ", v, " is beyond cuDNN's 32-bit dimensions"));
  return int(v);
}

// The name of algorithm `algo` of a direction's cuDNN enum, for the log.
const char *algo_name(Dir dir, int algo) {
  static const char *const fwd[] = {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
                                    "fft", "fft_tiling", "winograd", "winograd_nonfused"};
  static const char *const data[] = {"algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused"};
  static const char *const filter[] = {"algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nonfused",
                                       "fft_tiling"};
  static_assert(std::size(fwd) == CUDNN_CONVOLUTION_FWD_ALGO_COUNT &&
                std::size(data) == CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT &&
                std::size(filter) == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, "one name per algorithm of cuDNN's enums");
  auto pick = [algo](const auto &names) { return algo >= 0 && algo < int(std::size(names)) ? names[algo] : "?"; };
  switch (dir) {
  case kForward: return pick(fwd);
  case kGradInput: return pick(data);
  case kGradWeight: return pick(filter);
  }
  return "?";
}

// cuDNN's non-fused Winograd algorithms are never used. On an H200 (cuDNN
// 9, 2026-12-04) each of the three, forced on a 5x5 convolution (batch 8, 16
// -> 32 channels, 14x14, padding 2), was 1-2% of the output's scale away from
// the CPU's result (runtime/cuda/test/kernels_test.cpp's lenet5x5: forward
// 6.73 against 6.66, the data gradient 7.28 against 7.43, the filter
// gradient 5.81 against 5.93), where every other algorithm agreed within
// 1e-4; and cudnnFind* picked them for some runs and not others (it times
// the candidates), so a training run's gradients were wrong by chance. In
// the one case measured where one was the fastest (the Fashion-MNIST CNN's
// second convolution, forward, batch 512) the next took 2% longer.
bool is_excluded(Dir dir, int algo) {
  switch (dir) {
  case kForward: return algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  case kGradInput: return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
  case kGradWeight: return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
  }
  return false;
}

// DXRT_CUDA_CONV_{FWD,BWD_DATA,BWD_FILTER}_ALGO=N: the direction's algorithm
// N of cuDNN's enum wherever it is acceptable (below) for a geometry, else
// the usual choice; -1 when unset. For tests (test/gpu/run.sh runs the
// convolution tests under each) and for ruling one algorithm in or out.
int forced_algorithm(Dir dir) { return environment().conv_algo[dir]; }

// The first acceptable result of cudnnFind* (they come fastest first), or
// the forced algorithm where that is acceptable. Acceptable: succeeded, fits
// the workspace limit, no TF32 unless allowed (bf16 tensors are for the
// tensor cores), not excluded (above); deterministic ones preferred, so
// that a run repeats bit for bit. Returns the index or -1.
template <typename Perf> int choose(Dir dir, const Perf *perf, int count, bool bf16) {
  auto acceptable = [&](const Perf &p) {
    bool tensor = p.mathType == CUDNN_TENSOR_OP_MATH || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    return p.status == CUDNN_STATUS_SUCCESS && p.memory <= workspace_limit() && (!tensor || allow_tf32() || bf16) &&
           !is_excluded(dir, int(p.algo));
  };
  for (int i = 0; i < count; ++i)
    if (int(perf[i].algo) == forced_algorithm(dir) && acceptable(perf[i])) return i;
  int any = -1;
  for (int i = 0; i < count; ++i) {
    if (!acceptable(perf[i])) continue;
    if (perf[i].determinism == CUDNN_DETERMINISTIC) return i;
    if (any < 0) any = i;
  }
  return any;
}

// DXRT_CUDA_CONV_LOG=1: one line on stderr per plan made (a geometry and
// direction, once per process): the algorithm cuDNN's search chose (the
// number and name in cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t), its
// measured time, workspace and determinism: what to look at first when a
// GPU run's numbers or speed differ from what was expected.
// DXRT_CUDA_CONV_LOG=2 also lists every result of the search before it.
template <typename Perf> void log_choice(Dir dir, const Geom &g, const Perf *perf, int count, int at, bool bf16) {
  const int level = environment().conv_log;
  if (level <= 0 || at < 0) return;
  auto determinism = [](const Perf &p) {
    return p.determinism == CUDNN_DETERMINISTIC ? "deterministic" : "nondeterministic";
  };
  if (level >= 2) // every result of the search, fastest first
    for (int i = 0; i < count; ++i)
      std::fprintf(stderr, "dxrt_cuda conv search: algo %d (%s) status %d, %.3f ms, workspace %zu B, math %d, %s\n",
                   int(perf[i].algo), algo_name(dir, int(perf[i].algo)), int(perf[i].status), double(perf[i].time),
                   size_t(perf[i].memory), int(perf[i].mathType), determinism(perf[i]));
  static const char *const dirs[] = {"forward", "grad_input", "grad_weight"};
  const Perf &p = perf[at];
  std::string in = str(g.in[0], "x", g.in[1]), k = str(g.k[0], "x", g.k[1]);
  if (g.nd == 3) in += str("x", g.in[2]), k += str("x", g.k[2]);
  std::fprintf(stderr,
               "dxrt_cuda conv plan: %s n=%lld c=%lld f=%lld groups=%lld in=%s k=%s: algo %d (%s), %.3f ms, "
               "workspace %zu B, %s%s\n",
               dirs[dir], (long long)g.n, (long long)g.c, (long long)g.f, (long long)g.groups, in.c_str(), k.c_str(),
               int(p.algo), algo_name(dir, int(p.algo)), double(p.time), size_t(p.memory), determinism(p),
               bf16 ? ", bf16" : "");
}

// A window-preserving symmetric padding for one axis, or -1.
int64_t symmetric_pad(int64_t in, int64_t lo, int64_t hi, int64_t k, int64_t s, int64_t d, int64_t out) {
  if (lo == hi) return lo;
  return conv_out_size(in, lo, lo, k, s, d) == out ? lo : -1;
}

// The descriptors: 4-d ones for a 2-D convolution (as before 3-D came),
// N-d ones (5 dimensions, packed NCDHW strides) for a 3-D one.
void set_descriptors(const char *k, const Geom &g, Plan &p, const int64_t *pad, cudnnDataType_t io) {
  if (g.nd == 2) {
    DXRT_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW, io, to_int(k, g.n, "N"),
                                                to_int(k, g.c, "C"), to_int(k, p.xp[0], "H"),
                                                to_int(k, p.xp[1], "W")));
    DXRT_CUDNN_CHECK(cudnnSetTensor4dDescriptor(p.y, CUDNN_TENSOR_NCHW, io, int(g.n),
                                                to_int(k, g.f, "F"), to_int(k, g.out[0], "HO"),
                                                to_int(k, g.out[1], "WO")));
    DXRT_CUDNN_CHECK(cudnnSetFilter4dDescriptor(p.w, io, CUDNN_TENSOR_NCHW, int(g.f),
                                                to_int(k, g.cg, "C/groups"), to_int(k, g.k[0], "KH"),
                                                to_int(k, g.k[1], "KW")));
    // Cross-correlation: what deep learning calls convolution (no kernel flip).
    DXRT_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(p.conv, int(pad[0]), int(pad[1]), to_int(k, g.s[0], "stride"),
                                                     to_int(k, g.s[1], "stride"), to_int(k, g.dil[0], "dilation"),
                                                     to_int(k, g.dil[1], "dilation"), CUDNN_CROSS_CORRELATION,
                                                     CUDNN_DATA_FLOAT));
    return;
  }
  static const char *const in_names[] = {"D", "H", "W"}, *const out_names[] = {"DO", "HO", "WO"},
                           *const k_names[] = {"KD", "KH", "KW"};
  int xd[5] = {to_int(k, g.n, "N"), to_int(k, g.c, "C")}, yd[5] = {int(g.n), to_int(k, g.f, "F")},
      wd[5] = {int(g.f), to_int(k, g.cg, "C/groups")};
  int pads[3], strides[3], dils[3];
  for (int i = 0; i < g.nd; ++i) {
    xd[2 + i] = to_int(k, p.xp[i], in_names[i]);
    yd[2 + i] = to_int(k, g.out[i], out_names[i]);
    wd[2 + i] = to_int(k, g.k[i], k_names[i]);
    pads[i] = int(pad[i]);
    strides[i] = to_int(k, g.s[i], "stride");
    dils[i] = to_int(k, g.dil[i], "dilation");
  }
  const int dims = g.nd + 2;
  auto packed = [dims](const int *sizes, int *strides_out) {
    int st = 1;
    for (int i = dims - 1; i >= 0; --i) {
      strides_out[i] = st;
      st *= sizes[i];
    }
  };
  int xs[5], ys[5];
  packed(xd, xs);
  packed(yd, ys);
  DXRT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(p.x, io, dims, xd, xs));
  DXRT_CUDNN_CHECK(cudnnSetTensorNdDescriptor(p.y, io, dims, yd, ys));
  DXRT_CUDNN_CHECK(cudnnSetFilterNdDescriptor(p.w, io, CUDNN_TENSOR_NCHW, dims, wd));
  DXRT_CUDNN_CHECK(cudnnSetConvolutionNdDescriptor(p.conv, g.nd, pads, strides, dils, CUDNN_CROSS_CORRELATION,
                                                   CUDNN_DATA_FLOAT));
}

// cudnnFind* for the plan's descriptors: sets p.algo and returns true, or
// false where no algorithm is acceptable. For bf16 tensors a Find that
// fails outright (a configuration cuDNN does not support) is "none" too.
bool find_algorithm(cudnnHandle_t h, Dir dir, const Geom &g, Plan &p, bool bf16, int *found) {
  auto status = [bf16](cudnnStatus_t st) {
    if (!bf16) DXRT_CUDNN_CHECK(st);
    return st == CUDNN_STATUS_SUCCESS;
  };
  int at = -1;
  if (dir == kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    if (!status(cudnnFindConvolutionForwardAlgorithm(h, p.x, p.w, p.conv, p.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, found,
                                                     perf)))
      return false;
    at = choose(dir, perf, *found, bf16);
    log_choice(dir, g, perf, *found, at, bf16);
    if (at >= 0) p.algo = perf[at].algo;
  } else if (dir == kGradInput) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    if (!status(cudnnFindConvolutionBackwardDataAlgorithm(h, p.w, p.y, p.conv, p.x,
                                                          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, found, perf)))
      return false;
    at = choose(dir, perf, *found, bf16);
    log_choice(dir, g, perf, *found, at, bf16);
    if (at >= 0) p.algo = perf[at].algo;
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    if (!status(cudnnFindConvolutionBackwardFilterAlgorithm(h, p.x, p.y, p.conv, p.w,
                                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, found, perf)))
      return false;
    at = choose(dir, perf, *found, bf16);
    log_choice(dir, g, perf, *found, at, bf16);
    if (at >= 0) p.algo = perf[at].algo;
  }
  return at >= 0;
}

Plan make_plan(const char *k, Dir dir, const Geom &g, bool bf16) {
  Context &ctx = context();
  Plan p;
  int64_t pad[3] = {};
  for (int i = 0; i < g.nd; ++i) {
    pad[i] = symmetric_pad(g.in[i], g.lo[i], g.hi[i], g.k[i], g.s[i], g.dil[i], g.out[i]);
    if (pad[i] < 0) p.padded = true;
  }
  for (int i = 0; i < g.nd; ++i) {
    p.xp[i] = p.padded ? g.in[i] + g.lo[i] + g.hi[i] : g.in[i];
    if (p.padded) pad[i] = 0;
  }
  DXRT_KERNEL_CHECK(g.n * g.c * g.volume(p.xp) <= INT_MAX && g.n * g.f * g.volume(g.out) <= INT_MAX, k,
                    "a tensor of 2^31 elements or more is beyond cuDNN's legacy API");
  DXRT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.x));
  DXRT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&p.y));
  DXRT_CUDNN_CHECK(cudnnCreateFilterDescriptor(&p.w));
  DXRT_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&p.conv));
  // The descriptors for fp32 or bf16 tensors. The convolution descriptor's
  // type is the arithmetic's: fp32 for both precisions (bf16 tensors with it
  // are cuDNN's PSEUDO_BFLOAT16 configuration, on the tensor cores).
  auto configure = [&](bool bf16_tensors) {
    set_descriptors(k, g, p, pad, bf16_tensors ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT); // resets the groups
    DXRT_CUDNN_CHECK(cudnnSetConvolutionGroupCount(p.conv, to_int(k, g.groups, "groups")));
    DXRT_CUDNN_CHECK(cudnnSetConvolutionMathType(
        p.conv, bf16_tensors ? CUDNN_TENSOR_OP_MATH : allow_tf32() ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
    p.bf16 = bf16_tensors;
  };
  configure(bf16);

  int found = 0;
  bool ok = find_algorithm(ctx.cudnn, dir, g, p, bf16, &found);
  if (!ok && bf16) { // no bf16 kernel for this shape: fp32 on rounded operands
    configure(false);
    p.rounds = true;
    ok = find_algorithm(ctx.cudnn, dir, g, p, false, &found);
  }
  DXRT_CHECK(ok,
             str("cuDNN has no algorithm for this ", g.nd, "-D convolution within ", workspace_limit() >> 20,
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

const Plan &plan(const char *k, Dir dir, const Geom &g, bool bf16) {
  Key key = {dir, g.nd, g.n, g.c, g.f, g.groups};
  key[27] = bf16;
  for (int i = 0; i < 3; ++i) {
    const int64_t v[] = {g.in[i], g.k[i], g.out[i], g.s[i], g.lo[i], g.hi[i], g.dil[i]};
    for (int j = 0; j < 7; ++j) key[size_t(6 + 7 * i + j)] = v[j];
  }
  std::lock_guard lock(g_mutex);
  auto it = g_plans.find(key);
  if (it == g_plans.end()) it = g_plans.emplace(key, make_plan(k, dir, g, bf16)).first;
  return it->second;
}

// Copies x into the plan's zero-padded copy (sign > 0), or crops the padded
// copy back into x (sign < 0): each axis shifts by its low padding.
int pad_copy(const Geom &g, const Plan &p, const float *src, float *dst, int sign, cudaStream_t s) {
  const int64_t *from = sign > 0 ? g.in : p.xp, *to = sign > 0 ? p.xp : g.in;
  if (g.nd == 2)
    return shift_copy(src, g.n * g.c, from[0], from[1], dst, to[0], to[1], sign * g.lo[0], sign * g.lo[1], s);
  ShiftShape3d sh{g.n * g.c, from[0], from[1], from[2], to[0], to[1], to[2],
                  sign * g.lo[0], sign * g.lo[1], sign * g.lo[2]};
  return shift_copy3d(sh, src, dst, s);
}

// (x side, w side, y side) as in runtime/kernels/Conv2d.h: kForward reads x
// and w and writes y; kGradInput reads y (dy) and w and writes x (dx);
// kGradWeight reads x and y (dy) and writes w (dw).
// x_bf16 / y_bf16: x (kForward, kGradWeight) or y (kGradInput, kGradWeight),
// an input, holds bf16 bits (a twin's operand).
void run(const char *k, Dir dir, const Geom &g, float *x, float *w, float *y, bool x_bf16 = false,
         bool y_bf16 = false) {
  Context &ctx = context();
  cudaStream_t s = ctx.stream;
  int64_t xn = g.n * g.c * g.volume(g.in), wn = g.f * g.cg * g.volume(g.k), yn = g.n * g.f * g.volume(g.out);
  if (xn == 0 || wn == 0 || yn == 0) {
    // cuDNN rejects empty tensors; the result is all zeros (an empty sum).
    float *out = dir == kForward ? y : dir == kGradInput ? x : w;
    int64_t n = dir == kForward ? yn : dir == kGradInput ? xn : wn;
    if (n) DXRT_CUDA_CHECK(cudaMemsetAsync(out, 0, size_t(n) * sizeof(float), s));
    return;
  }
  const Plan &p = plan(k, dir, g, matmul_precision() == Precision::kBf16);
  // A bf16 input that a bf16 plan reads where it is (x only unpadded), and
  // one that is widened first.
  const bool x_direct = x_bf16 && p.bf16 && !p.padded, y_direct = y_bf16 && p.bf16;
  const bool x_widen = x_bf16 && !x_direct, y_widen = y_bf16 && !y_direct;
  // The scratch: the widened bf16 inputs (fp32), the padded copy (fp32), the
  // copies of x (padded), w and y that bf16 precision reads (bf16, or fp32
  // rounded to bf16), then cuDNN's workspace; each 256-byte aligned.
  auto at256 = [](size_t bytes) { return (bytes + 255) & ~size_t(255); };
  const int64_t xpn = g.n * g.c * g.volume(p.xp);
  const bool copies = p.bf16 || p.rounds;
  const size_t esz = p.bf16 ? 2 : 4;
  const size_t xw_bytes = x_widen ? at256(size_t(xn) * sizeof(float)) : 0,
               yw_bytes = y_widen ? at256(size_t(yn) * sizeof(float)) : 0;
  const size_t pad_bytes = p.padded ? at256(size_t(xpn) * sizeof(float)) : 0;
  const size_t xc_bytes = copies && !x_direct ? at256(size_t(xpn) * esz) : 0,
               wc_bytes = copies ? at256(size_t(wn) * esz) : 0,
               yc_bytes = copies && !y_direct ? at256(size_t(yn) * esz) : 0;
  char *base =
      static_cast<char *>(scratch(xw_bytes + yw_bytes + pad_bytes + xc_bytes + wc_bytes + yc_bytes + p.workspace + 1));
  if (x_widen) {
    float *wide = reinterpret_cast<float *>(base);
    DXRT_CUDA_CHECK(cuda::from_bf16(reinterpret_cast<const uint16_t *>(x), wide, xn, s));
    x = wide;
  }
  if (y_widen) {
    float *wide = reinterpret_cast<float *>(base + xw_bytes);
    DXRT_CUDA_CHECK(cuda::from_bf16(reinterpret_cast<const uint16_t *>(y), wide, yn, s));
    y = wide;
  }
  base += xw_bytes + yw_bytes;
  float *xp = p.padded ? reinterpret_cast<float *>(base) : x;
  char *xcopy = base + pad_bytes, *wcopy = xcopy + xc_bytes, *ycopy = wcopy + wc_bytes;
  void *ws = p.workspace ? ycopy + yc_bytes : nullptr;
  const float one = 1.0f, zero = 0.0f;
  if (p.padded && dir != kGradInput) DXRT_CUDA_CHECK(pad_copy(g, p, x, xp, +1, s));
  // What cuDNN reads and writes: the fp32 tensors, or the copies. A bf16
  // plan writes its result into a bf16 copy too; a rounding plan writes fp32.
  void *xc = xp, *wc = w, *yc = y;
  auto copy_in = [&](const float *src, char *dst, int64_t n) {
    DXRT_CUDA_CHECK(p.bf16 ? cuda::to_bf16(src, reinterpret_cast<uint16_t *>(dst), n, s)
                           : cuda::round_to_bf16(src, reinterpret_cast<float *>(dst), n, s));
  };
  if (copies) {
    if (dir != kGradInput && !x_direct) copy_in(xp, xcopy, xpn);
    if (dir != kGradWeight) copy_in(w, wcopy, wn);
    if (dir != kForward && !y_direct) copy_in(y, ycopy, yn);
    if (dir != kGradInput || p.bf16) xc = x_direct ? static_cast<void *>(x) : xcopy;
    if (dir != kGradWeight || p.bf16) wc = wcopy;
    if (dir != kForward || p.bf16) yc = y_direct ? static_cast<void *>(y) : ycopy;
  }
  const uint16_t *x16 = reinterpret_cast<uint16_t *>(xcopy), *w16 = reinterpret_cast<uint16_t *>(wcopy),
                 *y16 = reinterpret_cast<uint16_t *>(ycopy);
  if (dir == kForward) {
    DXRT_CUDNN_CHECK(cudnnConvolutionForward(ctx.cudnn, &one, p.x, xc, p.w, wc, p.conv,
                                             cudnnConvolutionFwdAlgo_t(p.algo), ws, p.workspace, &zero, p.y, yc));
    if (p.bf16) DXRT_CUDA_CHECK(cuda::from_bf16(y16, y, yn, s));
  } else if (dir == kGradInput) {
    DXRT_CUDNN_CHECK(cudnnConvolutionBackwardData(ctx.cudnn, &one, p.w, wc, p.y, yc, p.conv,
                                                  cudnnConvolutionBwdDataAlgo_t(p.algo), ws, p.workspace, &zero, p.x,
                                                  xc));
    if (p.bf16) DXRT_CUDA_CHECK(cuda::from_bf16(x16, xp, xpn, s));
    // The gradient of the padding is dropped: crop the padded dx.
    if (p.padded) DXRT_CUDA_CHECK(pad_copy(g, p, xp, x, -1, s));
  } else {
    DXRT_CUDNN_CHECK(cudnnConvolutionBackwardFilter(ctx.cudnn, &one, p.x, xc, p.y, yc, p.conv,
                                                    cudnnConvolutionBwdFilterAlgo_t(p.algo), ws, p.workspace, &zero,
                                                    p.w, wc));
    if (p.bf16) DXRT_CUDA_CHECK(cuda::from_bf16(w16, w, wn, s));
  }
}

using Operand4 = ProductOperand<dxrt_memref4>;

// The 2-D directions, each for its fp32 kernel and its twins: x and dy are
// fp32 descriptors (ProductOperand, Bf16Input.h), over bf16 data where
// flagged. Only their sizes and device pointers are read here.
void forward(const char *k, const Operand4 &xo, dxrt_memref4 *wd, dxrt_memref4 *yd, const ConvArgs &a) {
  Tensor4 x = view(&xo.d, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, a);
  guard(k, [&] { run(k, kForward, from_geometry(g), x.p, w.p, y.p, xo.bf16, false); });
}

void grad_input(const char *k, const Operand4 &dyo, dxrt_memref4 *wd, dxrt_memref4 *dxd, const ConvArgs &a) {
  Tensor4 dy = view(&dyo.d, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, a);
  guard(k, [&] { run(k, kGradInput, from_geometry(g), dx.p, w.p, dy.p, false, dyo.bf16); });
}

void grad_weight(const char *k, const Operand4 &dyo, const Operand4 &xo, dxrt_memref4 *dwd, const ConvArgs &a) {
  Tensor4 dy = view(&dyo.d, k, "dy"), x = view(&xo.d, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, a);
  guard(k, [&] { run(k, kGradWeight, from_geometry(g), x.p, dw.p, dy.p, xo.bf16, dyo.bf16); });
}

// Both gradients from one dy (the CPU kernel's twin: dxrt_conv2d_backward),
// as the two calls above; cuDNN reads dy in place, so there is nothing to share.
void backward(const char *k, const Operand4 &dyo, const Operand4 &xo, dxrt_memref4 *wd, dxrt_memref4 *dxd,
              dxrt_memref4 *dwd, const ConvArgs &a) {
  grad_input(k, dyo, wd, dxd, a);
  grad_weight(k, dyo, xo, dwd, a);
}

// A convolution and a weight gradient of one x (the CPU kernel's twin:
// dxrt_conv2d_forward_grad_weight), as the two calls; cuDNN reads x in place.
void forward_grad_weight(const char *k, const Operand4 &xo, dxrt_memref4 *wd, const Operand4 &dyo, dxrt_memref4 *yd,
                         dxrt_memref4 *dwd, const ConvArgs &a) {
  forward(k, xo, wd, yd, a);
  grad_weight(k, dyo, xo, dwd, a);
}

Operand4 f32(dxrt_memref4 *m, const char *k, const char *arg) { return fp32_operand(m, k, arg); }
Operand4 b16(dxrt_memref4_bf16 *m, const char *k, const char *arg) { return bf16_operand<dxrt_memref4>(m, k, arg); }

} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd,
                                                      DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward";
  forward(k, f32(xd, k, "x"), wd, yd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_input(dxrt_memref4 *dyd, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                                                         DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_input";
  grad_input(k, f32(dyd, k, "dy"), wd, dxd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_weight(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dwd,
                                                          DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_weight";
  grad_weight(k, f32(dyd, k, "dy"), f32(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_backward(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                       dxrt_memref4 *dxd, dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_backward";
  backward(k, f32(dyd, k, "dy"), f32(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *dyd,
                                                                  dxrt_memref4 *yd, dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward_grad_weight";
  forward_grad_weight(k, f32(xd, k, "x"), wd, f32(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward_bf16x(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd,
                                                            DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward_bf16x";
  forward(k, b16(xd, k, "x"), wd, yd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_input_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *wd,
                                                                dxrt_memref4 *dxd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_input_bf16dy";
  grad_input(k, b16(dyd, k, "dy"), wd, dxd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16x(dxrt_memref4 *dyd, dxrt_memref4_bf16 *xd,
                                                                dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_weight_bf16x";
  grad_weight(k, f32(dyd, k, "dy"), b16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *xd,
                                                                 dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_weight_bf16dy";
  grad_weight(k, b16(dyd, k, "dy"), f32(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16xdy(dxrt_memref4_bf16 *dyd, dxrt_memref4_bf16 *xd,
                                                                  dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_grad_weight_bf16xdy";
  grad_weight(k, b16(dyd, k, "dy"), b16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16x(dxrt_memref4 *dyd, dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                             dxrt_memref4 *dxd, dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_backward_bf16x";
  backward(k, f32(dyd, k, "dy"), b16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *xd,
                                                              dxrt_memref4 *wd, dxrt_memref4 *dxd, dxrt_memref4 *dwd,
                                                              DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_backward_bf16dy";
  backward(k, b16(dyd, k, "dy"), f32(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_backward_bf16xdy(dxrt_memref4_bf16 *dyd, dxrt_memref4_bf16 *xd,
                                                               dxrt_memref4 *wd, dxrt_memref4 *dxd, dxrt_memref4 *dwd,
                                                               DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_backward_bf16xdy";
  backward(k, b16(dyd, k, "dy"), b16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16x(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                                        dxrt_memref4 *dyd, dxrt_memref4 *yd,
                                                                        dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward_grad_weight_bf16x";
  forward_grad_weight(k, b16(xd, k, "x"), wd, f32(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16dy(dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                                         dxrt_memref4_bf16 *dyd, dxrt_memref4 *yd,
                                                                         dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward_grad_weight_bf16dy";
  forward_grad_weight(k, f32(xd, k, "x"), wd, b16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16xdy(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                                          dxrt_memref4_bf16 *dyd, dxrt_memref4 *yd,
                                                                          dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_cuda_conv2d_forward_grad_weight_bf16xdy";
  forward_grad_weight(k, b16(xd, k, "x"), wd, b16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_cuda_conv3d_forward(dxrt_memref5 *xd, dxrt_memref5 *wd, dxrt_memref5 *yd,
                                                      int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                      int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                      int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_cuda_conv3d_forward";
  Tensor5 x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups);
  guard(k, [&] { run(k, kForward, from_geometry(g), x.p, w.p, y.p); });
}

extern "C" void _mlir_ciface_dxrt_cuda_conv3d_grad_input(dxrt_memref5 *dyd, dxrt_memref5 *wd, dxrt_memref5 *dxd,
                                                         int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                         int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                         int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_cuda_conv3d_grad_input";
  Tensor5 dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups);
  guard(k, [&] { run(k, kGradInput, from_geometry(g), dx.p, w.p, dy.p); });
}

extern "C" void _mlir_ciface_dxrt_cuda_conv3d_grad_weight(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *dwd,
                                                          int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                          int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                          int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_cuda_conv3d_grad_weight";
  Tensor5 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  guard(k, [&] { run(k, kGradWeight, from_geometry(g), x.p, dw.p, dy.p); });
}

// Both gradients from one dy (dxrt_conv3d_backward's twin), as the two calls above.
extern "C" void _mlir_ciface_dxrt_cuda_conv3d_backward(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *wd,
                                                       dxrt_memref5 *dxd, dxrt_memref5 *dwd, int64_t sd, int64_t sh,
                                                       int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                                       int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t ddw,
                                                       int64_t groups) {
  _mlir_ciface_dxrt_cuda_conv3d_grad_input(dyd, wd, dxd, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  _mlir_ciface_dxrt_cuda_conv3d_grad_weight(dyd, xd, dwd, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
}

// dxrt_conv3d_forward_grad_weight's twin, as the two calls.
extern "C" void _mlir_ciface_dxrt_cuda_conv3d_forward_grad_weight(dxrt_memref5 *xd, dxrt_memref5 *wd,
                                                                  dxrt_memref5 *dyd, dxrt_memref5 *yd,
                                                                  dxrt_memref5 *dwd, int64_t sd, int64_t sh,
                                                                  int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                                                                  int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                                  int64_t dh, int64_t ddw, int64_t groups) {
  _mlir_ciface_dxrt_cuda_conv3d_forward(xd, wd, yd, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  _mlir_ciface_dxrt_cuda_conv3d_grad_weight(dyd, xd, dwd, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
}
