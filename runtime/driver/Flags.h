// The command line of a training executable (CLI11). Run-time flags override
// the train block's hyper-parameters that do not change shapes.
#pragma once

#include "comm/World.h"
#include "model/Metadata.h"
#include "train/Config.h"

namespace dxrt {

// Parses argv into a RunConfig. Returns false when the process should exit
// at once with *exit_code: 0 after --help, kExitUsage (2) after a bad flag,
// whose message it has printed (on rank 0).
bool parse_flags(int argc, char **argv, const Metadata &meta, const World &world, RunConfig *cfg, int *exit_code);

} // namespace dxrt
