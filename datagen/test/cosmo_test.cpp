// Physics tests of dx-datagen cosmo (docs/datagen-cosmo.md): the FFT, the
// transfer functions, the sigma_8 normalisation and the growth factor, the
// measured power spectrum and top-hat variance of generated Gaussian fields
// against the input, the log-normal and Poisson steps, determinism.
#include "cosmo/Cosmology.h"
#include "cosmo/Dataset.h"
#include "cosmo/Fft3d.h"
#include "cosmo/Field.h"
#include "common/Npy.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

namespace {

using namespace dxgen;
using namespace dxgen::cosmo;

const CosmoParams kFid{0.3, 0.8, 0.96, 0.7};

TEST(CosmoFft, MatchesTheDirectDftAndInverts) {
  const int n = 8;
  Rng rng(3);
  std::vector<cplx> f(size_t(n * n * n));
  for (cplx &v : f) v = cplx(rng.normal(), rng.normal());
  std::vector<cplx> g = f;
  Fft3d fft(n);
  fft.forward(g);
  double worst = 0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) {
        cplx sum = 0;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            for (int l = 0; l < n; ++l)
              sum += f[size_t((i * n + j) * n + l)] * std::polar(1.0, -2 * M_PI * (a * i + b * j + c * l) / n);
        worst = std::max(worst, std::abs(sum - g[size_t((a * n + b) * n + c)]));
      }
  EXPECT_LT(worst, 1e-10);
  fft.inverse(g);
  for (size_t q = 0; q < f.size(); ++q) EXPECT_LT(std::abs(g[q] - f[q]), 1e-12);
  EXPECT_THROW(Fft3d(12), std::invalid_argument);
}

TEST(CosmoTransfer, UnityOnLargeScalesAndFalling) {
  for (Transfer t : {Transfer::BBKS, Transfer::EisensteinHu}) {
    const Spectrum s(kFid, t);
    EXPECT_NEAR(s.transfer(1e-5), 1.0, 1e-3) << transfer_name(t);
    double last = 2;
    for (double k = 1e-4; k < 10; k *= 1.5) {
      const double v = s.transfer(k);
      EXPECT_LT(v, last) << transfer_name(t) << " k " << k;
      EXPECT_GT(v, 0);
      last = v;
    }
  }
  // The two agree to ~15% over the range the grids sample (EH has the
  // baryon suppression's shape, BBKS only its Sugiyama rescaling).
  for (double k : {0.02, 0.05, 0.1, 0.2, 0.5}) {
    const double r = transfer_eh_nowiggle(k, kFid) / transfer_bbks(k, kFid);
    EXPECT_NEAR(r, 1.0, 0.15) << "k " << k;
  }
  EXPECT_NEAR(tophat_window(0), 1.0, 1e-15);
  EXPECT_NEAR(tophat_window(1e-2), 3 * (std::sin(1e-2) - 1e-2 * std::cos(1e-2)) / 1e-6, 1e-6);
  EXPECT_NEAR(tophat_window(4.4934094579), 0.0, 1e-9); // the first zero: tan x = x
}

TEST(CosmoSpectrum, NormalisedToSigma8) {
  for (Transfer t : {Transfer::BBKS, Transfer::EisensteinHu})
    for (const CosmoParams &p : {kFid, CosmoParams{0.27, 0.72, 1.05, 0.64}, CosmoParams{0.33, 0.88, 0.87, 0.77}}) {
      const Spectrum s(p, t);
      EXPECT_NEAR(std::sqrt(s.sigma2(8.0)), p.sigma8, 1e-9 * p.sigma8);
      // sigma_R falls with R.
      EXPECT_GT(s.sigma2(4.0), s.sigma2(8.0));
      EXPECT_LT(s.sigma2(16.0), s.sigma2(8.0));
    }
  // Doubling sigma_8 quadruples P(k) at every k.
  CosmoParams p2 = kFid;
  p2.sigma8 = 1.6;
  const Spectrum a(kFid, Transfer::BBKS), b(p2, Transfer::BBKS);
  for (double k : {0.01, 0.1, 1.0}) EXPECT_NEAR(b(k) / a(k), 4.0, 1e-9);
}

