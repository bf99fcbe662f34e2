#include "util/Format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dx {

std::string withThousands(int64_t n) {
  // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
  const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string roundedWithThousands(double v) {
  if (std::fabs(v) < 9e18) return withThousands(static_cast<int64_t>(std::llround(v)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v); // beyond int64: 1.153e+21
  return buf;
}

std::string humanCount(double n) {
  const char *units[] = {"", " K", " M", " G", " T"};
  int u = 0;
  while (n >= 1000 && u < 4) {
    n /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.2f%s" : "%.0f%s", n, units[u]);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string significant(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

} // namespace dx
