// Convolution on oneDNN. For each geometry (direction, shapes, stride,
// padding, dilation, groups) the first call creates the primitive and
// everything it runs with, and caches it; later calls only point the cached
// memory objects at their tensors and execute, so a training step allocates
// nothing in libdxrt (oneDNN itself allocates a few small objects per
// execution; see runtime/README.md).
//
// Layouts: the primitive is created with the layouts oneDNN prefers
// (format_tag::any: channel blocks of 16 on AVX-512, 8 on AVX2, where its
// direct JIT convolutions are several times faster than GEMM), and tensors
// the caller holds in NCHW / OIHW are reordered into workspace slots before
// and after (activations the caller holds channel-blocked, Conv2d.h's
// BlockedSides, are not where the primitive wants that layout).
// Where those layouts would pad the channels a lot (e.g. dx of a first layer
// with one input channel, padded to 16), plain NCHW / OIHW is used instead,
// for which oneDNN runs its own im2col + GEMM. oneDNN's reference
// implementations are slower than our im2col path: those geometries, and
// any it rejects, return false and run on im2col.
//
// In bf16 precision (Precision.h) the primitive's inputs are bf16 (x and w
// forward, w and dy for dx, x and dy for dw) and its output fp32: the
// reorders into the primitive's layout round them on the way, so the
// conversion costs no pass of its own, and the blocked copies are half the
// bytes. A geometry oneDNN has no fast bf16 kernel for runs on im2col, whose
// GEMM is bf16 too (Blas.h).
//
// Algorithm: 3x3 convolutions of stride 1 with enough channels run
// oneDNN's Winograd F(4x4, 3x3) kernels (all three directions), which do
// about half the multiplications of the direct ones: 64 -> 64 channels at
// 11x11, batch 64, on one AVX-512 core, 5.0 -> 2.4 ms forward, 4.7 -> 2.3 ms
// for dx and 5.2 -> 2.6 ms for dw. Fewer than 16 channels on a side, fewer
// than 512 channel pairs (16 -> 16) and outputs under 4x4 lose
// (conv2d_winograd_pays says which geometries try it). The transforms cost accuracy: against a float64 reference the error
// of a 64-channel layer's output is about 1e-6 relative (RMS), four to five
// times the direct kernel's, far below what training notices. A geometry
// whose Winograd kernel would want a scratchpad of more than its x and y
// plus kWinogradScratchpad bytes (large batches of large images), or that
// oneDNN has no Winograd kernel for (no AVX-512, bf16), runs direct.
// DXRT_CONV_ALGORITHM=direct turns it off.
//
// 3-D convolutions (ConvGeometry::spatial == 3) are the same code on 5-D
// descriptors (NCDHW / OIDHW / GOIDHW, three strides, dilations and pads);
// 2-D ones keep their 4-D descriptors, so oneDNN picks the same kernels
// for them as before depth existed. Winograd is 2-D only.
#include "kernels/Conv2d.h"
#include "kernels/Onednn.h"
#include "kernels/Precision.h"
#include "kernels/Workspace.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace dxrt {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

// Primitives cached per thread. A training run needs up to 3 per conv layer
// and batch size (ResNet-50: about 70 for training, 25 more per evaluation
// batch size); past this, the least recently used one is replaced.
constexpr int kCacheSize = 256;
// Layouts that pad a tensor to more than this many times its size are not
// worth it (see above).
constexpr double kMaxPadding = 2.0;
// Winograd's scratchpad beyond the size of x and y that is still worth it.
constexpr double kWinogradScratchpad = 32.0 * (1 << 20);

// -1 until the first call reads DXRT_CONV_ALGORITHM. Atomic: the inference
// library may make its first convolution on several threads at once.
std::atomic<int> g_algorithm{-1};

ConvAlgorithm algorithm_from_env() {
  const char *v = std::getenv("DXRT_CONV_ALGORITHM");
  if (!v || !*v || std::strcmp(v, "auto") == 0) return ConvAlgorithm::kAuto;
  if (std::strcmp(v, "direct") == 0) return ConvAlgorithm::kDirect;
  if (std::strcmp(v, "winograd") == 0) return ConvAlgorithm::kWinograd;
  throw Error(str("DXRT_CONV_ALGORITHM=", v, " names no convolution algorithm"),
              "set DXRT_CONV_ALGORITHM to auto (the default), direct or winograd, or unset it", __FILE__, __LINE__);
}

