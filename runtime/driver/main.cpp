// The executable's entry point. It lives alone in this object file, so that
// linking a model object with libdxrt.a pulls it in, while test programs that
// bring their own main() do not.
#include "driver/Run.h"

int main(int argc, char **argv) { return dxrt::run(argc, argv); }
