#pragma once

#include "sema/Sema.h"

#include <string>

namespace dx {

// Runs MLIRGen and the passes up to `stage` (dx or dx-grad) and prints the
// module to stdout. Returns the exit code. Kept apart from dxc.cpp so that
// only this file pays for MLIR's headers.
int emitMLIR(const Program &prog, const SourceManager &sm, const std::string &stage, bool withLocations);

} // namespace dx
