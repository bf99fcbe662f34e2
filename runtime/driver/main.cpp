// The executable's entry point. It lives alone in this object file, so that
// linking a model object with libdxrt.a pulls it in, while test programs that
// bring their own main() do not.
#include "driver/Run.h"

#include <malloc.h>

int main(int argc, char **argv) {
  // Generated code allocates its activations each step (until the compiler's
  // static memory plan lands). Keep freed blocks in the heap instead of
  // returning them to the kernel, so each step reuses warm pages rather than
  // page-faulting fresh mmap'd memory.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  return dxrt::run(argc, argv);
}
