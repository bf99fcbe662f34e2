#include "Colormap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dxan {
namespace {

// matplotlib's viridis at t = 0, 0.1, ..., 1.
constexpr unsigned kAnchors[] = {0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
constexpr int kCount = int(sizeof kAnchors / sizeof kAnchors[0]);

Rgb anchor(int i) {
  const unsigned v = kAnchors[i];
  return {double((v >> 16) & 0xff), double((v >> 8) & 0xff), double(v & 0xff)};
}

} // namespace

Rgb colormap(double t) {
  if (!(t > 0)) t = 0; // also NaN
  t = std::min(t, 1.0) * (kCount - 1);
  const int i = std::min(int(t), kCount - 2);
  const double f = t - i;
  const Rgb a = anchor(i), b = anchor(i + 1);
  return {a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b)};
}

std::string hex(const Rgb &c) {
  auto byte = [](double v) { return int(std::lround(std::clamp(v, 0.0, 255.0))); };
  char s[8];
  std::snprintf(s, sizeof s, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  return s;
}

std::vector<std::pair<double, std::string>> colormap_stops() {
  std::vector<std::pair<double, std::string>> stops;
  for (int i = 0; i < kCount; ++i) stops.emplace_back(double(i) / (kCount - 1), hex(anchor(i)));
  return stops;
}

} // namespace dxan
