#include "data/Array.h"

#include "common/Check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace dxrt {

size_t dtype_size(Dtype t) {
  switch (t) {
  case Dtype::U8: case Dtype::I8: return 1;
  case Dtype::U16: case Dtype::I16: return 2;
  case Dtype::U32: case Dtype::I32: case Dtype::F32: return 4;
  case Dtype::I64: case Dtype::F64: return 8;
  }
  return 1;
}

const char *dtype_name(Dtype t) {
  switch (t) {
  case Dtype::U8: return "uint8";
  case Dtype::I8: return "int8";
  case Dtype::U16: return "uint16";
  case Dtype::I16: return "int16";
  case Dtype::U32: return "uint32";
  case Dtype::I32: return "int32";
  case Dtype::I64: return "int64";
  case Dtype::F32: return "float32";
  case Dtype::F64: return "float64";
  }
  return "?";
}

int64_t shape_numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool shape_within_bounds(const std::vector<int64_t> &shape) {
  int64_t product = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxElements) return false;
    if (d == 0) continue;
    if (product > kMaxElements / d) return false; // product * d > kMaxElements
    product *= d;
  }
  return true;
}

int64_t ArrayLayout::numel() const { return shape_numel(shape); }
int64_t Array::numel() const { return shape_numel(shape); }

// Calls f(i, value as double) for every element.
template <typename F> static void each(const Array &a, F &&f) {
  const uint8_t *p = a.bytes.data();
  int64_t n = a.numel();
  auto load = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, p + i * sizeof(T), sizeof(T));
      f(i, double(v));
    }
  };
  switch (a.dtype) {
  case Dtype::U8: load(uint8_t{}); break;
  case Dtype::I8: load(int8_t{}); break;
  case Dtype::U16: load(uint16_t{}); break;
  case Dtype::I16: load(int16_t{}); break;
  case Dtype::U32: load(uint32_t{}); break;
  case Dtype::I32: load(int32_t{}); break;
  case Dtype::I64: load(int64_t{}); break;
  case Dtype::F32: load(float{}); break;
  case Dtype::F64: load(double{}); break;
  }
}

// Through double, as the read path has always converted (for int64 that is
// not the same as straight to float: double rounds first).
template <typename T, bool Swap, bool Log1p>
static int64_t convert_scalar(const uint8_t *src, int64_t count, float scale, float mean, float inv_std, float *out) {
  int64_t bad = -1;
  for (int64_t j = 0; j < count; ++j) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, src + j * int64_t(sizeof(T)), sizeof(T));
    if constexpr (Swap) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    const float f = Log1p ? float(std::log1p(double(v))) : float(double(v));
    if constexpr (std::is_floating_point_v<T> || Log1p)
      if (bad < 0 && !std::isfinite(f)) bad = j;
    out[j] = (f * scale - mean) * inv_std;
  }
  return bad;
}

// The common cases, float32 (a float32 NPY, the floats handed to
// dx_model_predict) and 8- and 16-bit integers (an uncompressed IDX, a uint8
// NPY) in the machine's byte order: convert_scalar's arithmetic (float(
// double(x)) is float(x) for these types, exactly) in blocks of kBlock
// elements, each first checked for a non-finite float (f - f is NaN for inf
// and NaN; integers have none) and then converted, so that both loops have a
// constant trip count and GCC vectorises them at -O2 (the element-wise loop
// with its first-bad-index search does not vectorise). A block with a
// non-finite float, and the tail, go to convert_scalar, which finds the
// index. In place (out == src, float32) is fine: each block is copied before
// it is written. One thread: the microscopy CNN's batch gather (32 float32
// images of 64x64 from a mapped NPY) 0.65 -> 0.58 ms per step over an epoch;
// the Fashion-MNIST MLP's (64 uint8 images from an uncompressed, mapped IDX)
// 0.08-0.11 -> 0.05-0.06 ms (a memcpy of floats read whole: 0.03-0.05).
template <typename T> constexpr bool kConvertsInBlocks = sizeof(T) <= 2 || std::is_same_v<T, float>;
constexpr int64_t kBlock = 64;
template <typename T>
static int64_t convert_blocks(const uint8_t *src, int64_t count, float scale, float mean, float inv_std, float *out) {
  int64_t j = 0;
  for (; j + kBlock <= count; j += kBlock) {
    T v[kBlock]; // a copy: the loops then know that out does not overlap it
    std::memcpy(v, src + int64_t(sizeof(T)) * j, sizeof v);
    if constexpr (std::is_floating_point_v<T>) {
      uint32_t special = 0;
      for (int64_t k = 0; k < kBlock; ++k) special |= v[k] - v[k] != 0;
      if (special) break;
    }
    for (int64_t k = 0; k < kBlock; ++k) out[j + k] = (float(v[k]) * scale - mean) * inv_std;
  }
  const int64_t bad =
      convert_scalar<T, false, false>(src + int64_t(sizeof(T)) * j, count - j, scale, mean, inv_std, out + j);
  return bad < 0 ? -1 : j + bad;
}