const char *kernel_name(ConvDir dir, const ConvGeometry &g) {
  const bool three = g.spatial == 3;
  switch (dir) {
  case ConvDir::kForward: return three ? "dxrt_conv3d_forward" : "dxrt_conv2d_forward";
  case ConvDir::kGradInput: return three ? "dxrt_conv3d_grad_input" : "dxrt_conv2d_grad_input";
  case ConvDir::kGradWeight: return three ? "dxrt_conv3d_grad_weight" : "dxrt_conv2d_grad_weight";
  }
  return three ? "dxrt_conv3d" : "dxrt_conv2d";
}

// The geometry's inputs (the output sizes follow from them); spatial tells a
// 2-D convolution from a 3-D one of depth 1, which have different
// descriptors; and the precision.
struct Key {
  int64_t v[27];
  bool operator==(const Key &o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};

Key key_of(ConvDir dir, const ConvGeometry &g, int blocked) {
  return {{int64_t(dir), g.n, g.c, g.h, g.w, g.f, g.kh, g.kw, g.sh, g.sw, g.pt, g.pb, g.pl, g.pr, g.dh, g.dw,
           g.groups, g.spatial, g.d, g.kd, g.sd, g.pf, g.pk, g.dd, int64_t(matmul_precision()),
           int64_t(conv_algorithm()), blocked}};
}

// A primitive and its scratchpad memory (scratchpad_mode::user, over the
// scratchpad workspace slot: in library mode oneDNN may allocate one per
// execution).
struct Prim {
  dnnl::primitive p;
  memory scratchpad;
  size_t scratchpad_bytes = 0;
};

// One of the three tensors: `user` over the caller's NCHW / OIHW pointer and,
// when the primitive wants another layout, `inner` over a workspace slot and
// the reorder between them (user -> inner for an input, inner -> user for
// the output).
struct Operand {
  memory user, inner;
  size_t inner_bytes = 0;
  int slot = 0;
  Prim reorder;
};

struct Entry {
  Key key{};
  bool used = false;
  bool ok = false; // false: oneDNN has no (fast) implementation: im2col
  uint64_t last_use = 0;
  std::string impl;
  Prim conv;
  Operand ops[3]; // x side, w side, y side (Conv2d.h)
  int args[3] = {0, 0, 0};
  int output = 0; // which of ops the primitive writes
};

struct Cache {
  Entry entries[kCacheSize];
  uint64_t clock = 0;
};

Cache &cache() {
  // Never freed, as the engine its primitives use (Onednn.cpp).
  thread_local Cache *c = new Cache;
  return *c;
}

void init_scratchpad(Prim &p, const dnnl::primitive_desc_base &pd) {
  p.scratchpad_bytes = onednn_scratchpad(pd, &p.scratchpad);
}

// The memory descriptors of the geometry: x, w, y, in `plain` layouts or
// oneDNN's choice; with `bf16`, the inputs of direction `dir` are bf16.
struct Descs {
  memory::desc x, w, y;
};

// Which of x, w, y the direction reads.
bool is_input(ConvDir dir, int i) {
  switch (dir) {
  case ConvDir::kForward: return i != 2;
  case ConvDir::kGradInput: return i != 0;
  case ConvDir::kGradWeight: return i != 1;
  }
  return true;
}

Descs descs(const ConvGeometry &g, bool plain, ConvDir dir = ConvDir::kForward, bool bf16 = false) {
  auto type = [&](int i) { return bf16 && is_input(dir, i) ? memory::data_type::bf16 : memory::data_type::f32; };
  Descs d;
  if (g.spatial == 3) {
    tag act = plain ? tag::ncdhw : tag::any;
    d.x = memory::desc({g.n, g.c, g.d, g.h, g.w}, type(0), act);
    d.y = memory::desc({g.n, g.f, g.od, g.ho, g.wo}, type(2), act);
    if (g.groups == 1)
      d.w = memory::desc({g.f, g.c, g.kd, g.kh, g.kw}, type(1), plain ? tag::oidhw : tag::any);
    else
      d.w = memory::desc({g.groups, g.fg, g.cg, g.kd, g.kh, g.kw}, type(1), plain ? tag::goidhw : tag::any);
    return d;
  }
  tag act = plain ? tag::nchw : tag::any;
  d.x = memory::desc({g.n, g.c, g.h, g.w}, type(0), act);
  d.y = memory::desc({g.n, g.f, g.ho, g.wo}, type(2), act);
  if (g.groups == 1)
    d.w = memory::desc({g.f, g.c, g.kh, g.kw}, type(1), plain ? tag::oihw : tag::any);
  else
    d.w = memory::desc({g.groups, g.fg, g.cg, g.kh, g.kw}, type(1), plain ? tag::goihw : tag::any);
  return d;
}

// The primitive descriptor of the direction, in `plain` layouts or oneDNN's
// choice, with algorithm `alg`; throws dnnl::error when oneDNN has no
// implementation. oneDNN counts dilation from 0 (no gaps), PyTorch from 1.
// The forward descriptor a backward direction is created with (oneDNN's
// hint) has the forward's data types and algorithm.
dnnl::primitive_desc_base primitive_desc(ConvDir dir, const ConvGeometry &g, bool plain, bool bf16,
                                         dnnl::algorithm alg = dnnl::algorithm::convolution_direct) {
  const Descs d = descs(g, plain, dir, bf16), f = descs(g, plain, ConvDir::kForward, bf16);
  const Onednn &o = onednn();
  const bool three = g.spatial == 3;
  const memory::dims strides = three ? memory::dims{g.sd, g.sh, g.sw} : memory::dims{g.sh, g.sw},
                     dilates = three ? memory::dims{g.dd - 1, g.dh - 1, g.dw - 1} : memory::dims{g.dh - 1, g.dw - 1},
                     pad_l = three ? memory::dims{g.pf, g.pt, g.pl} : memory::dims{g.pt, g.pl},
                     pad_r = three ? memory::dims{g.pk, g.pb, g.pr} : memory::dims{g.pb, g.pr};
  dnnl::primitive_attr attr = onednn_user_scratchpad();
  dnnl::convolution_forward::primitive_desc fwd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, f.x, f.w, f.y, strides, dilates, pad_l,
                                      pad_r),
      attr, o.engine);
  switch (dir) {
  case ConvDir::kForward: return fwd;
  case ConvDir::kGradInput:
    return dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(alg, d.x, d.w, d.y, strides, dilates, pad_l, pad_r), attr, o.engine,
        fwd);
  case ConvDir::kGradWeight:
    return dnnl::convolution_backward_weights::primitive_desc(
        dnnl::convolution_backward_weights::desc(alg, d.x, d.w, d.y, strides, dilates, pad_l, pad_r), attr,
        o.engine, fwd);
  }
  return fwd;
}

