// libFuzzer harness for `format: hdf5` (runtime/data/Hdf5.cpp over Debian's
// libhdf5): each input is the bytes of an HDF5 file, opened as load_split
// opens one. Its datasets /x and /g/y (the seeds' names) are opened and read
// as a split reads them: the first and the last sample one at a time, as
// gather() does for inputs, and the whole dataset, as for labels and
// targets. libhdf5 itself is not instrumented: a memory error inside it is
// seen only where it touches memory DeepEx owns, or when it crashes.
//
// libhdf5 allocates sizes that a corrupt file's metadata gives (2^64 - 16 MiB
// in a cache entry's length) and fails cleanly when malloc returns null or
// the read runs past the end of the file, as it does in a run: run.sh lets
// malloc return null here and sets no limit on one allocation. What DeepEx
// itself allocates, read_all()'s array, is checked against the reader's
// bound instead (kMaxHdf5FilterRatio times the file).
#include "common/Check.h"
#include "common/FaultGuard.h"
#include "data/Hdf5.h"
#include "ReaderFuzz.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// load_split compares a dataset's sample size with the dataset block's
// before reading any sample, so the buffer a sample is read into is sized by
// the program, not the file; the harness reads samples of up to 1 MiB.
constexpr int64_t kMaxSampleBytes = int64_t(1) << 20;

void read_dataset(const std::string &file, size_t file_size, const char *path) {
  const dxrt::Hdf5Source src(dxrt::parse_hdf5_ref(file + ":" + path, ""));
  const uint64_t all = uint64_t(dxrt::shape_numel(src.shape())) * dxrt::dtype_size(src.dtype());
  if (all > file_size * dxrt::kMaxHdf5FilterRatio) {
    std::fprintf(stderr, "==dx-fuzz== BUG: %s holds %llu bytes in a file of %zu\n", src.spec().c_str(),
                 (unsigned long long)all, file_size);
    std::abort();
  }
  const int64_t n = src.shape()[0], bytes = src.sample_elems() * int64_t(dxrt::dtype_size(src.dtype()));
  if (n > 0 && bytes <= kMaxSampleBytes) {
    std::vector<uint8_t> sample(static_cast<size_t>(bytes));
    src.read_sample(0, sample.data());
    src.read_sample(n - 1, sample.data());
  }
  src.read_all();
}

} // namespace

// A run turns a fault inside libhdf5 into an error (common/FaultGuard.h),
// after which libhdf5 is unusable: the harness would refuse every later
// input. Here the fault stays a crash, for libFuzzer and run.sh to report
// (as "a crash inside libhdf5" when its stack starts there).
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  dxrt::disable_fault_guard();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string file = dxfuzz::write_scratch("input.h5", data, size);
  for (const char *path : {"/x", "/g/y"})
    dxfuzz::allow_errors<dxrt::Error>([&] { read_dataset(file, size, path); });
  return 0;
}
