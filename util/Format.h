// Number formatting for people, shared by dxc's tables and libdxrt's console
// (the runtime does not link the compiler, so both compile this file).
#pragma once

#include <cstdint>
#include <string>

namespace dx {

// 25557032 -> "25,557,032"
std::string withThousands(int64_t n);
// 8.24e9 -> "8.24 G"; below 1000 -> "691"
std::string humanCount(double n);

} // namespace dx