// The execution argument of each of x, w, y.
void arg_ids(ConvDir dir, int (&args)[3], int &output) {
  switch (dir) {
  case ConvDir::kForward:
    args[0] = DNNL_ARG_SRC, args[1] = DNNL_ARG_WEIGHTS, args[2] = DNNL_ARG_DST, output = 2;
    break;
  case ConvDir::kGradInput:
    args[0] = DNNL_ARG_DIFF_SRC, args[1] = DNNL_ARG_WEIGHTS, args[2] = DNNL_ARG_DIFF_DST, output = 0;
    break;
  case ConvDir::kGradWeight:
    args[0] = DNNL_ARG_SRC, args[1] = DNNL_ARG_DIFF_WEIGHTS, args[2] = DNNL_ARG_DIFF_DST, output = 1;
    break;
  }
}

bool is_reference(const char *impl) { return std::strncmp(impl, "ref", 3) == 0; }

// Whether pd's layout of x or y pads it by more than kMaxPadding.
bool padded_much(const dnnl::primitive_desc_base &pd, const int (&args)[3], const Descs &plain) {
  return double(pd.query_md(dnnl::query::exec_arg_md, args[0]).get_size()) > kMaxPadding * double(plain.x.get_size()) ||
         double(pd.query_md(dnnl::query::exec_arg_md, args[2]).get_size()) > kMaxPadding * double(plain.y.get_size());
}

