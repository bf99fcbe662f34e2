// Small string helpers: concatenation of anything streamable, and numbers
// for humans (thousands separators, durations).
#pragma once

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

// 60000 -> "60,000"
std::string thousands(int64_t n);
// 470288 -> "470.29 K", like dxc's model table.
std::string human(double n);
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
