#pragma once

#include "sema/Sema.h"

namespace dx {

// Checks every dataset block and the main file's train block; elaborates the
// trained model (if not yet done) and its loss into prog.models.
void checkDatasetsAndTrain(Program &prog, DiagnosticEngine &diags);

} // namespace dx
