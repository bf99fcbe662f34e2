// Option checking shared by the commands: CLI11 validators with short
// messages ("must be > 0, got -3": CLI11's own PositiveNumber prints its range
// up to the largest double, 300 digits long), require() for the checks a
// command's validate() makes across options, and text()/join() that write
// the values into those messages and into the sidecars' command lines.
#pragma once

#include <CLI/CLI.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace dxgen {

// Accepts numbers > 0 (strict) or >= 0.
inline CLI::Validator number_at_least(double lo, bool strict) {
  const std::string bound = std::string(strict ? "> " : ">= ") + CLI::detail::to_string(lo);
  return CLI::Validator(
      [lo, strict, bound](std::string &text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v)) return "must be a number, got '" + text + "'";
        if (strict ? !(v > lo) : !(v >= lo)) return "must be " + bound + ", got " + text;
        return {};
      },
      "NUMBER " + bound);
}
inline CLI::Validator positive() { return number_at_least(0, true); }
inline CLI::Validator non_negative() { return number_at_least(0, false); }

// Throws CLI11's validation error "OPTION: MESSAGE" (exit status 105) unless ok.
inline void require(bool ok, const std::string &option, const std::string &message) {
  if (!ok) throw CLI::ValidationError(option, message);
}

// A value as an ostream writes it: 0.5 -> "0.5", 64 -> "64", 1e-07 -> "1e-07".
template <class T> std::string text(const T &v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Comma-separated values, as a delimiter(',') option reads them back: "0,0.5,1".
template <class T> std::string join(const std::vector<T> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + text(v[i]);
  return s;
}

} // namespace dxgen
