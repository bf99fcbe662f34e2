// HDF5 output of the generators (--hdf5): one file holding each split's
// arrays as datasets ("/train/images", "/test/labels", ...), chunked along
// the sample dimension and gzip-compressed, which `format: hdf5` datasets
// read ("stem.h5:/train/images"). Written to FILE.tmp and renamed when
// closed, so a killed run never leaves a half-written file under the name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxgen {

class Hdf5Writer {
public:
  explicit Hdf5Writer(std::string path);
  ~Hdf5Writer(); // without close(): the temporary file is removed
  Hdf5Writer(const Hdf5Writer &) = delete;
  Hdf5Writer &operator=(const Hdf5Writer &) = delete;

  // A dataset at `name` (groups on the way are created) of the given shape;
  // the product of the shape must equal the data's count.
  void write(const std::string &name, const std::vector<int64_t> &shape, const float *data);
  void write(const std::string &name, const std::vector<int64_t> &shape, const int64_t *data);
  void write(const std::string &name, const std::vector<int64_t> &shape, const uint8_t *data);
  // Closes the file and moves it to its name. Throws std::runtime_error on failure.
  void close();

private:
  void write_typed(const std::string &name, const std::vector<int64_t> &shape, int64_t type, const void *data);
  std::string path_, tmp_;
  int64_t file_ = -1;
};

} // namespace dxgen
