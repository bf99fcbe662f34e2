#pragma once

#include "frontend/AST.h"
#include "support/Source.h"

#include <iosfwd>

namespace dx {

// Prints the AST as an indented tree; every node shows @line:col.
void dumpAST(std::ostream &os, const ast::File &file, const SourceManager &sm);

} // namespace dx
