#include "peptide/Observables.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dxgen::peptide {

void contact_map(const Coords &x, double cutoff, int side, uint8_t *out) {
  const int n = int(x.size());
  if (n > side) throw std::invalid_argument("peptide: chain longer than the contact map");
  std::fill(out, out + size_t(side) * size_t(side), uint8_t(0));
  const double c2 = cutoff * cutoff;
  for (int i = 0; i < n; ++i) {
    out[size_t(i) * size_t(side) + size_t(i)] = 1;
    for (int j = i + 1; j < n; ++j) {
      const uint8_t in = norm2(x[size_t(j)] - x[size_t(i)]) < c2 ? 1 : 0;
      out[size_t(i) * size_t(side) + size_t(j)] = in;
      out[size_t(j) * size_t(side) + size_t(i)] = in;
    }
  }
}

double fraction_native(const Coords &x, const std::vector<NativeContact> &contacts, double factor) {
  if (contacts.empty()) return 0;
  int formed = 0;
  for (const NativeContact &c : contacts)
    if (norm(x[size_t(c.j)] - x[size_t(c.i)]) < factor * c.r0) ++formed;
  return double(formed) / double(contacts.size());
}

namespace {

Vec3 centroid(const Coords &x) {
  Vec3 c;
  for (const Vec3 &p : x) c += p;
  return (1.0 / double(x.size())) * c;
}

// Largest eigenvalue of a symmetric 4x4 matrix by cyclic Jacobi rotations
// (converges quadratically; 4x4 needs a handful of sweeps).
double largest_eigenvalue(double a[4][4]) {
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) off += a[p][q] * a[p][q];
    if (off < 1e-30) break;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) {
        if (std::abs(a[p][q]) < 1e-300) continue;
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 4; ++k) { // columns p, q
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) { // rows p, q
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
      }
  }
  return std::max({a[0][0], a[1][1], a[2][2], a[3][3]});
}

} // namespace

double kabsch_rmsd(const Coords &a, const Coords &b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("peptide: RMSD of unequal conformations");
  const Vec3 ca = centroid(a), cb = centroid(b);
  // Correlation matrix R = Σ a_k b_kᵀ of the centred coordinates and the
  // inner products G_a, G_b.
  double r[3][3] = {}, ga = 0, gb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    const Vec3 p = a[k] - ca, q = b[k] - cb;
    const double pv[3] = {p.x, p.y, p.z}, qv[3] = {q.x, q.y, q.z};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r[i][j] += pv[i] * qv[j];
    ga += norm2(p);
    gb += norm2(q);
  }
  // Horn's key matrix: its largest eigenvalue λ is the maximal Σ a·(R b)
  // over rotations, so the minimal squared deviation is G_a + G_b − 2λ.
  const double xx = r[0][0], xy = r[0][1], xz = r[0][2], yx = r[1][0], yy = r[1][1], yz = r[1][2], zx = r[2][0],
               zy = r[2][1], zz = r[2][2];
  double k[4][4] = {{xx + yy + zz, yz - zy, zx - xz, xy - yx},
                    {yz - zy, xx - yy - zz, xy + yx, zx + xz},
                    {zx - xz, xy + yx, -xx + yy - zz, yz + zy},
                    {xy - yx, zx + xz, yz + zy, -xx - yy + zz}};
  const double lambda = largest_eigenvalue(k);
  const double msd = (ga + gb - 2.0 * lambda) / double(a.size());
  return std::sqrt(std::max(msd, 0.0)); // rounding can leave −1e-15 for identical shapes
}

} // namespace dxgen::peptide