// Whether oneDNN's Winograd kernels are right for the geometry: 3x3, stride
// and dilation 1, one group, the same padding on every side (0 or 1).
// oneDNN 2.6 accepts unequal padding, and its input gradient is then wrong
// (conv_test's UnequalPaddingRunsDirect).
bool winograd_correct(const ConvGeometry &g) {
  return g.spatial == 2 && g.groups == 1 && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 &&
         g.dw == 1 && g.pt == g.pb && g.pl == g.pr && g.pt == g.pl && g.pt <= 1;
}

// Whether to try Winograd on the geometry (see the top of the file).
bool tries_winograd(const ConvGeometry &g, bool bf16) {
  if (bf16 || g.spatial != 2) return false;
  switch (conv_algorithm()) {
  case ConvAlgorithm::kAuto: return conv2d_winograd_pays(g);
  case ConvAlgorithm::kDirect: return false;
  case ConvAlgorithm::kWinograd: return winograd_correct(g);
  }
  return false;
}

// oneDNN's Winograd primitive of the direction, or an empty one where it has
// none, or (under kAuto) where its scratchpad is too large.
dnnl::primitive_desc_base winograd(ConvDir dir, const ConvGeometry &g, const Descs &plain) {
  try {
    dnnl::primitive_desc_base pd =
        primitive_desc(dir, g, false, false, dnnl::algorithm::convolution_winograd);
    const double budget = kWinogradScratchpad + double(plain.x.get_size()) + double(plain.y.get_size());
    if (is_reference(pd.impl_info_str())) return {};
    if (conv_algorithm() == ConvAlgorithm::kAuto && double(pd.scratchpad_desc().get_size()) > budget) return {};
    return pd;
  } catch (const dnnl::error &) {
    return {};
  }
}

// The caller's tensors: fp32 NCHW / OIHW, with the sides `blocked` names
// (Conv2d.h) in nChw16c or nChw8c, the layouts oneDNN's AVX-512 and AVX2
// kernels work in, and x / dy in bf16 with kXSideBf16 / kYSideBf16 (in bf16
// precision then read without a reorder where the layout is the primitive's).
Descs user_descs(const ConvGeometry &g, int blocked) {
  Descs d = descs(g, true);
  const tag b = channel_block(blocked) == 8 ? tag::nChw8c : tag::nChw16c;
  const auto side = [&](memory::dims dims, int blockedBit, int bf16Bit) {
    return memory::desc(dims, blocked & bf16Bit ? memory::data_type::bf16 : memory::data_type::f32,
                        blocked & blockedBit ? b : tag::nchw);
  };
  if (blocked & (kXSideBlocked | kXSideBf16)) d.x = side({g.n, g.c, g.h, g.w}, kXSideBlocked, kXSideBf16);
  if (blocked & (kYSideBlocked | kYSideBf16)) d.y = side({g.n, g.f, g.ho, g.wo}, kYSideBlocked, kYSideBf16);
  return d;
}

// Builds e's primitive, operands and reorders; false when oneDNN has no
// implementation that beats im2col. Throws dnnl::error from oneDNN.
bool build(Entry &e, ConvDir dir, const ConvGeometry &g, int blocked) {
  const Onednn &o = onednn();
  const bool bf16 = matmul_precision() == Precision::kBf16;
  arg_ids(dir, e.args, e.output);
  const Descs plain = descs(g, true); // sizes, for the choices below
  dnnl::primitive_desc_base pd;
  bool found = false;
  if (tries_winograd(g, bf16)) {
    pd = winograd(dir, g, plain);
    found = bool(pd);
  }
  if (!found) {
    try {
      pd = primitive_desc(dir, g, false, bf16);
      found = !is_reference(pd.impl_info_str()) && !padded_much(pd, e.args, descs(g, true, dir, bf16));
    } catch (const dnnl::error &) {
    }
  }
  if (!found) {
    try {
      dnnl::primitive_desc_base flat = primitive_desc(dir, g, true, bf16);
      if (!is_reference(flat.impl_info_str())) pd = flat, found = true;
    } catch (const dnnl::error &) {
    }
  }
  // Past both: a padded choice still beats a reference or no implementation.
  if (!found && (!pd || is_reference(pd.impl_info_str()))) return false;

  e.impl = pd.impl_info_str();
  e.conv.p = dnnl::primitive(pd.get());
  init_scratchpad(e.conv, pd);
  const Descs caller = user_descs(g, blocked);
  const memory::desc user[3] = {caller.x, caller.w, caller.y};
  const int slots[3] = {kSlotSrc, kSlotWeights, kSlotDst};
  for (int i = 0; i < 3; ++i) {
    Operand &op = e.ops[i];
    op.user = memory(user[i], o.engine, nullptr);
    memory::desc want = pd.query_md(dnnl::query::exec_arg_md, e.args[i]);
    if (want == user[i]) continue;
    op.inner = memory(want, o.engine, nullptr);
    op.inner_bytes = want.get_size();
    op.slot = slots[i];
    bool out = i == e.output;
    dnnl::reorder::primitive_desc rpd(o.engine, out ? want : user[i], o.engine, out ? user[i] : want,
                                      onednn_user_scratchpad());
    op.reorder.p = dnnl::reorder(rpd);
    init_scratchpad(op.reorder, rpd);
  }
  return true;
}

