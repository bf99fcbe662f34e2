#pragma once

#include "sema/Sema.h"

#include <iosfwd>

namespace dx {

// Prints a darknet-style table of a checked model: one row per operator with
// its output shape, parameter count and forward FLOPs per sample, then totals.
// `train`: the train block, for the trained model (its precision is shown).
void printModelTable(std::ostream &os, const CheckedModel &model, const SourceManager &sm,
                     const TrainConfig *train = nullptr);


} // namespace dx
