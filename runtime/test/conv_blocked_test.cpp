// The dxrt_conv2d_*_blocked kernels (kernels/Conv2dBlocked.cpp) against the
// NCHW kernels on the same data: in nChw16c and in nChw8c, every activation
// with a multiple of the block's channels blocked, the others in NCHW
// ([N, C, H, W, 1]), on oneDNN (the blocked layout it computes in needs no
// reorder) and on im2col (through NCHW copies). Both must give the NCHW
// kernels' values bit for bit: the same primitives or GEMMs run on the same
// numbers, only the copies around them differ. The direct kernel for few
// input channels is off here (it has no blocked variant: oneDNN takes those
// layers, with other roundings).
#include "dxrt/kernels.h"
#include "kernels/Conv2d.h"
#include "kernels/BlockedLayout.h"
#include "kernels/Onednn.h"

#include <gtest/gtest.h>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

namespace {

// 64-byte aligned storage, as generated code's workspace: a GEMM may sum in
// another order for another alignment of its output (the im2col path), and
// the comparisons here are bit for bit.
template <typename T> struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U> Aligned64(const Aligned64<U> &) {}
  T *allocate(size_t n) {
    void *p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t) { std::free(p); }
  template <typename U> bool operator==(const Aligned64<U> &) const { return true; }
  template <typename U> bool operator!=(const Aligned64<U> &) const { return false; }
};
using Floats = std::vector<float, Aligned64<float>>;

struct Shape {
  const char *name;
  int64_t n, c, h, w, f, k, s, pad, g = 1; // g: groups
  int64_t ho() const { return (h + 2 * pad - k) / s + 1; }
  int64_t wo() const { return (w + 2 * pad - k) / s + 1; }
};

// The CVAE's and the CNNs' layers: 1 -> 64 (x NCHW), 64 -> 64 at stride 1
// (Winograd) and 2, 64 -> 1 (y NCHW), 16 -> 32 pointwise, and 24 -> 32
// (x NCHW: 24 is no multiple of 16), and two grouped ones (2 groups;
// depthwise).
const Shape kShapes[] = {{"first", 4, 1, 22, 22, 64, 3, 1, 1},      {"winograd", 4, 64, 11, 11, 64, 3, 1, 1},
                         {"stride2", 4, 64, 22, 22, 64, 3, 2, 1},   {"last", 4, 64, 22, 22, 1, 3, 1, 1},
                         {"pointwise", 2, 16, 9, 9, 32, 1, 1, 0},   {"odd_in", 2, 24, 10, 10, 32, 3, 1, 1},
                         {"grouped", 2, 32, 10, 10, 64, 3, 1, 1, 2}, {"depthwise", 2, 32, 10, 10, 32, 3, 1, 1, 32}};

Floats rnd(int64_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Floats v(static_cast<size_t>(n));
  for (float &e : v) e = u(g);
  return v;
}

dxrt_memref4 m4(Floats &v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {v.data(), v.data(), 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

// An activation [n, c, h, w] as the _blocked kernels take it: its data in
// blocks of `block` channels where c is a multiple of it (in `store`), else
// as it is.
struct Act {
  Floats store;
  dxrt_memref5 m;
  int64_t n, c, hw, block;
  Act(const Floats &nchw, int64_t n_, int64_t c_, int64_t h, int64_t w, int64_t block_, bool may_block = true)
      : store(nchw), n(n_), c(c_), hw(h * w), block(may_block && c_ % block_ == 0 ? block_ : 1) {
    if (block > 1) dxrt::nchw_to_blocked(nchw.data(), store.data(), n, c, hw, block);
    m = {store.data(), store.data(), 0, {n, c / block, h, w, block}, {c * h * w, h * w * block, w * block, block, 1}};
  }
  Floats nchw() const {
    Floats out(store);
    if (block > 1) dxrt::blocked_to_nchw(store.data(), out.data(), n, c, hw, block);
    return out;
  }
};

void expect_same(const Floats &want, const Floats &got, const std::string &what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float))) << what;
}

