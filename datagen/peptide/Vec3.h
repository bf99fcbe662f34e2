// A 3-vector of doubles for the peptide model: positions in Å, velocities
// in Å/τ, forces in ε/Å (docs/datagen-peptide.md). Plain value type; the
// chain is small (21 beads) so clarity beats SIMD layouts here.
#pragma once

#include <cmath>

namespace dxgen::peptide {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  Vec3 &operator-=(const Vec3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  Vec3 &operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
};

inline Vec3 operator+(Vec3 a, const Vec3 &b) { return a += b; }
inline Vec3 operator-(Vec3 a, const Vec3 &b) { return a -= b; }
inline Vec3 operator-(const Vec3 &a) { return {-a.x, -a.y, -a.z}; }
inline Vec3 operator*(double s, Vec3 a) { return a *= s; }
inline Vec3 operator*(Vec3 a, double s) { return a *= s; }
inline double dot(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm2(const Vec3 &a) { return dot(a, a); }
inline double norm(const Vec3 &a) { return std::sqrt(dot(a, a)); }

} // namespace dxgen::peptide
