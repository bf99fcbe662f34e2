#include "data/Array.h"

#include "common/Check.h"

#include <cmath>
#include <cstring>

namespace dxrt {

size_t dtype_size(Dtype t) {
  switch (t) {
  case Dtype::U8: case Dtype::I8: return 1;
  case Dtype::I16: return 2;
  case Dtype::I32: case Dtype::F32: return 4;
  case Dtype::I64: case Dtype::F64: return 8;
  }
  return 1;
}

const char *dtype_name(Dtype t) {
  switch (t) {
  case Dtype::U8: return "uint8";
  case Dtype::I8: return "int8";
  case Dtype::I16: return "int16";
  case Dtype::I32: return "int32";
  case Dtype::I64: return "int64";
  case Dtype::F32: return "float32";
  case Dtype::F64: return "float64";
  }
  return "?";
}

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

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
  case Dtype::I16: load(int16_t{}); break;
  case Dtype::I32: load(int32_t{}); break;
  case Dtype::I64: load(int64_t{}); break;
  case Dtype::F32: load(float{}); break;
  case Dtype::F64: load(double{}); break;
  }
}

std::vector<float> to_floats(const Array &a) {
  std::vector<float> out(size_t(a.numel()));
  if (a.dtype == Dtype::U8) { // the common case (images), fast
    for (size_t i = 0; i < out.size(); ++i) out[i] = float(a.bytes[i]);
    return out;
  }
  int64_t bad = -1;
  each(a, [&](int64_t i, double v) {
    out[size_t(i)] = float(v);
    if (bad < 0 && !std::isfinite(out[size_t(i)])) bad = i;
  });
  DXRT_CHECK(bad < 0, str("data file '", a.file, "' holds a non-finite or out-of-range value at element ", bad),
             "inputs must be finite float32 numbers");
  return out;
}

std::vector<int64_t> to_labels(const Array &a, int64_t classes) {
  std::vector<int64_t> out(size_t(a.numel()));
  int64_t bad = -1;
  double badv = 0;
  each(a, [&](int64_t i, double v) {
    bool ok = std::isfinite(v) && v == std::floor(v) && v >= 0 && (classes <= 0 || v < double(classes));
    if (!ok && bad < 0) {
      bad = i;
      badv = v;
    }
    out[size_t(i)] = ok ? int64_t(v) : 0;
  });
  DXRT_CHECK(bad < 0,
             str("label file '", a.file, "': label ", bad, " is ", badv,
                 classes > 0 ? str(", outside [0, ", classes, ")") : std::string(", not a class index >= 0")),
             classes > 0 ? str("the dataset block says classes: ", classes, "; check it and the label file")
                         : std::string("labels must be non-negative integers"));
  return out;
}

} // namespace dxrt
