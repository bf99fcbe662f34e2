// Plane geometry for the STEM generator: 2-vectors and 2x2 matrices in
// Cartesian ångström coordinates (the crystal's own frame, a along +x) or in
// fractional coordinates of a cell. Header-only; doubles throughout so that
// symmetry checks can use tight tolerances.
#pragma once

#include <cmath>

namespace dxgen::stem {

struct Vec2 {
  double x = 0, y = 0;
};
inline Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
inline Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
inline Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
inline Vec2 operator*(double s, Vec2 a) { return {s * a.x, s * a.y}; }
inline double dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
inline double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
inline double norm(Vec2 a) { return std::sqrt(dot(a, a)); }
// Angle between two vectors in degrees, in [0, 180].
inline double angle_deg(Vec2 a, Vec2 b) {
  double c = dot(a, b) / (norm(a) * norm(b));
  c = c > 1 ? 1 : (c < -1 ? -1 : c);
  return std::acos(c) * 180.0 / M_PI;
}

// Row-major [[m00, m01], [m10, m11]].
struct Mat2 {
  double m00 = 1, m01 = 0, m10 = 0, m11 = 1;

  Vec2 operator*(Vec2 v) const { return {m00 * v.x + m01 * v.y, m10 * v.x + m11 * v.y}; }
  Mat2 operator*(const Mat2 &o) const {
    return {m00 * o.m00 + m01 * o.m10, m00 * o.m01 + m01 * o.m11, m10 * o.m00 + m11 * o.m10,
            m10 * o.m01 + m11 * o.m11};
  }
  double det() const { return m00 * m11 - m01 * m10; }
  Mat2 inverse() const {
    const double d = det();
    return {m11 / d, -m01 / d, -m10 / d, m00 / d};
  }
  Mat2 transpose() const { return {m00, m10, m01, m11}; }
  // Columns a and b: maps fractional coordinates to Cartesian.
  static Mat2 columns(Vec2 a, Vec2 b) { return {a.x, b.x, a.y, b.y}; }
  static Mat2 rotation(double radians) {
    const double c = std::cos(radians), s = std::sin(radians);
    return {c, -s, s, c};
  }
  // Reflection across the line through the origin at `radians` from +x.
  static Mat2 mirror(double radians) {
    const double c = std::cos(2 * radians), s = std::sin(2 * radians);
    return {c, s, s, -c};
  }
};

} // namespace dxgen::stem