// The cached entry of the geometry, created on a miss (replacing the least
// recently used one when the cache is full).
Entry &entry(ConvDir dir, const ConvGeometry &g, int blocked = 0) {
  Cache &c = cache();
  const Key key = key_of(dir, g, blocked);
  bool hit = false;
  Entry &e = onednn_cache_slot(c.entries, c.clock, key, hit);
  if (hit) return e;
  e = Entry();
  e.key = key;
  e.used = true;
  e.last_use = ++c.clock;
  try {
    e.ok = build(e, dir, g, blocked);
  } catch (const dnnl::error &) {
    e = Entry();
    e.key = key, e.used = true, e.last_use = c.clock; // rejected: remembered, so not retried
  } catch (const std::bad_alloc &) {
    fatal(__FILE__, __LINE__, str(kernel_name(dir, g), ": out of memory creating a oneDNN convolution"),
          "a smaller batch needs less");
  }
  return e;
}

void exec_reorder(const char *k, const Operand &op, bool to_inner) {
  const dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, (to_inner ? op.user : op.inner).get()},
                                   {DNNL_ARG_TO, (to_inner ? op.inner : op.user).get()}};
  onednn_execute(k, op.reorder.p, 2, args, op.reorder.scratchpad, op.reorder.scratchpad_bytes);
}

// Runs e on (x side, w side, y side). Operand `ready` (0: x side, 2: y side;
// -1: none) has its inner copy in its workspace slot already (made by the
// primitive just before: dy for the grad input, x for the forward) and is
// not reordered again.
void execute(ConvDir dir, const ConvGeometry &g, Entry &e, float *x, float *w, float *y, int ready = -1) {
  const char *k = kernel_name(dir, g);
  float *data[3] = {x, w, y};
  dnnl_exec_arg_t args[3];
  for (int i = 0; i < 3; ++i) {
    Operand &op = e.ops[i];
    onednn_set_data(k, op.user, data[i]);
    if (op.inner) {
      onednn_set_data(k, op.inner, workspace((op.inner_bytes + 3) / 4, op.slot));
      if (i != e.output && i != ready) exec_reorder(k, op, true);
    }
    args[i] = {e.args[i], (op.inner ? op.inner : op.user).get()};
  }
  onednn_execute(k, e.conv.p, 3, args, e.conv.scratchpad, e.conv.scratchpad_bytes);
  Operand &out = e.ops[e.output];
  if (out.inner) exec_reorder(k, out, false);
}

} // namespace

ConvAlgorithm conv_algorithm() {
  int a = g_algorithm.load(std::memory_order_relaxed);
  if (a < 0) {
    a = int(algorithm_from_env());
    g_algorithm.store(a, std::memory_order_relaxed);
  }
  return ConvAlgorithm(a);
}

void set_conv_algorithm(ConvAlgorithm a) { g_algorithm.store(int(a), std::memory_order_relaxed); }

