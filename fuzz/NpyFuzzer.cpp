// libFuzzer harness for the runtime's NPY reader (runtime/data/Npy.cpp):
// each input is the bytes of a `format: npy` data file. See ArrayFuzz.h.
#include "ArrayFuzz.h"
#include "ReaderFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = dxfuzz::write_scratch("input.npy", data, size);
  dxfuzz::fuzz_array_file(path, dxrt::read_npy, dxrt::parse_npy);
  return 0;
}
