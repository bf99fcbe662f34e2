#include "stem/Symmetry.h"

#include <algorithm>
#include <cmath>

namespace dxgen::stem {

namespace {

bool near_integer(double v, double eps) { return std::abs(v - std::round(v)) < eps; }

// W maps the lattice (centring included) onto itself: a prerequisite of any
// symmetry with linear part W, and it rules out e.g. 90-degree rotations of
// a rectangular cell before any atoms are compared.
bool lattice_compatible(const Crystal &c, const Mat2 &W) {
  const Mat2 Binv = Mat2::columns(c.basis.a, c.basis.b).inverse();
  for (Vec2 v : {c.basis.a, c.basis.b}) {
    const Vec2 f = Binv * (W * v);
    const bool plain = near_integer(f.x, 1e-6) && near_integer(f.y, 1e-6);
    const bool centring = c.basis.centred && near_integer(f.x - 0.5, 1e-6) && near_integer(f.y - 0.5, 1e-6);
    if (!plain && !centring) return false;
  }
  return true;
}

// The period of the lattice's projections onto the direction u (a mirror
// direction of the lattice, so they form a 1-D lattice): a glide whose
// component along u is a multiple of it is, after a lattice translation, a
// pure mirror.
double projection_period(const Basis &basis, Vec2 u) {
  double best = 1e300;
  for (int m = -6; m <= 6; ++m)
    for (int n = -6; n <= 6; ++n)
      for (int centre = 0; centre <= (basis.centred ? 1 : 0); ++centre) {
        const Vec2 l = (m + 0.5 * centre) * basis.a + (n + 0.5 * centre) * basis.b;
        const double s = std::abs(dot(l, u));
        if (s > 1e-6 * norm(basis.a) && s < best) best = s;
      }
  return best;
}

} // namespace

bool is_symmetry(const Crystal &c, const Mat2 &W, Vec2 t, double tolerance, bool match_z) {
  const Mat2 Binv = Mat2::columns(c.basis.a, c.basis.b).inverse();
  for (const Atom &ai : c.atoms) {
    const Vec2 p = Binv * (W * c.cart(ai.f) + t);
    bool found = false;
    for (const Atom &am : c.atoms) {
      if (match_z && am.z != ai.z) continue;
      if (c.periodic_distance(p - am.f) < tolerance) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

SymmetryReport analyse_symmetry(const Crystal &c, double tolerance, bool match_z) {
  SymmetryReport report;
  if (c.atoms.empty()) return report;
  const Atom &a0 = c.atoms[0];
  const Vec2 r0 = c.cart(a0.f);
  // Every symmetry with linear part W maps atom 0 onto some atom j, so its
  // translation is one of r_j - W r_0: a finite list of candidates.
  auto valid_translations = [&](const Mat2 &W) {
    std::vector<Vec2> ts;
    for (const Atom &aj : c.atoms) {
      if (match_z && aj.z != a0.z) continue;
      const Vec2 t = c.cart(aj.f) - W * r0;
      if (is_symmetry(c, W, t, tolerance, match_z)) ts.push_back(t);
    }
    return ts;
  };
  for (int deg : {60, 90, 120, 180, 240, 270, 300}) {
    const Mat2 W = Mat2::rotation(deg * M_PI / 180);
    if (lattice_compatible(c, W) && !valid_translations(W).empty()) report.rotations.push_back(deg);
  }
  const double phi_a = std::atan2(c.basis.a.y, c.basis.a.x);
  for (int deg = 0; deg < 180; deg += 15) {
    const double phi = phi_a + deg * M_PI / 180;
    const Mat2 W = Mat2::mirror(phi);
    if (!lattice_compatible(c, W)) continue;
    const std::vector<Vec2> ts = valid_translations(W);
    if (ts.empty()) continue;
    const Vec2 u{std::cos(phi), std::sin(phi)};
    const double period = projection_period(c.basis, u);
    bool pure = false;
    for (Vec2 t : ts) {
      double g = std::fmod(dot(t, u), period);
      if (g < 0) g += period;
      pure = pure || std::min(g, period - g) < tolerance;
    }
    report.mirrors.push_back({deg, pure});
  }
  std::sort(report.rotations.begin(), report.rotations.end());
  for (const Atom &aj : c.atoms) {
    if (match_z && aj.z != a0.z) continue;
    const Vec2 df = wrap(aj.f - a0.f);
    if (c.periodic_distance(df) < tolerance) continue; // a lattice vector
    if (!is_symmetry(c, Mat2{}, c.cart(aj.f) - r0, tolerance, match_z)) continue;
    bool seen = false;
    for (Vec2 t : report.translations) seen = seen || c.periodic_distance(t - df) < tolerance;
    if (!seen) report.translations.push_back(df);
  }
  return report;
}

SymmetryReport group_symmetry(const WallpaperGroup &g, const Basis &basis) {
  SymmetryReport report;
  const double phi_a = std::atan2(basis.a.y, basis.a.x);
  for (const SymOp &op : g.ops) {
    const Mat2 W = op.cartesian(basis.a, basis.b);
    const Vec2 t = op.t0 * basis.a + op.t1 * basis.b;
    if (op.identity_part()) {
      if (!near_integer(op.t0, 1e-9) || !near_integer(op.t1, 1e-9)) report.translations.push_back({op.t0, op.t1});
    } else if (W.det() > 0) {
      int deg = int(std::lround(std::atan2(W.m10, W.m00) * 180 / M_PI));
      deg = (deg + 360) % 360;
      if (std::find(report.rotations.begin(), report.rotations.end(), deg) == report.rotations.end())
        report.rotations.push_back(deg);
    } else {
      // A reflection across the line at phi has W = [[cos 2phi, sin 2phi], [sin 2phi, -cos 2phi]].
      const double phi = 0.5 * std::atan2(W.m10, W.m00);
      int deg = int(std::lround((phi - phi_a) * 180 / M_PI));
      deg = ((deg % 180) + 180) % 180;
      const Vec2 u{std::cos(phi), std::sin(phi)};
      const double period = projection_period(basis, u);
      double gl = std::fmod(dot(t, u), period);
      if (gl < 0) gl += period;
      const bool pure = std::min(gl, period - gl) < 1e-9 * period;
      auto it = std::find_if(report.mirrors.begin(), report.mirrors.end(),
                             [&](const MirrorLine &m) { return m.angle_deg == deg; });
      if (it == report.mirrors.end())
        report.mirrors.push_back({deg, pure});
      else
        it->pure = it->pure || pure;
    }
  }
  std::sort(report.rotations.begin(), report.rotations.end());
  std::sort(report.mirrors.begin(), report.mirrors.end(),
            [](const MirrorLine &x, const MirrorLine &y) { return x.angle_deg < y.angle_deg; });
  return report;
}

bool same_symmetry(const SymmetryReport &x, const SymmetryReport &y) {
  if (x.rotations != y.rotations || x.mirrors.size() != y.mirrors.size() ||
      x.translations.size() != y.translations.size())
    return false;
  for (size_t i = 0; i < x.mirrors.size(); ++i)
    if (x.mirrors[i].angle_deg != y.mirrors[i].angle_deg || x.mirrors[i].pure != y.mirrors[i].pure) return false;
  return true;
}

} // namespace dxgen::stem
