// Random fields on a periodic n^3 grid of side L (Mpc/h) for dx-datagen
// cosmo (docs/datagen-cosmo.md): a Gaussian density contrast with a given
// power spectrum (white noise coloured in Fourier space), its log-normal
// transform and Poisson counts; and the estimators the tests check them
// with (binned power spectrum, top-hat filtered variance).
#pragma once

#include "common/Rng.h"
#include "cosmo/Cosmology.h"

#include <cstdint>
#include <vector>

namespace dxgen::cosmo {

struct Grid {
  int n = 32;        // cells per side, a power of two
  double box = 128;  // side, Mpc/h
  size_t cells() const { return size_t(n) * size_t(n) * size_t(n); }
  double cell() const { return box / n; }              // Mpc/h
  double fundamental() const { return 2 * M_PI / box; } // k_f, h/Mpc
  double nyquist() const { return M_PI * n / box; }      // h/Mpc
};

// Gaussian delta(x) (C order, z fastest) with <|delta_k|^2> = V P(k) for every
// mode 0 < |k| of the grid (delta_k = int d^3x delta e^{-ik.x}); the k = 0
// mode is 0, so the grid mean is 0. Draws n^3 normals from rng: white noise
// w(x), then delta_k = w_k sqrt(P(|k|) / dV), dV = (L/n)^3 (Hermitian, so
// delta is real).
std::vector<double> gaussian_field(const Grid &g, const Spectrum &power, Rng &rng);

// rho = exp(delta - sigma^2/2), sigma^2 the variance of delta over the grid,
// then divided by its grid mean (mean exactly 1).
std::vector<double> lognormal(const std::vector<double> &delta);

// Poisson(mean_count * rho) per cell, clipped at 32767 (int16); adds the
// number of clipped cells to *clipped when given.
void poisson_counts(const std::vector<double> &rho, double mean_count, Rng &rng, int16_t *out,
                    int64_t *clipped = nullptr);

struct PowerBin {
  double k = 0;        // mean |k| of the bin's modes, h/Mpc
  double measured = 0; // mean of |delta_k|^2 / V over the modes
  double model = 0;    // mean of P(|k|) over the same modes (0 without a model)
  int64_t modes = 0;
};
// Bins of width k_f centred on b k_f, b = 1 .. n/2 (|m| in [b - 1/2, b + 1/2),
// m the integer wavevector), every mode of the grid counted.
std::vector<PowerBin> power_spectrum(const std::vector<double> &delta, const Grid &g,
                                     const Spectrum *model = nullptr);

// The variance over the grid of delta convolved with a top hat of radius R
// (multiplied by W(kR) in Fourier space and transformed back).
double tophat_variance(const std::vector<double> &delta, const Grid &g, double radius);
// Its expectation for gaussian_field: (1/V) sum_{k != 0} P(k) W(kR)^2 over
// the grid's modes (sigma_R^2 without the modes below k_f and beyond the grid).
double grid_tophat_variance(const Grid &g, const Spectrum &power, double radius);

} // namespace dxgen::cosmo
