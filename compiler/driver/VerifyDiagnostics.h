#pragma once

#include "support/Diagnostics.h"

#include <iosfwd>

namespace dx {

// Compares the collected diagnostics with expectations written in the
// sources, as in clang and mlir-opt:
//   // expected-error {{substring of the message}}        on this line
//   // expected-error@+1 {{...}}   // expected-error@-2:7 {{...}}  (line offset, column)
//   // expected-warning ... and expected-note ...
// Notes are checked only in files that expect at least one note.
// Prints every mismatch to `os`; returns true if all matched.
bool verifyDiagnostics(const DiagnosticEngine &diags, std::ostream &os);

} // namespace dx