TEST(CosmoGrowth, IntegralAgainstEinsteinDeSitterAndCarrollPressTurner) {
  for (double z : {0.0, 0.5, 1.0, 3.0}) EXPECT_NEAR(growth_factor(z, 1.0), 1 / (1 + z), 1e-6) << z;
  for (double om : {0.27, 0.3, 0.33}) {
    EXPECT_NEAR(growth_factor(0, om), 1.0, 1e-12);
    double last = 1.01;
    for (double z : {0.0, 0.5, 1.0, 1.5, 3.0}) {
      const double d = growth_factor(z, om), c = growth_factor_cpt(z, om);
      EXPECT_NEAR(d / c, 1.0, 0.01) << "Omega_m " << om << " z " << z;
      EXPECT_LT(d, last);
      if (z > 0) EXPECT_GT(d, 1 / (1 + z)); // Lambda slows late growth: D(z) above EdS's
      last = d;
    }
  }
  // The known value: flat Omega_m = 0.3, D(z=1) = 0.6125 (D(0) = 1).
  EXPECT_NEAR(growth_factor(1.0, 0.3), 0.6125, 0.002);
}

// The measured power spectrum of generated Gaussian fields, averaged over
// 64 realizations, against the mean of the input P(k) over each bin's modes.
TEST(CosmoField, PowerSpectrumMatchesTheInput) {
  const Grid g{32, 128};
  const Spectrum power(kFid, Transfer::BBKS);
  const int realizations = 64;
  std::vector<double> measured(size_t(g.n / 2), 0.0);
  std::vector<PowerBin> bins;
  for (int r = 0; r < realizations; ++r) {
    Rng rng(11, uint64_t(r));
    bins = power_spectrum(gaussian_field(g, power, rng), g, &power);
    for (size_t b = 0; b < bins.size(); ++b) measured[b] += bins[b].measured / realizations;
  }
  std::printf("  %4s %9s %6s %12s %12s %7s\n", "bin", "k h/Mpc", "modes", "P measured", "P input", "ratio");
  double worst = 0, mean_ratio = 0;
  int used = 0;
  for (size_t b = 0; b < bins.size(); ++b) {
    const double ratio = measured[b] / bins[b].model;
    std::printf("  %4zu %9.4f %6lld %12.2f %12.2f %7.4f\n", b + 1, bins[b].k, (long long)bins[b].modes, measured[b],
                bins[b].model, ratio);
    if (b + 1 < 4) continue; // below 4 k_f a bin has < 200 modes
    EXPECT_NEAR(ratio, 1.0, 0.05) << "bin " << b + 1 << " k " << bins[b].k;
    worst = std::max(worst, std::fabs(ratio - 1));
    mean_ratio += ratio;
    ++used;
  }
  mean_ratio /= used;
  std::printf("  k in [4 k_f, k_Nyq]: worst |ratio - 1| %.4f, mean ratio %.4f\n", worst, mean_ratio);
  EXPECT_NEAR(mean_ratio, 1.0, 0.01);
}

// sigma_8 measured on the field: the variance of the field convolved with an
// 8 Mpc/h top hat, on the default 4 Mpc/h cells.
TEST(CosmoField, TopHatVarianceIsSigma8Squared) {
  const Grid g{64, 256};
  for (const CosmoParams &p : {kFid, CosmoParams{0.33, 0.72, 1.0, 0.65}}) {
    const Spectrum power(p, Transfer::BBKS);
    const int realizations = 6;
    double var = 0;
    for (int r = 0; r < realizations; ++r) {
      Rng rng(5, uint64_t(r));
      var += tophat_variance(gaussian_field(g, power, rng), g, 8.0) / realizations;
    }
    const double expected = grid_tophat_variance(g, power, 8.0);
    std::printf("  sigma_8 %.3f: measured %.4f, grid expectation %.4f (the modes the box holds: %.2f%% of "
                "sigma_8^2)\n",
                p.sigma8, std::sqrt(var), std::sqrt(expected), 100 * expected / (p.sigma8 * p.sigma8));
    EXPECT_NEAR(std::sqrt(var) / std::sqrt(expected), 1.0, 0.02);
    EXPECT_NEAR(std::sqrt(var) / p.sigma8, 1.0, 0.03);
    EXPECT_NEAR(expected / (p.sigma8 * p.sigma8), 1.0, 0.03);
  }
}

