// Helpers for the extern "C" entry points that generated code calls: an
// exception must not unwind through generated frames, so each entry point
// runs its body under guard(), which reports a dxrt::Error (a failed CUDA
// call, a missing device) the way DXRT_KERNEL_CHECK reports a bad
// descriptor: message, hint, place, abort.
#pragma once

#include "common/Check.h"

#include <exception>
#include <utility>

namespace dxrt::cuda {

template <typename F> void guard(const char *kernel, F &&body) noexcept {
  try {
    std::forward<F>(body)();
  } catch (const Error &e) {
    fatal(e.file().empty() ? __FILE__ : e.file().c_str(), e.line(), str(kernel, ": ", e.what()), e.hint());
  } catch (const std::exception &e) {
    fatal(__FILE__, __LINE__, str(kernel, ": ", e.what()), "");
  }
}

} // namespace dxrt::cuda
