// Small string helpers: concatenation of anything streamable, and numbers
// for humans (thousands separators, durations).
#pragma once

#include "util/Format.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace dxrt {

template <typename... Args> std::string str(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// Thousands separators and K/M/G counts come from util/Format.h, shared
// with dxc's model table: dx::withThousands, dx::humanCount.
// 75.3 -> "1:15", 3725 -> "1:02:05"
std::string duration(double seconds);
// [1, 28, 28] -> "[1, 28, 28]"
std::string shape_str(const std::vector<int64_t> &shape);
// Shortest text that reads back as the same double: 0.05 -> "0.05".
std::string num(double v);

} // namespace dxrt

namespace dxrt {
// 0.51234 -> "0.5123" (digits after the point)
std::string str_fixed(double v, int digits);
} // namespace dxrt

namespace dxrt {
// 0.0498768 -> "0.04988" (significant digits)
std::string str_sig(double v, int digits);
} // namespace dxrt
