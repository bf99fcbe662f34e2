#include "cosmo/Dataset.h"

#include "common/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace dxgen::cosmo {

const char *param_name(int i) {
  static const char *names[kParams] = {"Omega_m", "sigma_8", "n_s", "h"};
  return names[i];
}

namespace {
double *fields(CosmoParams &p, int i) {
  double *f[kParams] = {&p.omega_m, &p.sigma8, &p.n_s, &p.h};
  return f[i];
}
} // namespace

void params_to_targets(const CosmoParams &p, float *targets) {
  CosmoParams q = p;
  for (int i = 0; i < kParams; ++i) targets[i] = float((*fields(q, i) - kFiducial[i]) / (kSpread * kFiducial[i]));
}

CosmoParams targets_to_params(const float *targets) {
  CosmoParams p;
  for (int i = 0; i < kParams; ++i) *fields(p, i) = kFiducial[i] * (1 + kSpread * double(targets[i]));
  return p;
}

uint64_t sample_stream(int split, int64_t index) { return (uint64_t(split) << 40) + uint64_t(index); }

CosmoParams draw_params(Rng &rng) {
  CosmoParams p;
  for (int i = 0; i < kParams; ++i) *fields(p, i) = kFiducial[i] * rng.uniform(1 - kSpread, 1 + kSpread);
  return p;
}

Sample generate_sample(const CosmoConfig &cfg, int split, int64_t index, bool keep_delta) {
  Rng rng(cfg.seed, sample_stream(split, index));
  Sample s;
  s.params = draw_params(rng);
  const Spectrum power(s.params, cfg.transfer);
  std::vector<double> delta = gaussian_field(cfg.grid, power, rng);
  const size_t cells = cfg.grid.cells();
  s.counts.resize(cfg.redshifts.size() * cells);
  std::vector<double> scaled(cells);
  for (size_t c = 0; c < cfg.redshifts.size(); ++c) {
    const double d = growth_factor(cfg.redshifts[c], s.params.omega_m);
    for (size_t q = 0; q < cells; ++q) scaled[q] = d * delta[q];
    poisson_counts(lognormal(scaled), cfg.mean_count, rng, s.counts.data() + c * cells, &s.clipped);
  }
  if (keep_delta) s.delta = std::move(delta);
  return s;
}

CosmoData generate_dataset(const CosmoConfig &cfg, int threads, Progress *progress) {
  CosmoData data;
  const size_t volume = cfg.redshifts.size() * cfg.grid.cells();
  data.train_volumes.resize(size_t(cfg.train) * volume);
  data.test_volumes.resize(size_t(cfg.test) * volume);
  data.train_targets.resize(size_t(cfg.train) * kParams);
  data.test_targets.resize(size_t(cfg.test) * kParams);
  data.train_params.resize(size_t(cfg.train) * kParams);
  data.test_params.resize(size_t(cfg.test) * kParams);
  std::atomic<int64_t> clipped{0};
  parallel_for(cfg.train + cfg.test, threads, [&](int64_t task) {
    const int split = task < cfg.train ? 0 : 1;
    const size_t index = size_t(split == 0 ? task : task - cfg.train);
    const Sample s = generate_sample(cfg, split, int64_t(index));
    std::copy(s.counts.begin(), s.counts.end(),
              (split == 0 ? data.train_volumes : data.test_volumes).begin() + std::ptrdiff_t(index * volume));
    params_to_targets(s.params, (split == 0 ? data.train_targets : data.test_targets).data() + index * kParams);
    float *p = (split == 0 ? data.train_params : data.test_params).data() + index * kParams;
    p[0] = float(s.params.omega_m);
    p[1] = float(s.params.sigma8);
    p[2] = float(s.params.n_s);
    p[3] = float(s.params.h);
    clipped += s.clipped;
    if (progress) progress->add();
  });
  data.clipped = clipped.load();
  return data;
}

} // namespace dxgen::cosmo
