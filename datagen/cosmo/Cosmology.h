// Linear theory of a flat LambdaCDM universe for dx-datagen cosmo
// (docs/datagen-cosmo.md): the matter power spectrum P(k) = A k^n_s T(k)^2
// with the BBKS or the Eisenstein-Hu no-wiggle transfer function, A fixed
// by sigma_8 (the rms linear density contrast in top-hat spheres of
// 8 Mpc/h), and the linear growth factor D(z). Lengths in Mpc/h, wavenumbers
// in h/Mpc, P(k) in (Mpc/h)^3.
#pragma once

#include <string>

namespace dxgen::cosmo {

struct CosmoParams {
  double omega_m = 0.3; // matter density today (flat: Omega_Lambda = 1 - Omega_m)
  double sigma8 = 0.8;  // rms of the linear density in 8 Mpc/h top-hat spheres at z = 0
  double n_s = 0.96;    // primordial spectral index
  double h = 0.7;       // H0 / (100 km/s/Mpc)
};

// Fixed, not drawn: the baryon density (for the baryon suppression of both
// transfer functions) and the CMB temperature (Eisenstein-Hu).
constexpr double kOmegaB = 0.049;
constexpr double kTcmb = 2.7255; // K

enum class Transfer { BBKS, EisensteinHu };
std::string transfer_name(Transfer t); // "bbks", "eh"

// BBKS (Bardeen et al. 1986, eq. G3) with Sugiyama's (1995) shape parameter
// Gamma = Omega_m h exp(-Omega_b - sqrt(2h) Omega_b / Omega_m); k in h/Mpc.
double transfer_bbks(double k, const CosmoParams &p);
// Eisenstein & Hu (1998) eqs. 26-31, the zero-baryon-oscillation form.
double transfer_eh_nowiggle(double k, const CosmoParams &p);

// Fourier transform of the unit-volume top hat of radius R at x = kR:
// W(x) = 3 (sin x - x cos x) / x^3.
double tophat_window(double x);

// The linear power spectrum at z = 0, normalised to p.sigma8.
class Spectrum {
public:
  Spectrum(const CosmoParams &p, Transfer t);
  double operator()(double k) const; // P(k), 0 for k <= 0
  double transfer(double k) const;
  // sigma_R^2 = 1/(2 pi^2) int_0^inf k^2 P(k) W(kR)^2 dk (numerically).
  double sigma2(double radius) const;
  double amplitude() const { return amplitude_; }
  const CosmoParams &params() const { return params_; }
  Transfer transfer_kind() const { return transfer_; }

private:
  CosmoParams params_;
  Transfer transfer_;
  double amplitude_ = 1;
};

// The linear growth factor of a flat LambdaCDM universe normalised to
// D(0) = 1: D(a) ∝ (5 Omega_m / 2) E(a) int_0^a da' / (a' E(a'))^3 with
// E(a) = sqrt(Omega_m a^-3 + 1 - Omega_m) (Heath 1977), integrated numerically.
double growth_factor(double z, double omega_m);
// Carroll, Press & Turner (1992): D = g(z) / (g(0) (1 + z)),
// g = 5/2 Om / (Om^(4/7) - OL + (1 + Om/2)(1 + OL/70)) at the Omega(z)s.
double growth_factor_cpt(double z, double omega_m);

} // namespace dxgen::cosmo