TEST(CosmoField, VarianceScalesAsSigma8Squared) {
  const Grid g{32, 128};
  CosmoParams p = kFid, q = kFid;
  q.sigma8 = 0.88;
  Rng r1(9, 4), r2(9, 4);
  const std::vector<double> a = gaussian_field(g, Spectrum(p, Transfer::BBKS), r1);
  const std::vector<double> b = gaussian_field(g, Spectrum(q, Transfer::BBKS), r2);
  double va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    va += a[i] * a[i];
    vb += b[i] * b[i];
    ASSERT_NEAR(b[i], a[i] * 0.88 / 0.8, 1e-12 * (1 + std::fabs(a[i])));
  }
  EXPECT_NEAR(vb / va, (0.88 / 0.8) * (0.88 / 0.8), 1e-10);
  // The same holds for the top-hat variance.
  EXPECT_NEAR(tophat_variance(b, g, 8) / tophat_variance(a, g, 8), 1.21, 1e-9);
}

// The log-normal and Poisson steps on a field of the variance of the z = 1.5
// channel (D ~ 0.5: sigma^2 ~ 0.7 per 4 Mpc/h cell); at z = 0 (sigma^2 ~ 3)
// the sample moments of rho are dominated by a handful of cells.
TEST(CosmoField, LognormalHasMeanOneAndPoissonTheChosenMean) {
  const Grid g{32, 128};
  Rng rng(2);
  std::vector<double> delta = gaussian_field(g, Spectrum(kFid, Transfer::BBKS), rng);
  const double d15 = growth_factor(1.5, kFid.omega_m);
  for (double &d : delta) d *= d15;
  double mean = 0, var = 0;
  for (double d : delta) mean += d / double(delta.size());
  for (double d : delta) var += (d - mean) * (d - mean) / double(delta.size());
  EXPECT_NEAR(mean, 0.0, 1e-12);
  const std::vector<double> rho = lognormal(delta);
  double rmean = 0, rvar = 0, lvar = 0;
  for (double r : rho) rmean += r / double(rho.size());
  for (size_t q = 0; q < rho.size(); ++q) {
    rvar += (rho[q] - 1) * (rho[q] - 1) / double(rho.size());
    lvar += std::pow(std::log(rho[q]) - (std::log(rho[0]) - delta[0]) - delta[q], 2);
    ASSERT_GT(rho[q], 0);
  }
  EXPECT_NEAR(rmean, 1.0, 1e-12);
  EXPECT_LT(lvar, 1e-18); // log rho = delta + const
  // Log-normal: var(rho) = exp(sigma^2) - 1.
  std::printf("  sigma^2 %.3f: var(rho) %.3f, exp(sigma^2) - 1 = %.3f\n", var, rvar, std::expm1(var));
  EXPECT_NEAR(rvar / std::expm1(var), 1.0, 0.1) << "sigma^2 " << var;
  for (double nbar : {0.5, 8.0, 100.0}) {
    std::vector<int16_t> counts(rho.size());
    Rng prng(7);
    int64_t clipped = 0;
    poisson_counts(rho, nbar, prng, counts.data(), &clipped);
    double cm = 0, cv = 0;
    for (int16_t c : counts) cm += c / double(counts.size());
    for (int16_t c : counts) cv += (c - cm) * (c - cm) / double(counts.size());
    std::printf("  mean count %.1f: measured %.4f, variance %.2f (Poisson + nbar^2 var rho: %.2f)\n", nbar, cm, cv,
                nbar + nbar * nbar * rvar);
    // Given rho, the count mean is nbar to Poisson noise.
    EXPECT_NEAR(cm / nbar, 1.0, 4 / std::sqrt(nbar * double(counts.size())));
    EXPECT_NEAR(cv / (nbar + nbar * nbar * rvar), 1.0, 0.03);
    EXPECT_EQ(clipped, 0);
  }
  // Counts beyond int16 are clipped and counted.
  std::vector<int16_t> one(1);
  int64_t clipped = 0;
  Rng prng(1);
  poisson_counts({1.0}, 1e5, prng, one.data(), &clipped);
  EXPECT_EQ(one[0], 32767);
  EXPECT_EQ(clipped, 1);
}

