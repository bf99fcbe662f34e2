#pragma once

#include <functional>

namespace dx {

// Runs fn on a thread with a large stack and returns its result. The front
// end recurses over expressions; a big stack lets deeply nested (even
// hostile) input end in a diagnostic rather than a stack overflow.
int runWithLargeStack(const std::function<int()> &fn);

} // namespace dx
