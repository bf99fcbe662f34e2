#pragma once

#include "sema/Sema.h"

#include <iosfwd>

namespace dx {

// Prints a darknet-style table of a checked model: one row per operator with
// its output shape, parameter count and forward FLOPs per sample, then totals.
void printModelTable(std::ostream &os, const CheckedModel &model, const SourceManager &sm);

// 25557032 -> "25,557,032"; 8.2e9 -> "8.21 G".
std::string withThousands(int64_t n);
std::string humanCount(double n);

} // namespace dx
