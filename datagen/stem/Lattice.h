// The five 2-D Bravais lattices and how the generator draws one: a random
// cell shape that is honestly a member of its class, i.e. kept a margin away
// from every more symmetric class (a "rectangular" cell with |b|/|a| = 1.02
// is a square one to any microscope, and no classifier could learn the
// label). The margins are in LatticeMargins and docs/datagen-stem.md.
#pragma once

#include "common/Rng.h"
#include "stem/Geometry.h"

#include <string>

namespace dxgen::stem {

// Ordered as the labels of --task bravais.
enum class LatticeSystem { Oblique = 0, Rectangular = 1, CentredRectangular = 2, Square = 3, Hexagonal = 4 };
constexpr int kLatticeSystems = 5;
const char *lattice_system_name(LatticeSystem s); // "oblique", ..., "centred-rectangular"

// A lattice given by its conventional cell: a along +x, b in the upper half
// plane; `centred` adds the lattice point (a + b) / 2 (centred rectangular).
struct Basis {
  Vec2 a, b;
  bool centred = false;
  double area() const { return std::abs(cross(a, b)); }           // conventional cell, Å²
  double primitive_area() const { return centred ? area() / 2 : area(); }
  // A primitive basis: (a, b), or ((a + b) / 2, (b - a) / 2) when centred.
  Vec2 primitive_a() const { return centred ? 0.5 * (a + b) : a; }
  Vec2 primitive_b() const { return centred ? 0.5 * (b - a) : b; }
  Basis scaled(double s) const { return {s * a, s * b, centred}; }
};

// The margins that keep classes apart (ratios are long/short side, angles in
// degrees; see docs/datagen-stem.md for why these values).
struct LatticeMargins {
  // Rectangular: |b|/|a| (or |a|/|b|) in [rect_min, rect_max].
  static constexpr double rect_min = 1.2, rect_max = 2.0;
  // Centred rectangular: conventional |b|/|a| in [1.2, sqrt(3)/1.1] or
  // [1.1 sqrt(3), 2.5]; sqrt(3) is the hexagonal lattice, 1 the square one.
  static constexpr double crect_low_min = 1.2, crect_low_max = 1.5746, crect_high_min = 1.9053,
                          crect_high_max = 2.5;
  // Oblique, on its reduced cell (|a| <= |b|, 90 <= gamma): gamma in
  // [oblique_gamma_min, oblique_gamma_max], |b|/|a| in [oblique_ratio_min,
  // oblique_ratio_max], and |b| |cos gamma| / |a| <= oblique_offset_max so the
  // lattice is not a slightly sheared centred one (0.5 would be centred).
  static constexpr double oblique_gamma_min = 99, oblique_gamma_max = 111, oblique_ratio_min = 1.15,
                          oblique_ratio_max = 1.6, oblique_offset_max = 0.35;
};

// A cell of the class with unit primitive area (the caller scales it to the
// motif's density), a along +x. The long side of rectangular and centred
// cells is a or b with equal chance, so the orientation of the group's
// mirrors relative to the long side carries no information.
Basis sample_basis(LatticeSystem s, Rng &rng);

} // namespace dxgen::stem
