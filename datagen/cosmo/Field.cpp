#include "cosmo/Field.h"

#include "cosmo/Fft3d.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dxgen::cosmo {

namespace {

// Signed integer frequency of index i: 0, 1, .., n/2 - 1, -n/2, .., -1.
int freq(int i, int n) { return i < n / 2 ? i : i - n; }

// Calls f(flat index, m^2) for every mode.
template <class F> void for_each_mode(int n, F &&f) {
  size_t q = 0;
  for (int i = 0; i < n; ++i) {
    const int mi = freq(i, n);
    for (int j = 0; j < n; ++j) {
      const int mj = freq(j, n);
      for (int l = 0; l < n; ++l, ++q) {
        const int ml = freq(l, n);
        f(q, int64_t(mi) * mi + int64_t(mj) * mj + int64_t(ml) * ml);
      }
    }
  }
}

std::vector<cplx> to_fourier(const std::vector<double> &delta, const Grid &g) {
  if (delta.size() != g.cells()) throw std::invalid_argument("field size is not n^3");
  std::vector<cplx> f(delta.begin(), delta.end());
  Fft3d(g.n).forward(f);
  return f;
}

} // namespace

std::vector<double> gaussian_field(const Grid &g, const Spectrum &power, Rng &rng) {
  const int n = g.n;
  std::vector<cplx> f(g.cells());
  for (cplx &v : f) v = cplx(rng.normal(), 0);
  const Fft3d fft(n);
  fft.forward(f);
  // sqrt(P / dV) depends on the mode only through m^2 <= 3 (n/2)^2: a table.
  const double dv = std::pow(g.cell(), 3), kf = g.fundamental();
  std::vector<double> amp(size_t(3 * (n / 2) * (n / 2) + 1));
  for (size_t m2 = 1; m2 < amp.size(); ++m2) amp[m2] = std::sqrt(power(kf * std::sqrt(double(m2))) / dv);
  for_each_mode(n, [&](size_t q, int64_t m2) { f[q] *= amp[size_t(m2)]; });
  fft.inverse(f);
  std::vector<double> delta(g.cells());
  for (size_t q = 0; q < delta.size(); ++q) delta[q] = f[q].real();
  return delta;
}

std::vector<double> lognormal(const std::vector<double> &delta) {
  const double n = double(delta.size());
  double mean = 0;
  for (double d : delta) mean += d;
  mean /= n;
  double var = 0;
  for (double d : delta) var += (d - mean) * (d - mean);
  var /= n;
  std::vector<double> rho(delta.size());
  double sum = 0;
  for (size_t q = 0; q < rho.size(); ++q) sum += rho[q] = std::exp(delta[q] - var / 2);
  const double norm = n / sum;
  for (double &r : rho) r *= norm;
  return rho;
}

void poisson_counts(const std::vector<double> &rho, double mean_count, Rng &rng, int16_t *out, int64_t *clipped) {
  int64_t clip = 0;
  for (size_t q = 0; q < rho.size(); ++q) {
    const double c = rng.poisson(mean_count * rho[q]);
    if (c > 32767) ++clip;
    out[q] = int16_t(std::min(c, 32767.0));
  }
  if (clipped) *clipped += clip;
}

std::vector<PowerBin> power_spectrum(const std::vector<double> &delta, const Grid &g, const Spectrum *model) {
  const std::vector<cplx> f = to_fourier(delta, g);
  const int bins = g.n / 2;
  std::vector<PowerBin> out(static_cast<size_t>(bins));
  const double v = std::pow(g.box, 3), dv = std::pow(g.cell(), 3), kf = g.fundamental();
  for_each_mode(g.n, [&](size_t q, int64_t m2) {
    const double m = std::sqrt(double(m2));
    const int b = int(std::floor(m + 0.5));
    if (b < 1 || b > bins) return;
    PowerBin &bin = out[size_t(b - 1)];
    bin.k += kf * m;
    bin.measured += std::norm(f[q]) * dv * dv / v; // |dV sum_x delta e^{-ikx}|^2 / V
    if (model) bin.model += (*model)(kf * m);
    ++bin.modes;
  });
  for (PowerBin &b : out)
    if (b.modes) {
      b.k /= double(b.modes);
      b.measured /= double(b.modes);
      b.model /= double(b.modes);
    }
  return out;
}

double tophat_variance(const std::vector<double> &delta, const Grid &g, double radius) {
  std::vector<cplx> f = to_fourier(delta, g);
  const double kf = g.fundamental();
  for_each_mode(g.n, [&](size_t q, int64_t m2) { f[q] *= tophat_window(kf * std::sqrt(double(m2)) * radius); });
  Fft3d(g.n).inverse(f);
  double mean = 0, sq = 0;
  for (const cplx &v : f) mean += v.real();
  mean /= double(f.size());
  for (const cplx &v : f) sq += (v.real() - mean) * (v.real() - mean);
  return sq / double(f.size());
}

double grid_tophat_variance(const Grid &g, const Spectrum &power, double radius) {
  const double kf = g.fundamental();
  double sum = 0;
  for_each_mode(g.n, [&](size_t, int64_t m2) {
    if (m2 == 0) return;
    const double k = kf * std::sqrt(double(m2)), w = tophat_window(k * radius);
    sum += power(k) * w * w;
  });
  return sum / std::pow(g.box, 3);
}

} // namespace dxgen::cosmo
