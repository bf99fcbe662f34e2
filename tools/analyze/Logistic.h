// Binary logistic regression fit by Newton's method (iteratively reweighted
// least squares). The latent spaces it classifies have 2 or 3 dimensions, so
// the exact Newton step (a 4x4 solve) is cheap and converges in a few dozen
// iterations, with no learning rate to tune.
#pragma once

#include <cstdint>
#include <vector>

namespace dxan {

struct LogisticModel {
  // Features are standardised with the fit set's mean and standard deviation
  // (so the ridge treats every latent dimension alike, whatever its scale).
  std::vector<double> mean, scale;
  std::vector<double> weights; // on standardised features
  double bias = 0;
  int iterations = 0;
  bool converged = false;

  // w . (x - mean) / scale + bias, for one row of `dims` floats; class 1
  // (probability > 0.5) where it is positive.
  double logit(const float *x) const;
  // The same boundary in the original units: raw_weights . x + raw_bias.
  std::vector<double> raw_weights() const;
  double raw_bias() const;
};

// Default ridge: enough to give linearly separable classes (well-separated
// clusters, the point of the analysis) a finite optimum, too small to move
// the boundary of overlapping ones.
constexpr double kDefaultRidge = 1e-6;

// x: n rows of `dims` features (row-major); y: 0 or 1 per row. Minimises the
// mean log-loss plus ridge/2 * |(weights, bias)|^2. Both classes must occur.
LogisticModel fit_logistic(const std::vector<float> &x, const std::vector<int> &y, int dims,
                           double ridge = kDefaultRidge);

} // namespace dxan
