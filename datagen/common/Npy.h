// NPY (format 1.0) files for the generators' outputs, written atomically:
// to PATH.tmp, then renamed, so a killed run never leaves a truncated array
// that a trainer would read. The runtime's reader is runtime/data/Npy.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxgen {

// Little-endian C-order arrays; the shape's product must equal the count.
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data);
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int64_t *data);
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const uint8_t *data);

// Reads back what write_npy wrote (for tests and for tools that post-process
// generated data); throws std::runtime_error naming the file otherwise.
struct NpyArray {
  std::string descr;            // "<f4", "<i8", "|u1"
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;   // raw little-endian data
  int64_t count() const;
  std::vector<float> as_floats() const; // f4, f8, i8, u1 converted
};
NpyArray read_npy(const std::string &path);

// Creates a directory and its parents; throws naming it on failure.
void make_directories(const std::string &dir);

} // namespace dxgen
