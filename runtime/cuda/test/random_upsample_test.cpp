// The device's bilinear and trilinear upsampling and Philox random fills
// against libdxrt's CPU kernels: upsampling (forward and gradient) and
// uniforms bit for bit,
// normals within 2 float ulps (CUDA's double log/cos/sin against glibc's;
// runtime/cuda/RandomKernels.cu).
#include "GpuTestUtil.h"
#include "dxrt/cuda_kernels.h"

#include <cfloat>
#include <string>

using namespace dxtest;

namespace {

// ---- bilinear upsampling ----

struct UpsampleCase {
  const char *name;
  int64_t n, c, h, w, sh, sw;
};

class Upsample : public ::testing::TestWithParam<UpsampleCase> {};

TEST_P(Upsample, ForwardAndGradMatchCpuExactly) {
  const UpsampleCase &p = GetParam();
  const int64_t ho = p.h * p.sh, wo = p.w * p.sw;
  const size_t xn = size_t(p.n * p.c * p.h * p.w), yn = size_t(p.n * p.c * ho * wo);
  std::vector<float> x = random_floats(xn, 31), dy = random_floats(yn, 32);
  std::vector<float> y(yn), dx(xn);
  dxrt_memref4 xd = m4(x.data(), p.n, p.c, p.h, p.w), yd = m4(y.data(), p.n, p.c, ho, wo),
               dyd = m4(dy.data(), p.n, p.c, ho, wo), dxd = m4(dx.data(), p.n, p.c, p.h, p.w);
  _mlir_ciface_dxrt_upsample_bilinear_forward(&xd, &yd, p.sh, p.sw);
  _mlir_ciface_dxrt_upsample_bilinear_grad(&dyd, &dxd, p.sh, p.sw);

  DeviceVec gx(x), gdy(dy), gy(yn), gdx(xn);
  DXRT_CUDA_CHECK(cudaDeviceSynchronize()); // the uploads, before the library's (non-blocking) stream reads them
  dxrt_memref4 gxd = m4(gx.p, p.n, p.c, p.h, p.w), gyd = m4(gy.p, p.n, p.c, ho, wo),
               gdyd = m4(gdy.p, p.n, p.c, ho, wo), gdxd = m4(gdx.p, p.n, p.c, p.h, p.w);
  _mlir_ciface_dxrt_cuda_upsample_bilinear_forward(&gxd, &gyd, p.sh, p.sw);
  _mlir_ciface_dxrt_cuda_upsample_bilinear_grad(&gdyd, &gdxd, p.sh, p.sw);
#ifdef __FP_FAST_FMAF
  // A host compiler that may fuse the CPU kernel's a*b + c (hardware FMA,
  // GCC's default -ffp-contract=fast) rounds differently from the device,
  // which fuses nothing.
  expect_close(gy.get(), y, 1e-6);
  expect_close(gdx.get(), dx, 1e-6);
#else
  expect_same(gy.get(), y);
  expect_same(gdx.get(), dx);
#endif
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Upsample,
    ::testing::Values(UpsampleCase{"x2", 2, 3, 8, 8, 2, 2}, UpsampleCase{"x3", 2, 3, 8, 8, 3, 3},
                      UpsampleCase{"x2_odd", 3, 5, 7, 9, 2, 2}, UpsampleCase{"x3_odd", 1, 4, 5, 11, 3, 3},
                      UpsampleCase{"x2_by_x3", 2, 2, 9, 6, 2, 3}, UpsampleCase{"x3_by_x1", 2, 3, 5, 7, 3, 1},
                      UpsampleCase{"x1", 2, 3, 6, 5, 1, 1}, UpsampleCase{"x4_tiny", 1, 2, 1, 2, 4, 4},
                      UpsampleCase{"x5_rect", 2, 3, 3, 4, 5, 2}, UpsampleCase{"unet_like", 4, 16, 17, 17, 2, 2},
                      UpsampleCase{"empty_batch", 0, 3, 4, 4, 2, 2}),
    [](const ::testing::TestParamInfo<UpsampleCase> &i) { return std::string(i.param.name); });

TEST(UpsampleDeathTest, WrongOutputShapeAbortsNamingTheKernel) {
  // The descriptor checks run before any CUDA call: no device memory needed.
  float x[4] = {}, y[16] = {};
  dxrt_memref4 xd = m4(x, 1, 1, 2, 2), yd = m4(y, 1, 1, 4, 4);
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_upsample_bilinear_forward(&xd, &yd, 3, 2),
               "dxrt_cuda_upsample_bilinear_forward: .*the output is \\[1, 1, 4, 4\\]");
}

// ---- trilinear upsampling ----

struct Upsample3dCase {
  const char *name;
  int64_t n, c, d, h, w, sd, sh, sw;
};

