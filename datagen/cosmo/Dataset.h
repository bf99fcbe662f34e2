// A cosmology dataset (docs/datagen-cosmo.md): per sample, cosmological
// parameters drawn uniformly within +-10% of a fiducial model, one Gaussian
// linear density field at z = 0, and per redshift a channel of Poisson counts
// of the log-normal density D(z)-scaled from it. Each sample has its own Rng
// stream, so the bytes do not depend on the thread count.
#pragma once

#include "common/Progress.h"
#include "cosmo/Cosmology.h"
#include "cosmo/Field.h"

#include <cstdint>
#include <vector>

namespace dxgen::cosmo {

constexpr int kParams = 4; // Omega_m, sigma_8, n_s, h (the targets' order)
// The fiducial model; each parameter is drawn uniformly in [p (1 - s), p (1 + s)].
constexpr double kFiducial[kParams] = {0.3, 0.8, 0.96, 0.7};
constexpr double kSpread = 0.1;
const char *param_name(int i); // "Omega_m", "sigma_8", "n_s", "h"

struct CosmoConfig {
  int64_t train = 1024, test = 128;
  Grid grid;
  std::vector<double> redshifts = {0.0, 0.5, 1.0, 1.5}; // one channel each
  double mean_count = 8;                                // mean Poisson count per cell
  Transfer transfer = Transfer::BBKS;
  uint64_t seed = 1;
};

// Physical parameters -> targets in [-1, 1]: (p - p0) / (s p0), and back.
void params_to_targets(const CosmoParams &p, float *targets);
CosmoParams targets_to_params(const float *targets);

uint64_t sample_stream(int split, int64_t index);
// The first draws of a sample's stream.
CosmoParams draw_params(Rng &rng);

struct Sample {
  CosmoParams params;
  std::vector<double> delta;  // the Gaussian linear field at z = 0 (n^3)
  std::vector<int16_t> counts; // [channels, n, n, n]
  int64_t clipped = 0;         // cells clipped at 32767
};
// Sample `index` of split 0 (train) or 1 (test). keep_delta: keep the
// Gaussian field (the tests measure it); otherwise delta is left empty.
Sample generate_sample(const CosmoConfig &cfg, int split, int64_t index, bool keep_delta = false);

struct CosmoData {
  std::vector<int16_t> train_volumes, test_volumes; // [N, C, n, n, n]
  std::vector<float> train_targets, test_targets;   // [N, 4] in [-1, 1]
  std::vector<float> train_params, test_params;     // [N, 4] physical values
  int64_t clipped = 0;
};
CosmoData generate_dataset(const CosmoConfig &cfg, int threads, Progress *progress);

} // namespace dxgen::cosmo