template <typename T, bool Swap, bool Log1p>
static int64_t convert_as(const uint8_t *src, int64_t count, float scale, float mean, float inv_std, float *out) {
  if constexpr (kConvertsInBlocks<T> && !Swap && !Log1p)
    return convert_blocks<T>(src, count, scale, mean, inv_std, out);
  return convert_scalar<T, Swap, Log1p>(src, count, scale, mean, inv_std, out);
}

template <typename T>
static int64_t convert_as(const uint8_t *src, bool swap, bool log1p, int64_t count, float scale, float mean,
                          float inv_std, float *out) {
  if (log1p)
    return swap ? convert_as<T, true, true>(src, count, scale, mean, inv_std, out)
                : convert_as<T, false, true>(src, count, scale, mean, inv_std, out);
  return swap ? convert_as<T, true, false>(src, count, scale, mean, inv_std, out)
              : convert_as<T, false, false>(src, count, scale, mean, inv_std, out);
}

int64_t convert(const uint8_t *src, Dtype t, bool big_endian, int64_t count, float scale, float mean, float inv_std,
                float *out, bool log1p) {
  const bool swap = big_endian && dtype_size(t) > 1; // one-byte types have no byte order
  switch (t) {
  case Dtype::U8: return convert_as<uint8_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::I8: return convert_as<int8_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::U16: return convert_as<uint16_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::I16: return convert_as<int16_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::U32: return convert_as<uint32_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::I32: return convert_as<int32_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::I64: return convert_as<int64_t>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::F32: return convert_as<float>(src, swap, log1p, count, scale, mean, inv_std, out);
  case Dtype::F64: return convert_as<double>(src, swap, log1p, count, scale, mean, inv_std, out);
  }
  return -1;
}

void fail_non_finite(const std::string &file, int64_t element) {
  DXRT_FAIL(str("data file '", file, "' holds a non-finite or out-of-range value at element ", element),
            "inputs must be finite float32 numbers");
}

void to_floats(const Array &a, float *out) {
  // x * 1 - 0, then * 1: exactly float(x).
  int64_t bad = convert(a.bytes.data(), a.dtype, false, a.numel(), 1.0f, 0.0f, 1.0f, out);
  if (bad >= 0) fail_non_finite(a.file, bad);
}

std::vector<float> to_floats(const Array &a) {
  std::vector<float> out(size_t(a.numel()));
  to_floats(a, out.data());
  return out;
}

bool is_label(double v, int64_t classes) {
  // Without a class count the conversion to int64_t bounds the labels: beyond
  // 2^63 it would be undefined (a float64 label file may hold 1e300).
  const double limit = classes > 0 ? double(classes) : 0x1p63;
  return std::isfinite(v) && v == std::floor(v) && v >= 0 && v < limit;
}

std::string label_problem(int64_t classes) {
  return classes > 0 ? str("outside [0, ", classes, ")") : std::string("not a class index in [0, 2^63)");
}

std::vector<int64_t> to_labels(const Array &a, int64_t classes) {
  std::vector<int64_t> out(size_t(a.numel()));
  int64_t bad = -1;
  double badv = 0;
  each(a, [&](int64_t i, double v) {
    const bool ok = is_label(v, classes);
    if (!ok && bad < 0) {
      bad = i;
      badv = v;
    }
    out[size_t(i)] = ok ? int64_t(v) : 0;
  });
  DXRT_CHECK(bad < 0, str("label file '", a.file, "': label ", bad, " is ", badv, ", ", label_problem(classes)),
             classes > 0 ? str("the dataset block says classes: ", classes, "; check it and the label file")
                         : std::string("labels must be non-negative integers"));
  return out;
}

Array array_from_file(std::vector<uint8_t> bytes, const ArrayLayout &layout, const std::string &path) {
  Array a;
  a.file = path;
  a.shape = layout.shape;
  a.dtype = layout.dtype;
  bytes.erase(bytes.begin(), bytes.begin() + long(layout.offset));
  a.bytes = std::move(bytes);
  const size_t esize = dtype_size(a.dtype);
  if (layout.big_endian && esize > 1) // -> host order (little-endian x86/ARM)
    for (size_t i = 0; i < a.bytes.size(); i += esize) std::reverse(&a.bytes[i], &a.bytes[i] + esize);
  return a;
}

} // namespace dxrt