class ConvBlockedTest : public ::testing::TestWithParam<std::tuple<Shape, dxrt::ConvBackend, int64_t>> {
protected:
  void SetUp() override {
    // One oneDNN thread from the first product on, as the kernels run: the
    // im2col path's sgemm before that may split a sum over threads.
    dxrt::onednn_one_thread();
    dxrt::set_conv_backend(std::get<1>(GetParam()));
    dxrt::set_conv_direct(false);
  }
  void TearDown() override {
    dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn);
    dxrt::set_conv_direct(true);
  }
};

// The NCHW kernels' y, dx and dw on random x, w, dy of the shape.
struct Reference {
  const Shape p;
  const int64_t xs, ys, ws;
  Floats x, w, dy, y, dx, dw;
  const int64_t block; // the channel block of blocked activations, 16 or 8
  dxrt_memref4 wd;
  Reference(const Shape &shape, unsigned seed, int64_t block_)
      : p(shape), xs(p.n * p.c * p.h * p.w), ys(p.n * p.f * p.ho() * p.wo()),
        ws(p.f * (p.c / p.g) * p.k * p.k),
        x(rnd(xs, seed)), w(rnd(ws, seed + 1)), dy(rnd(ys, seed + 2)), y(size_t(ys)), dx(size_t(xs)),
        dw(size_t(ws)), block(block_) {
    const int64_t s = p.s, q = p.pad;
    wd = m4(w, p.f, p.c / p.g, p.k, p.k);
    dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), dyd = m4(dy, p.n, p.f, p.ho(), p.wo()),
                 yd = m4(y, p.n, p.f, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w),
                 dwd = m4(dw, p.f, p.c / p.g, p.k, p.k);
    _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, s, s, q, q, q, q, 1, 1, p.g);
    _mlir_ciface_dxrt_conv2d_grad_input(&dyd, &wd, &dxd, s, s, q, q, q, q, 1, 1, p.g);
    _mlir_ciface_dxrt_conv2d_grad_weight(&dyd, &xd, &dwd, s, s, q, q, q, q, 1, 1, p.g);
  }
  // Fresh outputs (filled with 7, so that a kernel writing nothing shows).
  Act x_side(bool may_block = true) const {
    return Act(Floats(size_t(xs), 7.f), p.n, p.c, p.h, p.w, block, may_block);
  }
  Act y_side(bool may_block = true) const {
    return Act(Floats(size_t(ys), 7.f), p.n, p.f, p.ho(), p.wo(), block, may_block);
  }
  Floats weights() const { return Floats(size_t(ws), 7.f); }
};

TEST_P(ConvBlockedTest, EveryKernelGivesTheNchwKernelsValues) {
  Reference r(std::get<0>(GetParam()), 1, std::get<2>(GetParam()));
  const Shape &p = r.p;
  const int64_t s = p.s, q = p.pad;
  Act xb(r.x, p.n, p.c, p.h, p.w, r.block), dyb(r.dy, p.n, p.f, p.ho(), p.wo(), r.block);

  Act yb = r.y_side(), dxb = r.x_side();
  Floats dwb = r.weights();
  dxrt_memref4 dwbd = m4(dwb, p.f, p.c / p.g, p.k, p.k);
  _mlir_ciface_dxrt_conv2d_forward_blocked(&xb.m, &r.wd, &yb.m, s, s, q, q, q, q, 1, 1, p.g);
  expect_same(r.y, yb.nchw(), "forward y");
  _mlir_ciface_dxrt_conv2d_grad_input_blocked(&dyb.m, &r.wd, &dxb.m, s, s, q, q, q, q, 1, 1, p.g);
  expect_same(r.dx, dxb.nchw(), "grad_input dx");
  _mlir_ciface_dxrt_conv2d_grad_weight_blocked(&dyb.m, &xb.m, &dwbd, s, s, q, q, q, q, 1, 1, p.g);
  expect_same(r.dw, dwb, "grad_weight dw");

  Act dxb2 = r.x_side();
  Floats dw2 = r.weights();
  dxrt_memref4 dw2d = m4(dw2, p.f, p.c / p.g, p.k, p.k);
  _mlir_ciface_dxrt_conv2d_backward_blocked(&dyb.m, &xb.m, &r.wd, &dxb2.m, &dw2d, s, s, q, q, q, q, 1, 1,
                                            p.g);
  expect_same(r.dx, dxb2.nchw(), "backward dx");
  expect_same(r.dw, dw2, "backward dw");

  Act yb2 = r.y_side();
  Floats dw3 = r.weights();
  dxrt_memref4 dw3d = m4(dw3, p.f, p.c / p.g, p.k, p.k);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(&xb.m, &r.wd, &dyb.m, &yb2.m, &dw3d, s, s, q, q, q, q, 1, 1,
                                                       p.g);
  expect_same(r.y, yb2.nchw(), "forward_grad_weight y");
  expect_same(r.dw, dw3, "forward_grad_weight dw");
}

