// The runtime's main(): what a compiled .dx executable does from start to end.
#pragma once

namespace dxrt {

int run(int argc, char **argv);

} // namespace dxrt
