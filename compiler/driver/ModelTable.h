#pragma once

#include "sema/Sema.h"

#include <iosfwd>

namespace dx {

// Prints a darknet-style table of a checked model: one row per operator with
// its output shape, parameter count and forward FLOPs per sample, then totals.
void printModelTable(std::ostream &os, const CheckedModel &model, const SourceManager &sm);


} // namespace dx
