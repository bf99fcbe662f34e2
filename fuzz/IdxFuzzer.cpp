// libFuzzer harness for the runtime's IDX reader (runtime/data/Idx.cpp) and
// its gzip layer (runtime/data/Bytes.cpp): each input is the bytes of a
// `format: idx` data file, plain or gzip-compressed (the reader decides by
// the content, as for MNIST's .gz files). See ArrayFuzz.h.
#include "ArrayFuzz.h"
#include "ReaderFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = dxfuzz::write_scratch("input.idx", data, size);
  dxfuzz::fuzz_array_file(path, dxrt::read_idx, dxrt::parse_idx);
  return 0;
}