// The two activations of one side in different layouts (dx in NCHW beside
// a blocked x; dy in NCHW beside a blocked y): each direction takes its own.
TEST_P(ConvBlockedTest, OneSideInTwoLayouts) {
  Reference r(std::get<0>(GetParam()), 5, std::get<2>(GetParam()));
  const Shape &p = r.p;
  const int64_t s = p.s, q = p.pad;
  Act xb(r.x, p.n, p.c, p.h, p.w, r.block), dyb(r.dy, p.n, p.f, p.ho(), p.wo(), r.block);

  Act dxp = r.x_side(/*may_block=*/false);
  Floats dw2 = r.weights();
  dxrt_memref4 dw2d = m4(dw2, p.f, p.c / p.g, p.k, p.k);
  _mlir_ciface_dxrt_conv2d_backward_blocked(&dyb.m, &xb.m, &r.wd, &dxp.m, &dw2d, s, s, q, q, q, q, 1, 1, p.g);
  expect_same(r.dx, dxp.nchw(), "backward dx (NCHW beside a blocked x)");
  expect_same(r.dw, dw2, "backward dw");

  Act yb = r.y_side();
  Act dyp(r.dy, p.n, p.f, p.ho(), p.wo(), r.block, /*may_block=*/false);
  Floats dw3 = r.weights();
  dxrt_memref4 dw3d = m4(dw3, p.f, p.c / p.g, p.k, p.k);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(&xb.m, &r.wd, &dyp.m, &yb.m, &dw3d, s, s, q, q, q, q, 1, 1,
                                                       p.g);
  expect_same(r.y, yb.nchw(), "forward_grad_weight y");
  expect_same(r.dw, dw3, "forward_grad_weight dw (dy in NCHW beside a blocked y)");
}

// With both sides in the block oneDNN computes in (16 for its AVX-512
// kernels, 8 for its AVX2 ones), oneDNN reorders only the weights; in NCHW
// it reorders x and y too.
TEST(ConvBlocked, OnednnTakesBlockedActivationsAsTheyAre) {
  dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn);
  int checked = 0;
  for (const Shape &p : {kShapes[1], kShapes[2]}) {
    for (const int block8 : {0, int(dxrt::kBlock8)}) {
      const dxrt::ConvGeometry g = {p.n, p.c, p.h, p.w, p.f, p.k, p.k, p.ho(), p.wo(), p.s, p.s,
                                    p.pad, p.pad, p.pad, p.pad, 1, 1, 1, p.c, p.f};
      const int both = dxrt::kXSideBlocked | dxrt::kYSideBlocked | block8;
      for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
        const char *impl = dxrt::conv2d_onednn_impl(dir, g, both);
        ASSERT_NE(impl, nullptr) << p.name;
        const int blocked = dxrt::conv2d_onednn_reorders(dir, g, both), plain = dxrt::conv2d_onednn_reorders(dir, g);
        EXPECT_LE(blocked, plain) << p.name << " " << impl;
        const std::string i(impl);
        const bool avx512 = i.find("avx512") != std::string::npos, avx2 = i.find("avx2") != std::string::npos;
        if (block8 ? avx2 && !avx512 : avx512) {
          ++checked;
          EXPECT_LE(blocked, 1) << p.name << " direction " << int(dir) << ": " << impl;
          EXPECT_EQ(plain, blocked + 2) << p.name << " direction " << int(dir) << ": " << impl;
        }
      }
    }
  }
  // Every x86 CPU with AVX2 runs one of the two: the check is not vacuous there.
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_GT(checked, 0);
  }
}

