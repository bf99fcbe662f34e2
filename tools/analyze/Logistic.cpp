#include "Logistic.h"

#include <cmath>
#include <stdexcept>

namespace dxan {
namespace {

// log(1 + e^eta) without overflow for large |eta|.
double softplus(double eta) { return eta > 0 ? eta + std::log1p(std::exp(-eta)) : std::log1p(std::exp(eta)); }

double sigmoid(double eta) {
  if (eta >= 0) return 1.0 / (1.0 + std::exp(-eta));
  const double e = std::exp(eta);
  return e / (1.0 + e);
}

// Solves H x = g for a symmetric positive definite H (k x k, row-major) by
// Cholesky; the ridge keeps H positive definite even when every p(1-p) has
// underflowed to 0 on perfectly separated data.
std::vector<double> solve_spd(std::vector<double> h, std::vector<double> g, int k) {
  for (int j = 0; j < k; ++j) {
    double d = h[j * k + j];
    for (int m = 0; m < j; ++m) d -= h[j * k + m] * h[j * k + m];
    if (!(d > 0)) throw std::runtime_error("logistic regression: singular Hessian");
    d = std::sqrt(d);
    h[j * k + j] = d;
    for (int i = j + 1; i < k; ++i) {
      double s = h[i * k + j];
      for (int m = 0; m < j; ++m) s -= h[i * k + m] * h[j * k + m];
      h[i * k + j] = s / d;
    }
  }
  for (int i = 0; i < k; ++i) { // L y = g
    for (int m = 0; m < i; ++m) g[i] -= h[i * k + m] * g[m];
    g[i] /= h[i * k + i];
  }
  for (int i = k - 1; i >= 0; --i) { // L^T x = y
    for (int m = i + 1; m < k; ++m) g[i] -= h[m * k + i] * g[m];
    g[i] /= h[i * k + i];
  }
  return g;
}

} // namespace

double LogisticModel::logit(const float *x) const {
  double eta = bias;
  for (size_t d = 0; d < weights.size(); ++d) eta += weights[d] * (double(x[d]) - mean[d]) / scale[d];
  return eta;
}

std::vector<double> LogisticModel::raw_weights() const {
  std::vector<double> w(weights.size());
  for (size_t d = 0; d < w.size(); ++d) w[d] = weights[d] / scale[d];
  return w;
}

double LogisticModel::raw_bias() const {
  double b = bias;
  for (size_t d = 0; d < weights.size(); ++d) b -= weights[d] * mean[d] / scale[d];
  return b;
}

LogisticModel fit_logistic(const std::vector<float> &x, const std::vector<int> &y, int dims, double ridge) {
  const int64_t n = int64_t(y.size());
  if (n == 0 || int64_t(x.size()) != n * dims) throw std::invalid_argument("fit_logistic: bad sizes");
  LogisticModel m;
  m.mean.assign(dims, 0.0);
  m.scale.assign(dims, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < dims; ++d) m.mean[d] += x[i * dims + d];
  for (int d = 0; d < dims; ++d) m.mean[d] /= double(n);
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < dims; ++d) m.scale[d] += std::pow(x[i * dims + d] - m.mean[d], 2);
  for (int d = 0; d < dims; ++d) {
    m.scale[d] = std::sqrt(m.scale[d] / double(n));
    if (!(m.scale[d] > 0)) m.scale[d] = 1.0; // a constant dimension: nothing to standardise
  }

  // Standardised design matrix with a trailing column of ones (the bias).
  const int k = dims + 1;
  std::vector<double> z(size_t(n) * k);
  for (int64_t i = 0; i < n; ++i) {
    for (int d = 0; d < dims; ++d) z[i * k + d] = (x[i * dims + d] - m.mean[d]) / m.scale[d];
    z[i * k + dims] = 1.0;
  }
  std::vector<double> beta(k, 0.0);
  auto eta_of = [&](const std::vector<double> &b, int64_t i) {
    double e = 0;
    for (int c = 0; c < k; ++c) e += z[i * k + c] * b[c];
    return e;
  };
  auto objective = [&](const std::vector<double> &b) {
    double loss = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double e = eta_of(b, i);
      loss += softplus(e) - (y[i] ? e : 0.0);
    }
    double norm2 = 0;
    for (double v : b) norm2 += v * v;
    return loss / double(n) + 0.5 * ridge * norm2;
  };

  double current = objective(beta);
  for (m.iterations = 1; m.iterations <= 200; ++m.iterations) {
    std::vector<double> grad(k, 0.0), hess(size_t(k) * k, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const double p = sigmoid(eta_of(beta, i));
      const double r = p - y[i], w = p * (1.0 - p);
      for (int a = 0; a < k; ++a) {
        grad[a] += r * z[i * k + a];
        for (int b = 0; b <= a; ++b) hess[a * k + b] += w * z[i * k + a] * z[i * k + b];
      }
    }
    for (int a = 0; a < k; ++a) {
      grad[a] = grad[a] / double(n) + ridge * beta[a];
      for (int b = 0; b <= a; ++b) hess[a * k + b] = hess[b * k + a] = hess[a * k + b] / double(n);
      hess[a * k + a] += ridge;
    }
    const std::vector<double> step = solve_spd(hess, grad, k);
    double decrement = 0; // grad . H^-1 grad: twice the predicted decrease
    for (int a = 0; a < k; ++a) decrement += grad[a] * step[a];
    if (decrement < 1e-14) {
      m.converged = true;
      break;
    }
    // Backtracking (Armijo): a full Newton step can overshoot far from the
    // optimum, where the log-loss is nearly linear.
    double t = 1.0;
    std::vector<double> next(k);
    double value = current;
    for (; t > 1e-12; t *= 0.5) {
      for (int a = 0; a < k; ++a) next[a] = beta[a] - t * step[a];
      value = objective(next);
      if (value <= current - 1e-4 * t * decrement) break;
    }
    if (t <= 1e-12) { // no descent left at double precision: as good as converged
      m.converged = true;
      break;
    }
    beta = next;
    current = value;
  }
  m.weights.assign(beta.begin(), beta.begin() + dims);
  m.bias = beta[dims];
  return m;
}

} // namespace dxan
