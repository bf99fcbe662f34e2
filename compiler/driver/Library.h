// dxc compile --emit=lib: the inference library of a trained model
// (docs/inference.md). From the model object it writes, next to OUTPUT
// (libNAME.a): the archive, NAME.h (dxrt/infer.h with the model's sizes as
// constants, self-contained), NAME.f90 (a Fortran module over the C API,
// iso_c_binding) and NAME.pc (pkg-config: the include directory and the link
// line, libdxrt and its libraries included). No MLIR headers here.
#pragma once

#include "sema/Sema.h"

#include <string>

namespace dx {

// The stem of a library's name: libmodel.a -> "model", foo.a -> "foo".
std::string libraryStem(const std::string &output);

// Writes the four files; prints an error and returns 1 on failure.
// runtimeLink: what the model links with (libdxrt first), as dxc links executables.
int writeModelLibrary(const Program &prog, const std::string &object, const std::string &output,
                      const std::vector<std::string> &runtimeLink);

} // namespace dx
