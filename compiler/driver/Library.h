// dxc compile --emit=lib: the inference library of a trained model
// (docs/inference.md). From the model object it writes, next to OUTPUT: the
// library (libNAME.a, an archive; or libNAME.so, a shared object holding
// the model, the C API and libdxrt, exporting only the C API), NAME.h
// (dxrt/infer.h with the model's sizes as constants, self-contained),
// NAME.f90 (a Fortran module over the C API, iso_c_binding) and NAME.pc
// (pkg-config: the include directory and the link line). No MLIR headers
// here.
#pragma once

#include "sema/Sema.h"

#include <string>
#include <vector>

namespace dx {

// The stem of a library's name: libmodel.a -> "model", foo.a -> "foo".
std::string libraryStem(const std::string &output);

// Writes the four files; prints an error and returns 1 on failure.
// runtimeLink: what the model links with (the C API's archive, then
// libdxrt), as dxc links executables.
int writeModelLibrary(const Program &prog, const std::string &object, const std::string &output,
                      const std::vector<std::string> &runtimeLink);

// The command dxc links with: the C++ driver (DXC_CXX, default c++), then,
// with the default driver, the build's choice of linker (-fuse-ld=lld where
// ld.lld is on PATH); empty after printing an error.
std::vector<std::string> linkDriver();

} // namespace dx
