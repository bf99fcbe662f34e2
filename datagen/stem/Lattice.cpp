#include "stem/Lattice.h"

#include <cmath>

namespace dxgen::stem {

const char *lattice_system_name(LatticeSystem s) {
  switch (s) {
  case LatticeSystem::Oblique: return "oblique";
  case LatticeSystem::Rectangular: return "rectangular";
  case LatticeSystem::CentredRectangular: return "centred-rectangular";
  case LatticeSystem::Square: return "square";
  case LatticeSystem::Hexagonal: return "hexagonal";
  }
  return "?";
}

namespace {

constexpr double kDeg = M_PI / 180.0;

// Rectangle with sides 1 and `ratio`, the long side along a or b at random.
Basis rectangle(double ratio, bool centred, Rng &rng) {
  const bool long_a = rng.uniform() < 0.5;
  const double la = long_a ? ratio : 1.0, lb = long_a ? 1.0 : ratio;
  return {{la, 0}, {0, lb}, centred};
}

Basis unit_area(Basis b) { return b.scaled(1.0 / std::sqrt(b.primitive_area())); }

} // namespace

Basis sample_basis(LatticeSystem s, Rng &rng) {
  using M = LatticeMargins;
  switch (s) {
  case LatticeSystem::Oblique:
    // Rejection from the box of (gamma, ratio): the offset condition cuts off
    // the corner where the cell approaches a centred one.
    for (;;) {
      const double gamma = rng.uniform(M::oblique_gamma_min, M::oblique_gamma_max) * kDeg;
      const double ratio = rng.uniform(M::oblique_ratio_min, M::oblique_ratio_max);
      if (ratio * std::abs(std::cos(gamma)) > M::oblique_offset_max) continue;
      return unit_area({{1, 0}, {ratio * std::cos(gamma), ratio * std::sin(gamma)}, false});
    }
  case LatticeSystem::Rectangular:
    return unit_area(rectangle(rng.uniform(M::rect_min, M::rect_max), false, rng));
  case LatticeSystem::CentredRectangular: {
    // The two admissible intervals in proportion to their lengths.
    const double low = M::crect_low_max - M::crect_low_min, high = M::crect_high_max - M::crect_high_min;
    const double u = rng.uniform(0, low + high);
    const double ratio = u < low ? M::crect_low_min + u : M::crect_high_min + (u - low);
    return unit_area(rectangle(ratio, true, rng));
  }
  case LatticeSystem::Square:
    return {{1, 0}, {0, 1}, false};
  case LatticeSystem::Hexagonal:
    return unit_area({{1, 0}, {-0.5, std::sqrt(3.0) / 2}, false});
  }
  return {};
}

} // namespace dxgen::stem
