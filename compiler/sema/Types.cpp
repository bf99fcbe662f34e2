#include "sema/Types.h"

namespace dx {

static const std::pair<const char *, ElemType> kElemTypes[] = {
    {"f32", ElemType::F32}, {"f64", ElemType::F64}, {"f16", ElemType::F16}, {"bf16", ElemType::BF16},
    {"i64", ElemType::I64}, {"i32", ElemType::I32}, {"bool", ElemType::Bool}};

std::optional<ElemType> parseElemType(const std::string &s) {
  for (auto &[name, t] : kElemTypes)
    if (s == name) return t;
  return std::nullopt;
}

const char *spelling(ElemType t) {
  for (auto &[name, et] : kElemTypes)
    if (et == t) return name;
  return "?";
}

std::vector<std::string> elemTypeNames() {
  std::vector<std::string> out;
  for (auto &[name, t] : kElemTypes) out.push_back(name);
  return out;
}

bool isFloat(ElemType t) {
  return t == ElemType::F32 || t == ElemType::F64 || t == ElemType::F16 || t == ElemType::BF16;
}

int64_t TensorType::staticElements() const {
  int64_t n = 1;
  for (const Dim &d : dims)
    if (d.isStatic()) n *= d.size;
  return n;
}

std::string TensorType::shapeStr() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i].str();
  return s + "]";
}

std::string TensorType::str() const { return std::string(spelling(elem)) + shapeStr(); }

bool mulOverflows(int64_t a, int64_t b, int64_t &out) { return __builtin_mul_overflow(a, b, &out); }

} // namespace dx
