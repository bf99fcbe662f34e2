// HDF5 datasets as DeepEx splits (`format: hdf5`). A reference names a
// dataset inside one or more files, "FILE:/PATH": FILE may hold a glob
// pattern (`run_*.h5:/inputs`), whose matches, in name order, are
// concatenated along the first (sample) dimension. Contiguous, chunked and
// gzip- or szip-compressed datasets of integer or float type all read the
// same (Debian's libhdf5 does the decoding).
//
// Inputs are read one sample at a time as gather() needs them (a hyperslab
// of one row), so a rank reads only the samples it trains and evaluates on,
// as the NPY reader's memory map does; labels and targets, which are small,
// are read whole. Every failure (a missing file or dataset, a file that is
// not HDF5 or is corrupt, an unsupported type, files that disagree) is a
// dxrt::Error naming the file and the dataset path.
#pragma once

#include "data/Array.h"

#include <memory>
#include <string>
#include <vector>

namespace dxrt {

// A dataset holds at most this many times the bytes it stores (filters such
// as gzip and szip compress, but not further); one that claims more is
// refused when opened, so that what read_all() allocates is bounded by the
// size of the file, whatever its header says.
constexpr uint64_t kMaxHdf5FilterRatio = uint64_t(1) << 16;

struct Hdf5Ref {
  std::string spec;               // as written, for messages
  std::vector<std::string> files; // the files, glob expanded, in order
  std::string path;               // the dataset inside each, "/inputs"
};

// Parses "FILE:/PATH" (FILE relative to data_dir when that is set) and
// expands a glob in FILE. Throws when the ":/PATH" part is missing or the
// pattern matches nothing.
Hdf5Ref parse_hdf5_ref(const std::string &spec, const std::string &data_dir);

// The datasets of one reference, open for reading samples.
class Hdf5Source {
public:
  explicit Hdf5Source(const Hdf5Ref &ref);
  ~Hdf5Source();
  Hdf5Source(const Hdf5Source &) = delete;
  Hdf5Source &operator=(const Hdf5Source &) = delete;

  // [total samples, ...per-sample shape]; the element type the data is read as.
  const std::vector<int64_t> &shape() const { return shape_; }
  Dtype dtype() const { return dtype_; }
  const std::string &spec() const { return ref_.spec; }
  int64_t sample_elems() const { return sample_elems_; }

  // Sample i's elements in host order into out (sample_elems() elements of
  // dtype()). Not thread-safe (the serial libhdf5 is not): the trainer
  // gathers on one thread.
  void read_sample(int64_t i, uint8_t *out) const;
  // Every sample, for labels and targets.
  Array read_all() const;

private:
  struct Part {
    std::string file;
    int64_t file_id = -1, dataset_id = -1, first = 0, n = 0;
  };
  void read_rows(const Part &p, int64_t row, int64_t rows, uint8_t *out) const;
  void open_all();  // the constructor's work
  void close_all(); // every id still open

  Hdf5Ref ref_;
  std::vector<Part> parts_;
  std::vector<int64_t> shape_;
  Dtype dtype_ = Dtype::F32;
  int64_t sample_elems_ = 1;
};

} // namespace dxrt