class Upsample3d : public ::testing::TestWithParam<Upsample3dCase> {};

TEST_P(Upsample3d, ForwardAndGradMatchCpuExactly) {
  const Upsample3dCase &p = GetParam();
  const int64_t od = p.d * p.sd, ho = p.h * p.sh, wo = p.w * p.sw;
  const size_t xn = size_t(p.n * p.c * p.d * p.h * p.w), yn = size_t(p.n * p.c * od * ho * wo);
  std::vector<float> x = random_floats(xn, 33), dy = random_floats(yn, 34);
  std::vector<float> y(yn), dx(xn);
  dxrt_memref5 xd = m5(x.data(), p.n, p.c, p.d, p.h, p.w), yd = m5(y.data(), p.n, p.c, od, ho, wo),
               dyd = m5(dy.data(), p.n, p.c, od, ho, wo), dxd = m5(dx.data(), p.n, p.c, p.d, p.h, p.w);
  _mlir_ciface_dxrt_upsample_trilinear_forward(&xd, &yd, p.sd, p.sh, p.sw);
  _mlir_ciface_dxrt_upsample_trilinear_grad(&dyd, &dxd, p.sd, p.sh, p.sw);

  DeviceVec gx(x), gdy(dy), gy(yn), gdx(xn);
  DXRT_CUDA_CHECK(cudaDeviceSynchronize()); // the uploads, before the library's (non-blocking) stream reads them
  dxrt_memref5 gxd = m5(gx.p, p.n, p.c, p.d, p.h, p.w), gyd = m5(gy.p, p.n, p.c, od, ho, wo),
               gdyd = m5(gdy.p, p.n, p.c, od, ho, wo), gdxd = m5(gdx.p, p.n, p.c, p.d, p.h, p.w);
  _mlir_ciface_dxrt_cuda_upsample_trilinear_forward(&gxd, &gyd, p.sd, p.sh, p.sw);
  _mlir_ciface_dxrt_cuda_upsample_trilinear_grad(&gdyd, &gdxd, p.sd, p.sh, p.sw);
#ifdef __FP_FAST_FMAF
  // As for bilinear: a host compiler that may fuse the CPU kernel's a*b + c
  // rounds differently from the device.
  expect_close(gy.get(), y, 1e-6);
  expect_close(gdx.get(), dx, 1e-6);
#else
  expect_same(gy.get(), y);
  expect_same(gdx.get(), dx);
#endif
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Upsample3d,
    ::testing::Values(Upsample3dCase{"x2", 2, 3, 4, 4, 4, 2, 2, 2}, Upsample3dCase{"x3", 1, 2, 4, 5, 4, 3, 3, 3},
                      Upsample3dCase{"x2_odd", 2, 3, 3, 5, 7, 2, 2, 2},
                      Upsample3dCase{"mixed_scales", 2, 2, 5, 3, 4, 1, 2, 3},
                      Upsample3dCase{"x3_by_x1_by_x2", 1, 3, 3, 4, 5, 3, 1, 2},
                      Upsample3dCase{"x1", 2, 3, 3, 4, 5, 1, 1, 1}, Upsample3dCase{"x4_tiny", 1, 2, 1, 2, 1, 4, 4, 4},
                      Upsample3dCase{"x5_rect", 1, 2, 2, 3, 4, 2, 5, 2},
                      Upsample3dCase{"unet3d_like", 2, 8, 9, 9, 9, 2, 2, 2},
                      Upsample3dCase{"empty_batch", 0, 3, 2, 4, 4, 2, 2, 2}),
    [](const ::testing::TestParamInfo<Upsample3dCase> &i) { return std::string(i.param.name); });

TEST(Upsample3dDeathTest, WrongOutputShapeAbortsNamingTheKernel) {
  // The descriptor checks run before any CUDA call: no device memory needed.
  float x[8] = {}, y[64] = {};
  dxrt_memref5 xd = m5(x, 1, 1, 2, 2, 2), yd = m5(y, 1, 1, 4, 4, 4);
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_upsample_trilinear_forward(&xd, &yd, 2, 3, 2),
               "dxrt_cuda_upsample_trilinear_forward: .*the output is \\[1, 1, 4, 4, 4\\]");
}

// ---- Philox random fills ----

dxrt_memref1 m1(float *p, int64_t n, int64_t offset = 0) { return {p, p, offset, {n}, {1}}; }

struct RandomCase {
  const char *name;
  int64_t n, seed, step, rank, stream;
};

class Random : public ::testing::TestWithParam<RandomCase> {};

