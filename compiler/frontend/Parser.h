// Parsing: source text -> AST. ANTLR4 does the parsing; syntax errors are
// reported through the DiagnosticEngine in dxc's format, and the parser
// recovers so that one run reports every syntax error in a file.
#pragma once

#include "frontend/AST.h"
#include "support/Diagnostics.h"

#include <memory>

namespace dx {

// Parses file `fileId` of the engine's SourceManager. Returns nullptr if the
// file had syntax errors (all of them reported).
std::unique_ptr<ast::File> parseFile(int fileId, DiagnosticEngine &diags);

} // namespace dx
