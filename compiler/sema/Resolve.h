#pragma once

#include "sema/Sema.h"

namespace dx {

// Checks names in every block and model body without elaborating it, so that
// a misspelt name in a block nobody instantiates is still reported: each name
// must be a parameter or assigned earlier, each callee an operator or block.
// Bare names passed as call arguments may be enum values (e.g. `same`) and are
// left to elaboration, which knows the parameter they bind to.
void resolveNames(const Module &mod, DiagnosticEngine &diags);

} // namespace dx