// |gpu - cpu| <= k ulps of cpu, element by element.
void expect_within_ulps(const std::vector<float> &gpu, const std::vector<float> &cpu, int k) {
  ASSERT_EQ(gpu.size(), cpu.size());
  size_t differ = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    float a = std::fabs(cpu[i]), ulp = std::nextafter(a, INFINITY) - a;
    if (gpu[i] != cpu[i]) ++differ;
    if (!(std::fabs(gpu[i] - cpu[i]) <= float(k) * ulp)) {
      ADD_FAILURE() << "element " << i << ": gpu " << gpu[i] << ", cpu " << cpu[i] << " (more than " << k << " ulps)";
      return;
    }
  }
  if (differ) std::printf("%zu of %zu normals one or two ulps from the CPU's\n", differ, cpu.size());
}

TEST_P(Random, UniformBitForBitNormalWithinTwoUlps) {
  const RandomCase &p = GetParam();
  const size_t n = size_t(p.n);
  std::vector<float> u(n), z(n);
  dxrt_memref1 ud = m1(u.data(), p.n), zd = m1(z.data(), p.n);
  _mlir_ciface_dxrt_random_uniform(&ud, p.seed, p.step, p.rank, p.stream);
  _mlir_ciface_dxrt_random_normal(&zd, p.seed, p.step, p.rank, p.stream);

  DeviceVec gu(n), gz(n);
  DXRT_CUDA_CHECK(cudaDeviceSynchronize());
  dxrt_memref1 gud = m1(gu.p, p.n), gzd = m1(gz.p, p.n);
  _mlir_ciface_dxrt_cuda_random_uniform(&gud, p.seed, p.step, p.rank, p.stream);
  _mlir_ciface_dxrt_cuda_random_normal(&gzd, p.seed, p.step, p.rank, p.stream);
  expect_same(gu.get(), u);
  expect_within_ulps(gz.get(), z, 2);
}

INSTANTIATE_TEST_SUITE_P(
    Streams, Random,
    ::testing::Values(RandomCase{"one", 1, 1, 1, 0, 0}, RandomCase{"three", 3, 7, 2, 1, 5},
                      RandomCase{"five", 5, 7, 2, 1, 5}, RandomCase{"n255", 255, 42, 3, 0, 9},
                      RandomCase{"n257", 257, 42, 3, 0, 9}, RandomCase{"n1001", 1001, 123456789, 17, 3, 2},
                      RandomCase{"n65537", 65537, 5, 1000, 0, 11},
                      // A seed above 2^32 and the runtime rank (all 32 bits set).
                      RandomCase{"wide_key", 4099, int64_t(0x123456789abcdefLL), 1, 0xFFFFFFFFLL, 4}),
    [](const ::testing::TestParamInfo<RandomCase> &i) { return std::string(i.param.name); });

TEST(RandomGridStride, MoreBlocksOfFourThanTheGridHasThreads) {
  // 65535 blocks of 256 threads, each thread one block of four elements at a
  // time: this fill needs a second pass of the grid-stride loop (uniform
  // only: the normals' loop is the same, and 67M CPU normals take seconds).
  const int64_t n = int64_t(65535) * 256 * 4 + 4 * 1000 + 3;
  std::vector<float> u(static_cast<size_t>(n));
  dxrt_memref1 ud = m1(u.data(), n);
  _mlir_ciface_dxrt_random_uniform(&ud, 9, 1, 0, 1);
  DeviceVec gu(static_cast<size_t>(n));
  DXRT_CUDA_CHECK(cudaDeviceSynchronize());
  dxrt_memref1 gud = m1(gu.p, n);
  _mlir_ciface_dxrt_cuda_random_uniform(&gud, 9, 1, 0, 1);
  expect_same(gu.get(), u);
}

TEST(RandomOffset, HonoursTheDescriptorOffset) {
  // Elements [3, 13) of a 16-element buffer; the rest untouched.
  const int64_t n = 10;
  std::vector<float> cpu(static_cast<size_t>(n));
  dxrt_memref1 cd = m1(cpu.data(), n);
  _mlir_ciface_dxrt_random_uniform(&cd, 3, 1, 0, 9);
  DeviceVec g(16, -1.0f);
  DXRT_CUDA_CHECK(cudaDeviceSynchronize());
  dxrt_memref1 gd = m1(g.p, n, 3);
  _mlir_ciface_dxrt_cuda_random_uniform(&gd, 3, 1, 0, 9);
  std::vector<float> got = g.get();
  for (size_t i : {size_t(0), size_t(1), size_t(2), size_t(13), size_t(14), size_t(15)}) EXPECT_EQ(got[i], -1.0f);
  expect_same(std::vector<float>(got.begin() + 3, got.begin() + 13), cpu);
}

TEST(RandomDeathTest, StridedOutputAbortsNamingTheKernel) {
  float v[10] = {};
  dxrt_memref1 d = {v, v, 0, {5}, {2}};
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_random_normal(&d, 1, 1, 0, 0),
               "dxrt_cuda_random_normal: argument 'out' is not contiguous");
}

} // namespace
