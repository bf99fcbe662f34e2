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

  // A dataset at `name` (groups on the way are created) of the given shape
  // of float, int64, int16 or uint8 elements; the product of the shape must
  // equal the data's count. chunk_samples: samples per chunk (0: up to 64;
  // 1 for large samples, which a reader of one sample then decompresses alone).
  template <class T>
  void write(const std::string &name, const std::vector<int64_t> &shape, const T *data, int64_t chunk_samples = 0) {
    write_typed(name, shape, native_type(data), data, chunk_samples);
  }
  // Closes the file and moves it to its name. Throws std::runtime_error on failure.
  void close();

private:
  // The HDF5 native type of the elements written (H5T_NATIVE_FLOAT, ...).
  static int64_t native_type(const float *);
  static int64_t native_type(const int64_t *);
  static int64_t native_type(const int16_t *);
  static int64_t native_type(const uint8_t *);
  void write_typed(const std::string &name, const std::vector<int64_t> &shape, int64_t type, const void *data,
                   int64_t chunk_samples);
  std::string path_, tmp_;
  int64_t file_ = -1;
};

} // namespace dxgen
