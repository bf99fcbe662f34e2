// Finds the symmetry of a crystal's atom set, independently of how it was
// built: which rotations and mirrors (at any centre or line position) and
// which translations map every atom onto an atom. The generator uses it to
// reject crystals with more symmetry than their label (within a margin, on
// positions alone, so no label is contradicted by how the image looks); the
// tests use it to check that each group's crystals have exactly the group's
// symmetry.
#pragma once

#include "stem/Crystal.h"

#include <vector>

namespace dxgen::stem {

struct MirrorLine {
  int angle_deg; // direction of the line from the lattice vector a, in [0, 180), a multiple of 15
  bool pure;     // a true mirror exists in this direction (else only glide reflections)
};

struct SymmetryReport {
  std::vector<int> rotations;       // admitted rotation angles, degrees (60, 90, 120, 180, 240, 270, 300)
  std::vector<MirrorLine> mirrors;  // admitted reflection directions
  std::vector<Vec2> translations;   // fractional translations that are not conventional lattice vectors
  int point_group_order() const { return 1 + int(rotations.size() + mirrors.size()); }
};

// Whether x -> W x + t (Cartesian, Å) maps every atom to within `tolerance`
// Å of an atom (of the same Z when match_z).
bool is_symmetry(const Crystal &c, const Mat2 &W, Vec2 t, double tolerance, bool match_z);

SymmetryReport analyse_symmetry(const Crystal &c, double tolerance, bool match_z);

// The symmetry the group's operations imply on a cell with this basis, in
// the same terms (a mirror direction is pure when any of its operations,
// after a lattice translation, is a true mirror).
SymmetryReport group_symmetry(const WallpaperGroup &g, const Basis &basis);

// Same rotations, same mirror directions with the same purity, same number
// of non-lattice translations.
bool same_symmetry(const SymmetryReport &x, const SymmetryReport &y);

} // namespace dxgen::stem
