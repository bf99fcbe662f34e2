#include "peptide/Integrator.h"

#include <cmath>

namespace dxgen::peptide {

double kinetic_energy(const Coords &v) {
  double k = 0;
  for (const Vec3 &u : v) k += 0.5 * norm2(u);
  return k;
}

State make_state(const Forcefield &ff, Coords x, double temperature, Rng &rng) {
  State s;
  s.x = std::move(x);
  s.v.resize(s.x.size());
  const double sd = std::sqrt(temperature);
  for (Vec3 &u : s.v) u = {sd * rng.normal(), sd * rng.normal(), sd * rng.normal()};
  s.potential = ff.energy(s.x, &s.f);
  return s;
}

LangevinBAOAB::LangevinBAOAB(double dt, double friction, double temperature)
    : dt_(dt), c1_(std::exp(-friction * dt)),
      // The O step's noise keeps ⟨v²⟩ = k_B T per component: variance (1 − c1²) T.
      c2_(std::sqrt((1.0 - std::exp(-2.0 * friction * dt)) * temperature)) {}

void LangevinBAOAB::step(const Forcefield &ff, State &s, Rng &rng) const {
  const size_t n = s.x.size();
  const double h = 0.5 * dt_;
  for (size_t i = 0; i < n; ++i) {
    s.v[i] += h * s.f[i];                                               // B
    s.x[i] += h * s.v[i];                                               // A
    s.v[i] = c1_ * s.v[i] + c2_ * Vec3{rng.normal(), rng.normal(), rng.normal()}; // O
    s.x[i] += h * s.v[i];                                               // A
  }
  s.potential = ff.energy(s.x, &s.f);
  for (size_t i = 0; i < n; ++i) s.v[i] += h * s.f[i];                  // B
}

void velocity_verlet_step(const Forcefield &ff, State &s, double dt) {
  const size_t n = s.x.size();
  for (size_t i = 0; i < n; ++i) {
    s.v[i] += 0.5 * dt * s.f[i];
    s.x[i] += dt * s.v[i];
  }
  s.potential = ff.energy(s.x, &s.f);
  for (size_t i = 0; i < n; ++i) s.v[i] += 0.5 * dt * s.f[i];
}

} // namespace dxgen::peptide
