// NPY (format 1.0) files written atomically (to PATH.tmp, renamed when
// complete, so a killed run never leaves a truncated array a trainer would
// read) and read back whole. Shared by dx-datagen (generated data), libdxrt
// (--export of model outputs) and the tools that post-process them; the
// runtime's training reader (memory-mapped, any dtype) is runtime/data/Npy.cpp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace dx {

// Streams a little-endian C-order array whose shape is known up front:
// append() its elements in order, then finish() checks the count and renames.
// Destroyed unfinished, it removes the temporary file. Throws
// std::runtime_error naming the file.
class NpyWriter {
public:
  // descr: "<f4", "<f8", "<i8", "<i2" or "|u1".
  NpyWriter(std::string path, std::vector<int64_t> shape, const char *descr);
  ~NpyWriter();
  NpyWriter(const NpyWriter &) = delete;
  NpyWriter &operator=(const NpyWriter &) = delete;
  void append(const void *data, int64_t elements);
  void finish();

private:
  std::string path_, tmp_;
  std::FILE *file_ = nullptr;
  int64_t expected_ = 0, written_ = 0, elem_ = 0;
};

// Whole arrays; the shape's product must equal the count.
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data);
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int64_t *data);
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int16_t *data);
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const uint8_t *data);

struct NpyArray {
  std::string descr;            // "<f4", "<f8", "<i8", "<i2", "|u1"
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;   // raw little-endian data
  int64_t count() const;
  std::vector<float> as_floats() const; // converted from any of the dtypes above
};
// Reads an array of one of NpyArray's dtypes; throws naming the file.
NpyArray read_npy(const std::string &path);

// Creates a directory and its parents; throws naming it on failure.
void make_directories(const std::string &dir);

} // namespace dx
