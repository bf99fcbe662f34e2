// A 2-D crystal: a lattice (conventional cell) and the atoms of one cell,
// and the generators that draw a random crystal of a Bravais class or of a
// wallpaper group. A wallpaper crystal is built the way crystallographers
// describe one: a few atoms of the asymmetric unit, in general or special
// positions, each expanded into its orbit by every operation of the group,
// so the atom set has the group's symmetry by construction; a candidate that
// happens to have more symmetry than its group (within a margin) is redrawn,
// so each label is the crystal's full symmetry, not a subgroup of it.
#pragma once

#include "common/Rng.h"
#include "stem/Lattice.h"
#include "stem/Wallpaper.h"

#include <vector>

namespace dxgen::stem {

struct Atom {
  Vec2 f; // fractional coordinates in the conventional cell, in [0, 1)
  int z;  // atomic number
};

struct Crystal {
  Basis basis;             // Å
  std::vector<Atom> atoms; // every atom of the conventional cell (centring copies included)

  Vec2 cart(Vec2 f) const { return f.x * basis.a + f.y * basis.b; }
  Vec2 frac(Vec2 r) const { return Mat2::columns(basis.a, basis.b).inverse() * r; }
  // Shortest distance (Å) between the points with fractional difference df
  // under the conventional lattice's translations.
  double periodic_distance(Vec2 df) const;
  // Shortest distance between two distinct atoms, over all translations (Å).
  double min_separation() const;
};

// How motifs are drawn (defaults documented in docs/datagen-stem.md).
struct MotifOptions {
  std::vector<int> elements{6, 8, 14, 16, 22, 26, 29, 31, 34, 42, 47, 50, 56, 64, 74, 79};
  double z_exponent = 1.7;           // HAADF column intensity ~ Z^1.7
  double max_contrast = 4.0;         // brightest / faintest column of one crystal (Z^1.7 ratio)
  double area_per_atom_min = 6.0;    // Å² per atom: sets the cell size from the atom count
  double area_per_atom_max = 9.0;
  double min_separation = 1.5;       // Å between any two columns
  double symmetry_margin = 0.4;      // Å: no extra symmetry even approximately, within this
  int max_atoms_per_cell = 12;       // per primitive cell
};

// Wraps fractional coordinates into [0, 1).
Vec2 wrap(Vec2 f);
// The orbit of fractional point f under the group's operations, wrapped and
// without duplicates (a point on a mirror or rotation centre has a short orbit).
std::vector<Vec2> orbit(const WallpaperGroup &g, Vec2 f);

// A crystal of Bravais class s: 1 or 2 atoms per primitive cell.
Crystal make_bravais_crystal(LatticeSystem s, const MotifOptions &opt, Rng &rng);
// A crystal whose symmetry is exactly wallpaper group `label` (0..16).
Crystal make_wallpaper_crystal(int label, const MotifOptions &opt, Rng &rng);

} // namespace dxgen::stem
