#include "common/Npy.h"
#include "common/Parallel.h"
#include "common/Rng.h"
#include "common/Validators.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <stdexcept>
#include <unistd.h>

namespace {

TEST(DatagenRng, StreamsAreReproducibleAndIndependent) {
  dxgen::Rng a(7, 3), b(7, 3), c(7, 4);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

TEST(DatagenRng, NormalAndPoissonMoments) {
  dxgen::Rng r(1);
  const int n = 200000;
  double s = 0, s2 = 0, p = 0, p2 = 0;
  for (int i = 0; i < n; ++i) {
    double z = r.normal();
    s += z;
    s2 += z * z;
    double k = r.poisson(i % 2 ? 4.0 : 100.0);
    if (i % 2) {
      p += k;
      p2 += k * k;
    }
  }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.01);
  const double m = p / (n / 2), v = p2 / (n / 2) - m * m;
  EXPECT_NEAR(m, 4.0, 0.03);
  EXPECT_NEAR(v, 4.0, 0.1);
}

TEST(DatagenNpy, RoundTripsFloatsAndIntegers) {
  const std::string dir = ::testing::TempDir();
  const std::string f = dir + "/dxgen_f.npy", i = dir + "/dxgen_i.npy";
  std::vector<float> x = {1.5f, -2.0f, 0.25f, 8.0f, 0.0f, 3.0f};
  std::vector<int64_t> y = {0, 4, 2};
  dxgen::write_npy(f, {2, 1, 3}, x.data());
  dxgen::write_npy(i, {3}, y.data());
  auto a = dxgen::read_npy(f), b = dxgen::read_npy(i);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(a.as_floats(), x);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.as_floats(), (std::vector<float>{0, 4, 2}));
  EXPECT_THROW(dxgen::read_npy(dir + "/does-not-exist.npy"), std::runtime_error);
}

TEST(DatagenParallel, ResultsDoNotDependOnThreadCount) {
  auto run = [](int threads) {
    std::vector<double> out(97);
    dxgen::parallel_for(97, threads, [&](int64_t i) {
      dxgen::Rng r(5, uint64_t(i));
      out[size_t(i)] = r.normal();
    });
    return out;
  };
  EXPECT_EQ(run(1), run(4));
}

TEST(DatagenParallel, RethrowsATaskError) {
  EXPECT_THROW(dxgen::parallel_for(10, 3, [](int64_t i) {
                 if (i == 5) throw std::runtime_error("task 5");
               }),
               std::runtime_error);
}

TEST(DatagenValidators, RequireTextAndJoinWriteTheMessages) {
  EXPECT_EQ(dxgen::text(0.5), "0.5");
  EXPECT_EQ(dxgen::text(int64_t(-5)), "-5");
  EXPECT_EQ(dxgen::text(uint64_t(7)), "7");
  EXPECT_EQ(dxgen::join(std::vector<double>{0, 0.5, 1, 1.5}), "0,0.5,1,1.5");
  EXPECT_EQ(dxgen::join(std::vector<int>{14, 42}), "14,42");
  EXPECT_EQ(dxgen::join(std::vector<int>{}), "");
  EXPECT_NO_THROW(dxgen::require(true, "--size", "unused"));
  try {
    dxgen::require(false, "--size", "must be 64 or 128 (pixels, square), got " + dxgen::text(48));
    FAIL() << "require(false, ...) did not throw";
  } catch (const CLI::ValidationError &e) {
    EXPECT_STREQ(e.what(), "--size: must be 64 or 128 (pixels, square), got 48");
    EXPECT_EQ(e.get_exit_code(), int(CLI::ExitCodes::ValidationError));
  }
}

} // namespace
