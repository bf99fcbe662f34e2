// An n-dimensional array as a file stores it (IDX, NPY): its layout, parsed
// from the file's first bytes, and, read whole, its elements in host byte
// order, before they become samples or labels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

enum class Dtype { U8, I8, U16, I16, U32, I32, I64, F32, F64 };

size_t dtype_size(Dtype t);
const char *dtype_name(Dtype t);

// The number of elements of an array of `shape` (1 for a scalar, []).
int64_t shape_numel(const std::vector<int64_t> &shape);

// The most elements a file's header may announce (8 TiB of float64), and
// whether a shape from a header keeps within it: every dimension >= 0 and
// the product of the non-zero ones at most kMaxElements, so that no product
// of some of its dimensions (shape_numel of the shape, of a sample, of a
// shape with a zero in it) can overflow int64_t.
constexpr int64_t kMaxElements = int64_t(1) << 40;
bool shape_within_bounds(const std::vector<int64_t> &shape);

// Where and how a file holds its array: the data starts at byte `offset`,
// C order, big-endian elements for IDX, little-endian for NPY.
struct ArrayLayout {
  std::vector<int64_t> shape;
  Dtype dtype = Dtype::U8;
  bool big_endian = false;
  size_t offset = 0;
  int64_t numel() const;
};

// Parse the header at the start of a file's `size` bytes and check that the
// file holds exactly the data it announces; throw dxrt::Error naming `path`.
ArrayLayout parse_idx(const uint8_t *bytes, size_t size, const std::string &path);
ArrayLayout parse_npy(const uint8_t *bytes, size_t size, const std::string &path);

struct Array {
  std::string file;             // for messages
  std::vector<int64_t> shape;
  Dtype dtype = Dtype::U8;
  std::vector<uint8_t> bytes;   // host byte order, C order
  int64_t numel() const;
};

// The array a whole file holds, given its parsed header: the data after the
// header, moved out of `bytes`, swapped to host order when big-endian.
Array array_from_file(std::vector<uint8_t> bytes, const ArrayLayout &layout, const std::string &path);

// Element-wise conversions; both throw dxrt::Error naming the file.
// Inputs: any dtype; NaN/Inf are refused.
std::vector<float> to_floats(const Array &a);
// The same into out, a.numel() floats.
void to_floats(const Array &a, float *out);
// Labels: integers (or floats holding integers) in [0, classes) when classes > 0, >= 0 otherwise.
std::vector<int64_t> to_labels(const Array &a, int64_t classes);
// Whether v is a label as to_labels (and the CSV reader) take one: an
// integer in [0, classes), or without a class count (classes <= 0) in
// [0, 2^63), the range of the int64_t it becomes.
bool is_label(double v, int64_t classes);
// "outside [0, 10)" or "not a class index in [0, 2^63)", after "label 1e+300 is".
std::string label_problem(int64_t classes);

// The one conversion of inputs to model floats, for read and mapped splits:
// out[j] = (float(x[j]) * scale - mean) * inv_std for the `count` elements x
// of type t at src (big-endian when big_endian), each converted to float as
// to_floats does (with log1p: float(log1p(double(x[j]))) first). src may be
// out (in place, for f32). Returns the index of the first element whose
// float is not finite (log1p: also x <= -1), -1 when none is.
int64_t convert(const uint8_t *src, Dtype t, bool big_endian, int64_t count, float scale, float mean, float inv_std,
                float *out, bool log1p = false);
// The error for a non-finite input at element `element` of `file`.
[[noreturn]] void fail_non_finite(const std::string &file, int64_t element);

// Readers: the whole file (gzip-compressed or not) as an Array.
Array read_idx(const std::string &path);
Array read_npy(const std::string &path);

} // namespace dxrt
