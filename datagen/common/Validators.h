// CLI11 validators with short messages ("must be > 0, got -3"): CLI11's own
// PositiveNumber prints its range up to the largest double, 300 digits long.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

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

} // namespace dxgen