TEST(ConvBlocked, LayoutConversionsRoundTrip) {
  const int64_t n = 3, c = 48, hw = 7 * 5;
  auto x = rnd(n * c * hw, 4);
  for (const int64_t block : {16, 8}) {
    const std::string b_s = " (block " + std::to_string(block) + ")";
    Floats b(x.size()), back(x.size());
    dxrt::nchw_to_blocked(x.data(), b.data(), n, c, hw, block);
    // Element (1, 17, 3): block 17 / B, lane 17 % B, at ((1 * C/B + 17/B) * hw + 3) * B + 17 % B.
    EXPECT_EQ(b[size_t(((1 * (c / block) + 17 / block) * hw + 3) * block + 17 % block)],
              x[size_t((1 * c + 17) * hw + 3)])
        << b_s;
    dxrt::blocked_to_nchw(b.data(), back.data(), n, c, hw, block);
    expect_same(x, back, "round trip" + b_s);
    dxrt_memref4 xd = m4(x, n, c, 7, 5);
    Floats viaKernel(x.size()), viaKernelBack(x.size());
    dxrt_memref5 bd = {viaKernel.data(), viaKernel.data(), 0, {n, c / block, 7, 5, block},
                       {c * hw, hw * block, 5 * block, block, 1}};
    dxrt_memref4 backd = m4(viaKernelBack, n, c, 7, 5);
    _mlir_ciface_dxrt_nchw_to_blocked(&xd, &bd);
    expect_same(b, viaKernel, "dxrt_nchw_to_blocked" + b_s);
    _mlir_ciface_dxrt_blocked_to_nchw(&bd, &backd);
    expect_same(x, viaKernelBack, "dxrt_blocked_to_nchw" + b_s);
  }
}

TEST(ConvBlockedDeathTest, ABlockOtherThan16Or8Or1AbortsNamingTheKernel) {
  Floats x(2 * 32 * 4 * 4), w(8 * 32 * 9), y(2 * 8 * 4 * 4);
  dxrt_memref5 xd = {x.data(), x.data(), 0, {2, 8, 4, 4, 4}, {512, 64, 16, 4, 1}};
  dxrt_memref4 wd = m4(w, 8, 32, 3, 3);
  dxrt_memref5 yd = {y.data(), y.data(), 0, {2, 8, 4, 4, 1}, {128, 16, 4, 1, 1}};
  EXPECT_DEATH(_mlir_ciface_dxrt_conv2d_forward_blocked(&xd, &wd, &yd, 1, 1, 1, 1, 1, 1, 1, 1, 1),
               "dxrt_conv2d_forward_blocked.*'x' is neither nChw16c, nChw8c nor NCHW");
  // Two blocked sides in different blocks.
  Floats y8(2 * 8 * 4 * 4);
  dxrt_memref5 x16 = {x.data(), x.data(), 0, {2, 2, 4, 4, 16}, {512, 256, 64, 16, 1}},
               y8d = {y8.data(), y8.data(), 0, {2, 1, 4, 4, 8}, {128, 128, 32, 8, 1}};
  EXPECT_DEATH(_mlir_ciface_dxrt_conv2d_forward_blocked(&x16, &wd, &y8d, 1, 1, 1, 1, 1, 1, 1, 1, 1),
               "dxrt_conv2d_forward_blocked.*x side is in blocks of 16 channels but the y side in blocks of 8");
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvBlockedTest,
                         ::testing::Combine(::testing::ValuesIn(kShapes),
                                            ::testing::Values(dxrt::ConvBackend::kOnednn,
                                                              dxrt::ConvBackend::kIm2col),
                                            ::testing::Values(16, 8)),
                         [](const auto &info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) == dxrt::ConvBackend::kOnednn ? "_onednn" : "_im2col") +
                                  "_nchw" + std::to_string(std::get<2>(info.param)) + "c";
                         });

} // namespace
