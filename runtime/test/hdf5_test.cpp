// HDF5 datasets whose header announces more than the file holds: a
// dataspace message of a few bytes can claim terabytes, which read_all()
// allocated (and the sample order indexed) before libhdf5 read anything
// (fuzz/README.md, Findings); a file on which libhdf5 itself faults. Reading
// good files is test/e2e/hdf5.test.
#include "ExpectError.h"
#include "TestUtil.h"
#include "common/FaultGuard.h"
#include "data/Hdf5.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>

using namespace dxrt;
using dxtest::expect_error;
using dxtest::TempDir;

namespace {

// Creates /x of float32 with the given dimensions (the first one unlimited
// when chunked), written with `data` when it is not empty.
void write_h5(const std::string &path, const std::vector<hsize_t> &dims, const std::vector<hsize_t> &chunk,
              const std::vector<float> &data, bool gzip = false) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<hsize_t> max = dims;
  if (!chunk.empty()) max[0] = H5S_UNLIMITED;
  const hid_t space = H5Screate_simple(int(dims.size()), dims.data(), max.data());
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (!chunk.empty()) H5Pset_chunk(dcpl, int(chunk.size()), chunk.data());
  if (gzip) H5Pset_deflate(dcpl, 6);
  const hid_t ds = H5Dcreate2(f, "/x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  ASSERT_GE(ds, 0);
  if (!data.empty()) H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(f);
}

Hdf5Ref dataset_x(const std::string &file) { return parse_hdf5_ref(file + ":/x", ""); }

TEST(Hdf5, DatasetsNeverWrittenAreErrors) {
  TempDir d;
  write_h5(d / "empty.h5", {hsize_t(1) << 20, 64}, {}, {}); // 256 MiB announced, nothing stored
  expect_error([&] { Hdf5Source s(dataset_x(d / "empty.h5")); },
               {d / "empty.h5", "[1048576, 64] of float32 (268435456 bytes), but stores only 0 bytes"});
  write_h5(d / "part.h5", {64, 4}, {16, 4}, {}); // chunked, no chunk written
  expect_error([&] { Hdf5Source s(dataset_x(d / "part.h5")); }, {d / "part.h5", "stores only 0 bytes"});
}

TEST(Hdf5, AbsurdShapesAreErrors) {
  TempDir d;
  // No element at all, but a sample of 2^80 elements.
  write_h5(d / "wide.h5", {0, hsize_t(1) << 40, hsize_t(1) << 40}, {1, 1, 1}, {});
  expect_error([&] { Hdf5Source s(dataset_x(d / "wide.h5")); }, {d / "wide.h5", "claims an absurd shape"});
}

TEST(Hdf5, CompressedDatasetsAreRead) {
  TempDir d;
  const std::vector<float> zeros(64 * 64, 0.0f); // compresses some 100-fold
  write_h5(d / "gz.h5", {64, 64}, {16, 64}, zeros, true);
  const Hdf5Source s(dataset_x(d / "gz.h5"));
  EXPECT_EQ(s.shape(), (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(s.read_all().bytes, dxtest::raw(zeros));
}

// Debian's libhdf5 reads through a null pointer on this file
// (fuzz/libhdf5-crashes/README.md): the run's error names the file and the
// fault, and libhdf5, unusable after it, is not called again: a good file
// is then refused, saying why. In a child process (a death test), so that
// this program's libhdf5 stays whole for the other tests.
TEST(Hdf5DeathTest, AFaultInsideLibhdf5IsAnErrorNamingTheFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // the child runs the test from the start, not a fork mid-way
  TempDir d;
  write_h5(d / "good.h5", {4, 2}, {}, std::vector<float>(8, 1.0f));
  const std::string bad = DXRT_HDF5_CRASH_FILE, good = d / "good.h5";
  EXPECT_EXIT(
      {
        try {
          Hdf5Source s(dataset_x(bad));
        } catch (const Error &e) {
          std::fprintf(stderr, "first: %s\n", e.what());
        }
        try {
          Hdf5Source s(dataset_x(good));
        } catch (const Error &e) {
          std::fprintf(stderr, "then: %s\n", e.what());
          std::_Exit(3);
        }
        std::_Exit(0);
      },
      testing::ExitedWithCode(3),
      "first: libhdf5 crashed with SIGSEGV \\(invalid memory access\\) while opening dataset '/x' of HDF5 file "
      "'.*segv-h5f-accum-read-under-h5lexists.h5'\n"
      "then: cannot read HDF5 file '.*good.h5': libhdf5 crashed earlier in this run");
}

// What keeps a corrupt file from making libhdf5 take all memory (the
// 21 GB file of fuzz/libhdf5-crashes/): inside the cap an allocation past
// the budget fails (malloc returns null, as libhdf5 handles), and the limit
// is the one before once the cap ends.
TEST(AddressSpaceCap, AllocationsPastTheBudgetFailAndTheLimitComesBack) {
  struct rlimit before;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &before), 0);
  {
    const AddressSpaceCap cap(int64_t(256) << 20);
    void *big = std::malloc(size_t(1) << 30);
    EXPECT_EQ(big, nullptr) << "1 GiB allocated under a 256 MiB cap";
    std::free(big);
    void *small = std::malloc(size_t(16) << 20);
    EXPECT_NE(small, nullptr) << "16 MiB refused under a 256 MiB cap";
    std::free(small);
  }
  struct rlimit after;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_cur);
  void *big = std::malloc(size_t(1) << 30);
  EXPECT_NE(big, nullptr);
  std::free(big);
}

} // namespace
