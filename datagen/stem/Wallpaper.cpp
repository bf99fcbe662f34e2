#include "stem/Wallpaper.h"

#include <set>
#include <tuple>

namespace dxgen::stem {

Mat2 SymOp::cartesian(Vec2 a, Vec2 b) const {
  const Mat2 B = Mat2::columns(a, b);
  return B * Mat2{double(r00), double(r01), double(r10), double(r11)} * B.inverse();
}

int WallpaperGroup::point_group_order() const {
  std::set<std::tuple<int, int, int, int>> parts;
  for (const SymOp &op : ops) parts.insert({op.r00, op.r01, op.r10, op.r11});
  return int(parts.size());
}

namespace {

constexpr double h = 0.5;
using LS = LatticeSystem;

// The operations plus the same operations shifted by the centring (1/2, 1/2).
std::vector<SymOp> centred(std::vector<SymOp> ops) {
  const size_t n = ops.size();
  for (size_t i = 0; i < n; ++i) {
    SymOp c = ops[i];
    c.t0 += h;
    c.t1 += h;
    ops.push_back(c);
  }
  return ops;
}

std::vector<WallpaperGroup> make_groups() {
  // Linear parts, named by their action on (x, y).
  const SymOp e{1, 0, 0, 1, 0, 0};
  auto op = [](int a, int b, int c, int d, double t0 = 0, double t1 = 0) { return SymOp{a, b, c, d, t0, t1}; };
  // Square: 4-fold (-y, x) and its powers; hexagonal: 3-fold (-y, x-y).
  const std::vector<SymOp> p4{e, op(-1, 0, 0, -1), op(0, -1, 1, 0), op(0, 1, -1, 0)};
  const std::vector<SymOp> p3{e, op(0, -1, 1, -1), op(-1, 1, -1, 0)};
  auto join = [](std::vector<SymOp> a, const std::vector<SymOp> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::vector<SymOp> p6 = join(p3, {op(-1, 0, 0, -1), op(0, 1, -1, 1), op(1, -1, 1, 0)});
  // p3m1: mirrors (-y, -x), (-x+y, y), (x, x-y); p31m: (y, x), (x-y, -y), (-x, -x+y).
  const std::vector<SymOp> m3m1{op(0, -1, -1, 0), op(-1, 1, 0, 1), op(1, 0, 1, -1)};
  const std::vector<SymOp> m31m{op(0, 1, 1, 0), op(1, -1, 0, -1), op(-1, 0, -1, 1)};
  return {
      {"p1", LS::Oblique, {e}},
      {"p2", LS::Oblique, {e, op(-1, 0, 0, -1)}},
      {"pm", LS::Rectangular, {e, op(-1, 0, 0, 1)}},
      {"pg", LS::Rectangular, {e, op(-1, 0, 0, 1, 0, h)}},
      {"cm", LS::CentredRectangular, centred({e, op(-1, 0, 0, 1)})},
      {"pmm", LS::Rectangular, {e, op(-1, 0, 0, -1), op(-1, 0, 0, 1), op(1, 0, 0, -1)}},
      {"pmg", LS::Rectangular, {e, op(-1, 0, 0, -1), op(-1, 0, 0, 1, h, 0), op(1, 0, 0, -1, h, 0)}},
      {"pgg", LS::Rectangular, {e, op(-1, 0, 0, -1), op(-1, 0, 0, 1, h, h), op(1, 0, 0, -1, h, h)}},
      {"cmm", LS::CentredRectangular, centred({e, op(-1, 0, 0, -1), op(-1, 0, 0, 1), op(1, 0, 0, -1)})},
      {"p4", LS::Square, p4},
      {"p4m", LS::Square, join(p4, {op(-1, 0, 0, 1), op(1, 0, 0, -1), op(0, 1, 1, 0), op(0, -1, -1, 0)})},
      {"p4g", LS::Square,
       join(p4, {op(-1, 0, 0, 1, h, h), op(1, 0, 0, -1, h, h), op(0, 1, 1, 0, h, h), op(0, -1, -1, 0, h, h)})},
      {"p3", LS::Hexagonal, p3},
      {"p3m1", LS::Hexagonal, join(p3, m3m1)},
      {"p31m", LS::Hexagonal, join(p3, m31m)},
      {"p6", LS::Hexagonal, p6},
      {"p6m", LS::Hexagonal, join(join(p6, m3m1), m31m)},
  };
}

} // namespace

const WallpaperGroup &wallpaper_group(int label) {
  static const std::vector<WallpaperGroup> groups = make_groups();
  return groups.at(size_t(label));
}

} // namespace dxgen::stem
