#include "peptide/Chain.h"

#include <cmath>

namespace dxgen::peptide {

double helix_radius() {
  // Consecutive beads: chord 2 r sin(twist/2) in the xy plane and rise
  // along z, so bond² = (2 r sin(twist/2))² + rise².
  const double half = kHelixTwistDeg * M_PI / 360.0;
  return std::sqrt(kBondLength * kBondLength - kHelixRise * kHelixRise) / (2.0 * std::sin(half));
}

Coords ideal_helix(int n) {
  const double r = helix_radius(), twist = kHelixTwistDeg * M_PI / 180.0;
  Coords x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    // Centred on the origin along z so the structure needs no later shift.
    x[size_t(i)] = {r * std::cos(twist * i), r * std::sin(twist * i), kHelixRise * (i - 0.5 * (n - 1))};
  }
  return x;
}

} // namespace dxgen::peptide
