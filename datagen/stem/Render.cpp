#include "stem/Render.h"

#include <algorithm>
#include <cmath>

namespace dxgen::stem {

ScanDistortion draw_scan_distortion(const ImagingParams &p, Rng &rng) {
  const int n = p.size;
  ScanDistortion d;
  d.dx.assign(size_t(n) * n, 0.0);
  d.dy.assign(size_t(n) * n, 0.0);
  const double D = p.distortion;
  if (D <= 0) return d;
  // Frame-level parameters first, then one jitter value per scan line, so the
  // number of draws is fixed and the rest of the image's stream is too.
  const double drift_x = rng.uniform(-2 * D, 2 * D), drift_y = rng.uniform(-2 * D, 2 * D); // Å per frame
  const double sine_amp = D * rng.uniform(0.5, 1.0), sine_period = rng.uniform(6, 24); // rows
  const double sine_phase = rng.uniform(0, 2 * M_PI);
  const double flyback_amp = 2 * D * rng.uniform(0.5, 1.0), flyback_decay = rng.uniform(2, 6); // pixels
  for (int i = 0; i < n; ++i) {
    // Line jitter: each fast-scan line starts displaced along the scan.
    const double jitter = D * rng.normal();
    // A stray field at a frequency unrelated to the line rate: a sine over rows.
    const double sine = sine_amp * std::sin(2 * M_PI * i / sine_period + sine_phase);
    for (int j = 0; j < n; ++j) {
      const double t = (i + double(j) / n) / n; // fraction of the frame time
      // Flyback: the beam lags at the start of each line and catches up exponentially.
      const double flyback = flyback_amp * std::exp(-j / flyback_decay);
      const size_t k = size_t(i) * n + size_t(j);
      d.dx[k] = jitter + sine + flyback + drift_x * t;
      d.dy[k] = drift_y * t;
      d.max_shift = std::max(d.max_shift, std::hypot(d.dx[k], d.dy[k]));
    }
  }
  return d;
}

std::vector<double> render_signal(const Crystal &c, const View &v, const ImagingParams &p,
                                  const ScanDistortion &d, Rng &rng, std::vector<Column> *columns) {
  const int n = p.size;
  const double ps = p.pixel_size, field = n * ps, half = field / 2;
  const double sigma = p.probe_fwhm / (2 * std::sqrt(2 * std::log(2.0)));
  const double inv2s2 = 1.0 / (2 * sigma * sigma);
  // Beyond 4.5 sigma the profile is below 4e-5 of its peak; the window also
  // covers the largest probe displacement.
  const double reach = 4.5 * sigma + d.max_shift;
  std::vector<double> s(size_t(n) * n, 0.0);

  // Lattice cells whose atoms can reach the field: the field's circumscribed
  // circle (plus reach) around the origin, in fractional coordinates.
  const Mat2 Binv = Mat2::columns(c.basis.a, c.basis.b).inverse();
  const double radius = half * std::sqrt(2.0) + reach + 1;
  const Vec2 of = Binv * v.origin;
  const double ra = radius * std::hypot(Binv.m00, Binv.m01), rb = radius * std::hypot(Binv.m10, Binv.m11);
  const int m0 = int(std::floor(of.x - ra)) - 1, m1 = int(std::ceil(of.x + ra)) + 1;
  const int n0 = int(std::floor(of.y - rb)) - 1, n1 = int(std::ceil(of.y + rb)) + 1;
  const Mat2 R = Mat2::rotation(v.theta);

  std::vector<double> weight(c.atoms.size());
  for (size_t k = 0; k < c.atoms.size(); ++k) weight[k] = std::pow(double(c.atoms[k].z), p.z_exponent);

  for (int m = m0; m <= m1; ++m)
    for (int nn = n0; nn <= n1; ++nn)
      for (size_t k = 0; k < c.atoms.size(); ++k) {
        // Drawn for every candidate column, visible or not, so which columns
        // are vacant does not depend on the field's rounding.
        const bool vacant = p.vacancy_rate > 0 && rng.uniform() < p.vacancy_rate;
        // Dopants likewise, and only when asked for (the default stream is unchanged).
        const bool doped = p.dopant_rate > 0 && rng.uniform() < p.dopant_rate;
        const Vec2 r = R * (c.cart(c.atoms[k].f + Vec2{double(m), double(nn)}) - v.origin) + Vec2{half, half};
        if (vacant || r.x < -reach || r.y < -reach || r.x > field + reach || r.y > field + reach) continue;
        const double w = doped ? std::pow(double(p.dopant_z), p.z_exponent) : weight[k];
        if (columns) columns->push_back({r, doped ? p.dopant_z : c.atoms[k].z});
        const int j0 = std::max(0, int(std::floor((r.x - reach) / ps))),
                  j1 = std::min(n - 1, int(std::ceil((r.x + reach) / ps)));
        const int i0 = std::max(0, int(std::floor((r.y - reach) / ps))),
                  i1 = std::min(n - 1, int(std::ceil((r.y + reach) / ps)));
        for (int i = i0; i <= i1; ++i)
          for (int j = j0; j <= j1; ++j) {
            const size_t q = size_t(i) * n + size_t(j);
            const double x = (j + 0.5) * ps + d.dx[q] - r.x, y = (i + 0.5) * ps + d.dy[q] - r.y;
            s[q] += w * std::exp(-(x * x + y * y) * inv2s2);
          }
      }
  double mean = 0;
  for (double x : s) mean += x;
  mean /= double(s.size());
  // A field with no column at all (possible only with extreme vacancy rates)
  // is pure background.
  const double bg = mean > 0 ? p.background * mean : 1.0;
  for (double &x : s) x += bg;
  return s;
}

double mask_radius(const ImagingParams &p) { return p.probe_fwhm / 2; }

std::vector<int64_t> column_mask(const std::vector<Column> &columns, const ImagingParams &p, const ScanDistortion &d,
                                 const std::vector<int> &species_z, std::vector<int> *pixels) {
  const int n = p.size;
  const double ps = p.pixel_size, radius = mask_radius(p), reach = radius + d.max_shift;
  std::vector<int64_t> mask(size_t(n) * n, 0);
  std::vector<double> best(size_t(n) * n, radius * radius);
  std::vector<int> owner(size_t(n) * n, -1);
  for (size_t c = 0; c < columns.size(); ++c) {
    const Vec2 r = columns[c].r;
    const int j0 = std::max(0, int(std::floor((r.x - reach) / ps))), j1 = std::min(n - 1, int(std::ceil((r.x + reach) / ps)));
    const int i0 = std::max(0, int(std::floor((r.y - reach) / ps))), i1 = std::min(n - 1, int(std::ceil((r.y + reach) / ps)));
    for (int i = i0; i <= i1; ++i)
      for (int j = j0; j <= j1; ++j) {
        const size_t q = size_t(i) * n + size_t(j);
        const double x = (j + 0.5) * ps + d.dx[q] - r.x, y = (i + 0.5) * ps + d.dy[q] - r.y;
        const double d2 = x * x + y * y;
        if (d2 <= best[q] && (owner[q] < 0 || d2 < best[q])) {
          best[q] = d2;
          owner[q] = int(c);
        }
      }
  }
  if (pixels) pixels->assign(columns.size(), 0);
  for (size_t q = 0; q < mask.size(); ++q) {
    if (owner[q] < 0) continue;
    const int z = columns[size_t(owner[q])].z;
    const auto it = std::find(species_z.begin(), species_z.end(), z);
    mask[q] = it == species_z.end() ? 0 : int64_t(it - species_z.begin()) + 1;
    if (pixels) ++(*pixels)[size_t(owner[q])];
  }
  return mask;
}

std::vector<double> detect(const std::vector<double> &signal, const ImagingParams &p, Rng &rng) {
  double mean = 0;
  for (double x : signal) mean += x;
  mean /= double(signal.size());
  std::vector<double> counts(signal.size());
  for (size_t q = 0; q < signal.size(); ++q) {
    const double lambda = p.dose * signal[q] / mean;
    counts[q] = rng.poisson(lambda) + p.read_noise * rng.normal();
  }
  return counts;
}

std::vector<float> normalise(const std::vector<double> &x) {
  double mean = 0, var = 0;
  for (double v : x) mean += v;
  mean /= double(x.size());
  for (double v : x) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / double(x.size()));
  std::vector<float> out(x.size(), 0.0f);
  if (sd > 0)
    for (size_t q = 0; q < x.size(); ++q) out[q] = float((x[q] - mean) / sd);
  return out;
}

} // namespace dxgen::stem
