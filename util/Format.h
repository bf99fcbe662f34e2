// Number formatting for people, shared by dxc's tables and reports and
// libdxrt's console (the runtime does not link the compiler, so both compile
// this file).
#pragma once

#include <cstdint>
#include <string>

namespace dx {

// 25557032 -> "25,557,032"
std::string withThousands(int64_t n);
// The same for a double rounded to an integer (a FLOP count); beyond the
// int64 range: "1.153e+21".
std::string roundedWithThousands(double v);
// 8.24e9 -> "8.24 G"; below 1000 -> "691"
std::string humanCount(double n);
// 0.51234, 2 -> "0.51" (digits after the point)
std::string fixed(double v, int digits);
// 0.0498768, 4 -> "0.04988" (significant digits, %g style)
std::string significant(double v, int digits);
// The shortest text that reads back as the same double: 0.05 -> "0.05",
// 10 -> "10", 1e-07 -> "1e-07" (for machine-readable files such as CSV).
std::string shortest(double v);

} // namespace dx
