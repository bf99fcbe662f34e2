// libFuzzer harness for the runtime's CSV reader (runtime/data/Csv.cpp):
// each input is the bytes of a `format: csv` file, read as load_split reads
// one: features only, with a header line and a label column, and as a
// second file of labels (column 0) with no class count.
#include "common/Check.h"
#include "data/Csv.h"
#include "ReaderFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = dxfuzz::write_scratch("input.csv", data, size);
  struct Options {
    int64_t label_column;
    bool header;
    int64_t classes;
  };
  for (const Options &o : {Options{-1, false, 0}, Options{2, true, 10}, Options{0, false, 0}})
    dxfuzz::allow_errors<dxrt::Error>([&] { dxrt::read_csv(path, o.label_column, o.header, o.classes); });
  return 0;
}
