// Wall-clock time in seconds.
#pragma once

#include <chrono>

namespace dxrt {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace dxrt
