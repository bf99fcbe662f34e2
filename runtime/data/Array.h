// An n-dimensional array as a file stores it (IDX, NPY), converted to host
// byte order, before it becomes samples or labels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

enum class Dtype { U8, I8, I16, I32, I64, F32, F64 };

size_t dtype_size(Dtype t);
const char *dtype_name(Dtype t);

struct Array {
  std::string file;             // for messages
  std::vector<int64_t> shape;
  Dtype dtype = Dtype::U8;
  std::vector<uint8_t> bytes;   // host byte order, C order
  int64_t numel() const;
};

// Element-wise conversions; both throw dxrt::Error naming the file.
// Inputs: any dtype; NaN/Inf are refused.
std::vector<float> to_floats(const Array &a);
// Labels: integers (or floats holding integers) in [0, classes) when classes > 0, >= 0 otherwise.
std::vector<int64_t> to_labels(const Array &a, int64_t classes);

// Readers: the whole file (gzip-compressed or not) as an Array.
Array read_idx(const std::string &path);
Array read_npy(const std::string &path);

} // namespace dxrt