// Measured on one AVX-512 core (oneDNN 2.6, batch 64; forward / dx / dw in
// ms, direct -> Winograd): 64 -> 64 at 11x11 5.0/4.7/5.2 -> 2.4/2.3/2.6;
// 32 -> 64 at 14x14 4.4/4.2/5.2 -> 2.9/3.1/2.8; 16 -> 64 at 16x16
// 2.8/2.8/3.2 -> 2.2/1.7/1.5; 128 -> 128 at 2x2 0.56/0.56/0.79 ->
// 1.4/1.4/1.1; 16 -> 32 at 32x32 5.9/5.9/6.6 -> 6.2/4.5/3.7; 8 -> 16 at
// 28x28 1.1/2.1/1.3 -> 1.6/1.7/1.4; 3 -> 16 at 32x32 0.7/2.7/0.6 ->
// 3.9/3.9/2.1.
bool conv2d_winograd_pays(const ConvGeometry &g) {
  return winograd_correct(g) && g.c >= 16 && g.f >= 16 && g.c * g.f >= 512 && g.ho >= 4 && g.wo >= 4;
}

bool conv2d_onednn(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y, int blocked) {
  Entry &e = entry(dir, g, blocked);
  if (!e.ok) return false;
  execute(dir, g, e, x, w, y);
  return true;
}

namespace {

// Whether `second` can read the inner copy of operand i that `first` made
// just before: both want it in the same layout in the same workspace slot,
// and `first` writes its output elsewhere. Operand 2 (dy) for the input
// gradient then the weight gradient; operand 0 (x) for the forward then the
// weight gradient.
bool shares(const Entry &first, const Entry &second, int i) {
  const Operand &a = first.ops[i], &b = second.ops[i];
  return a.inner && b.inner && a.inner.get_desc() == b.inner.get_desc() && a.slot == b.slot &&
         first.ops[first.output].slot != a.slot;
}

} // namespace

bool conv2d_backward_onednn(const ConvGeometry &g, float *x, float *w, float *dy, float *dx, float *dw, int blocked) {
  // dx, the input gradient's x side, is fp32.
  Entry &in = entry(ConvDir::kGradInput, g, blocked & ~kXSideBf16);
  // The cache is far larger than 2: `in` stays.
  Entry &wt = entry(ConvDir::kGradWeight, g, blocked);
  if (!in.ok || !wt.ok) return false;
  execute(ConvDir::kGradInput, g, in, dx, w, dy);
  execute(ConvDir::kGradWeight, g, wt, x, dw, dy, shares(in, wt, 2) ? 2 : -1);
  return true;
}

bool conv2d_backward_onednn_shares_dy(const ConvGeometry &g) {
  Entry &in = entry(ConvDir::kGradInput, g);
  Entry &wt = entry(ConvDir::kGradWeight, g);
  return in.ok && wt.ok && shares(in, wt, 2);
}

bool conv2d_forward_grad_weight_onednn(const ConvGeometry &g, float *x, float *w, float *dy, float *y, float *dw,
                                       int blocked) {
  // y, the forward's y side, is fp32.
  Entry &fw = entry(ConvDir::kForward, g, blocked & ~kYSideBf16);
  Entry &wt = entry(ConvDir::kGradWeight, g, blocked);
  if (!fw.ok || !wt.ok) return false;
  execute(ConvDir::kForward, g, fw, x, w, y);
  execute(ConvDir::kGradWeight, g, wt, x, dw, dy, shares(fw, wt, 0) ? 0 : -1);
  return true;
}

bool conv2d_forward_grad_weight_onednn_shares_x(const ConvGeometry &g) {
  Entry &fw = entry(ConvDir::kForward, g);
  Entry &wt = entry(ConvDir::kGradWeight, g);
  return fw.ok && wt.ok && shares(fw, wt, 0);
}

int conv2d_onednn_reorders(ConvDir dir, const ConvGeometry &g, int blocked) {
  Entry &e = entry(dir, g, blocked);
  if (!e.ok) return -1;
  int n = 0;
  for (const Operand &op : e.ops) n += op.inner ? 1 : 0;
  return n;
}

const char *conv2d_onednn_impl(ConvDir dir, const ConvGeometry &g, int blocked) {
  Entry &e = entry(dir, g, blocked);
  return e.ok ? e.impl.c_str() : nullptr;
}

} // namespace dxrt
