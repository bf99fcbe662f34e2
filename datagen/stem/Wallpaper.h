// The 17 plane (wallpaper) groups as lists of symmetry operations in
// fractional coordinates of the conventional cell, from the International
// Tables for Crystallography, Vol. A (standard settings: origin on the
// highest-order rotation centre, mirrors of pm/cm perpendicular to a,
// hexagonal cells with gamma = 120 degrees). The centred groups cm and cmm
// list their operations twice, once plus the centring (1/2, 1/2), so applying
// every operation to a point gives its whole orbit in the conventional cell.
#pragma once

#include "stem/Geometry.h"
#include "stem/Lattice.h"

#include <string>
#include <vector>

namespace dxgen::stem {

// x' = R x + t in fractional coordinates (R integer: it maps the lattice to itself).
struct SymOp {
  int r00, r01, r10, r11;
  double t0, t1;
  Vec2 apply(Vec2 f) const { return {r00 * f.x + r01 * f.y + t0, r10 * f.x + r11 * f.y + t1}; }
  bool identity_part() const { return r00 == 1 && r01 == 0 && r10 == 0 && r11 == 1; }
  // The Cartesian linear part for a cell with columns a, b: B R B^-1.
  Mat2 cartesian(Vec2 a, Vec2 b) const;
};

struct WallpaperGroup {
  const char *name;               // "p4g"
  LatticeSystem system;
  std::vector<SymOp> ops;         // identity first
  int point_group_order() const;  // distinct linear parts: 1, 2, 3, 4, 6, 8 or 12
};

constexpr int kWallpaperGroups = 17;
// Label order of --task wallpaper: p1 p2 pm pg cm pmm pmg pgg cmm p4 p4m p4g p3 p3m1 p31m p6 p6m.
const WallpaperGroup &wallpaper_group(int label);

} // namespace dxgen::stem