TEST(CosmoDataset, SamplesHaveTheChosenMeanAndFallingVarianceWithRedshift) {
  CosmoConfig cfg;
  cfg.grid = {32, 128};
  cfg.mean_count = 8;
  const size_t cells = cfg.grid.cells();
  for (int64_t idx : {0, 1, 2}) {
    const Sample s = generate_sample(cfg, 0, idx, true);
    ASSERT_EQ(s.counts.size(), 4 * cells);
    ASSERT_EQ(s.delta.size(), cells);
    double last = 1e300;
    for (size_t c = 0; c < 4; ++c) {
      double m = 0, v = 0;
      for (size_t q = 0; q < cells; ++q) m += s.counts[c * cells + q] / double(cells);
      for (size_t q = 0; q < cells; ++q) v += std::pow(s.counts[c * cells + q] - m, 2) / double(cells);
      EXPECT_NEAR(m / 8, 1.0, 0.01) << "sample " << idx << " channel " << c;
      EXPECT_LT(v, last); // D(z) falls with z
      EXPECT_GT(v, 8);    // more than shot noise
      last = v;
    }
    // The drawn parameters lie within +-10% of the fiducial model.
    float t[kParams];
    params_to_targets(s.params, t);
    for (float x : t) {
      EXPECT_GE(x, -1.0f);
      EXPECT_LE(x, 1.0f);
    }
    const CosmoParams back = targets_to_params(t);
    EXPECT_NEAR(back.omega_m, s.params.omega_m, 1e-6);
    EXPECT_NEAR(back.sigma8, s.params.sigma8, 1e-6);
    EXPECT_NEAR(back.n_s, s.params.n_s, 1e-6);
    EXPECT_NEAR(back.h, s.params.h, 1e-6);
  }
}

TEST(CosmoDataset, TargetsSpanTheRangeUniformly) {
  Rng rng(1, 99);
  double lo[kParams] = {9, 9, 9, 9}, hi[kParams] = {-9, -9, -9, -9}, mean[kParams] = {};
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    float t[kParams];
    params_to_targets(draw_params(rng), t);
    for (int k = 0; k < kParams; ++k) {
      lo[k] = std::min(lo[k], double(t[k]));
      hi[k] = std::max(hi[k], double(t[k]));
      mean[k] += t[k] / double(n);
    }
  }
  for (int k = 0; k < kParams; ++k) {
    EXPECT_GT(lo[k], -1.0001) << param_name(k);
    EXPECT_LT(hi[k], 1.0001) << param_name(k);
    EXPECT_LT(lo[k], -0.99) << param_name(k);
    EXPECT_GT(hi[k], 0.99) << param_name(k);
    EXPECT_NEAR(mean[k], 0.0, 0.04) << param_name(k);
  }
}

TEST(CosmoDataset, DeterministicForAnyThreadCount) {
  CosmoConfig cfg;
  cfg.grid = {16, 64};
  cfg.train = 7;
  cfg.test = 3;
  const CosmoData a = generate_dataset(cfg, 1, nullptr), b = generate_dataset(cfg, 3, nullptr);
  EXPECT_EQ(a.train_volumes, b.train_volumes);
  EXPECT_EQ(a.test_volumes, b.test_volumes);
  EXPECT_EQ(a.train_targets, b.train_targets);
  EXPECT_EQ(a.test_params, b.test_params);
  // Sample i of the dataset is generate_sample(i).
  const Sample s = generate_sample(cfg, 1, 2);
  EXPECT_TRUE(std::equal(s.counts.begin(), s.counts.end(), a.test_volumes.begin() + 2 * 4 * 16 * 16 * 16));
  cfg.seed = 2;
  const CosmoData c = generate_dataset(cfg, 2, nullptr);
  EXPECT_NE(a.train_volumes, c.train_volumes);
  EXPECT_NE(a.train_targets, c.train_targets);
}

// The volumes' dtype: int16 NPY written and read back (util/Npy).
TEST(CosmoNpy, Int16RoundTrips) {
  const std::string f = ::testing::TempDir() + "/dxgen_i2.npy";
  const std::vector<int16_t> x = {0, 1, -2, 32767, -32768, 7};
  write_npy(f, {2, 3}, x.data());
  const NpyArray a = read_npy(f);
  EXPECT_EQ(a.descr, "<i2");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.as_floats(), (std::vector<float>{0, 1, -2, 32767, -32768, 7}));
}

} // namespace
