#include "cosmo/Cosmology.h"

#include <cmath>
#include <stdexcept>

namespace dxgen::cosmo {

std::string transfer_name(Transfer t) { return t == Transfer::BBKS ? "bbks" : "eh"; }

double transfer_bbks(double k, const CosmoParams &p) {
  const double gamma = p.omega_m * p.h * std::exp(-kOmegaB - std::sqrt(2 * p.h) * kOmegaB / p.omega_m);
  const double q = k / gamma;
  if (q < 1e-8) return 1.0;
  const double a = 2.34 * q;
  return std::log1p(a) / a *
         std::pow(1 + 3.89 * q + std::pow(16.1 * q, 2) + std::pow(5.46 * q, 3) + std::pow(6.71 * q, 4), -0.25);
}

double transfer_eh_nowiggle(double k, const CosmoParams &p) {
  const double h2 = p.h * p.h, wm = p.omega_m * h2, wb = kOmegaB * h2, fb = kOmegaB / p.omega_m;
  const double theta = kTcmb / 2.7;
  const double s = 44.5 * std::log(9.83 / wm) / std::sqrt(1 + 10 * std::pow(wb, 0.75)); // Mpc
  const double alpha = 1 - 0.328 * std::log(431 * wm) * fb + 0.38 * std::log(22.3 * wm) * fb * fb;
  const double kmpc = k * p.h; // 1/Mpc
  const double gamma_eff = p.omega_m * p.h * (alpha + (1 - alpha) / (1 + std::pow(0.43 * kmpc * s, 4)));
  const double q = k * theta * theta / gamma_eff;
  const double l0 = std::log(2 * M_E + 1.8 * q), c0 = 14.2 + 731 / (1 + 62.5 * q);
  return l0 / (l0 + c0 * q * q);
}

double tophat_window(double x) {
  if (std::fabs(x) < 1e-3) return 1 - x * x / 10;
  return 3 * (std::sin(x) - x * std::cos(x)) / (x * x * x);
}

namespace {

// 1/(2 pi^2) int k^3 P_unnormalised(k) W(kR)^2 dln k, Simpson in ln k over
// [1e-5, 1e3] h/Mpc (the integrand is below 1e-12 of its peak outside).
template <class P> double sigma2_of(const P &power, double radius) {
  const double lo = std::log(1e-5), hi = std::log(1e3);
  const int steps = 4000;
  const double dx = (hi - lo) / steps;
  double sum = 0;
  for (int i = 0; i <= steps; ++i) {
    const double k = std::exp(lo + dx * i), w = tophat_window(k * radius);
    const double f = k * k * k * power(k) * w * w;
    sum += f * (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2);
  }
  return sum * dx / 3 / (2 * M_PI * M_PI);
}

} // namespace

Spectrum::Spectrum(const CosmoParams &p, Transfer t) : params_(p), transfer_(t) {
  if (!(p.omega_m > 0 && p.omega_m <= 1 && p.sigma8 > 0 && p.h > 0))
    throw std::invalid_argument("Spectrum: need 0 < Omega_m <= 1, sigma_8 > 0, h > 0");
  amplitude_ = 1;
  amplitude_ = p.sigma8 * p.sigma8 / sigma2(8.0);
}

double Spectrum::transfer(double k) const {
  return transfer_ == Transfer::BBKS ? transfer_bbks(k, params_) : transfer_eh_nowiggle(k, params_);
}

double Spectrum::operator()(double k) const {
  if (k <= 0) return 0;
  const double t = transfer(k);
  return amplitude_ * std::pow(k, params_.n_s) * t * t;
}

double Spectrum::sigma2(double radius) const {
  return sigma2_of([this](double k) { return (*this)(k); }, radius);
}

double growth_factor(double z, double omega_m) {
  const double ol = 1 - omega_m;
  // D(a) ∝ E(a) int_0^a da' (Omega_m/a' + OL a'^2)^(-3/2); with a' = u^2 the
  // integrand 2u (Omega_m/u^2 + OL u^4)^(-3/2) ~ u^4 is smooth at 0.
  auto unnormalised = [&](double a) {
    const double top = std::sqrt(a);
    const int steps = 2000;
    const double du = top / steps;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
      const double u = du * i;
      const double f = u == 0 ? 0 : 2 * u * std::pow(omega_m / (u * u) + ol * u * u * u * u, -1.5);
      sum += f * (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2);
    }
    const double e = std::sqrt(omega_m / (a * a * a) + ol);
    return 2.5 * omega_m * e * sum * du / 3;
  };
  return unnormalised(1 / (1 + z)) / unnormalised(1.0);
}

double growth_factor_cpt(double z, double omega_m) {
  auto g = [omega_m](double zz) {
    const double ol0 = 1 - omega_m, a3 = std::pow(1 + zz, 3);
    const double e2 = omega_m * a3 + ol0, om = omega_m * a3 / e2, ol = ol0 / e2;
    return 2.5 * om / (std::pow(om, 4.0 / 7.0) - ol + (1 + om / 2) * (1 + ol / 70));
  };
  return g(z) / (g(0) * (1 + z));
}

} // namespace dxgen::cosmo
