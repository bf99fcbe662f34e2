// The generators write NPY through util/Npy.h (shared with libdxrt's --export
// and the analysis tools); these names keep the generators' code short.
#pragma once

#include "util/Npy.h"

namespace dxgen {
using dx::make_directories;
using dx::NpyArray;
using dx::read_npy;
using dx::write_npy;
} // namespace dxgen
