// Tensor types as sema infers them: an element type and dims that are static
// sizes or symbols (the batch dim B).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dx {

enum class ElemType { F32, F64, F16, BF16, I64, I32, Bool };

std::optional<ElemType> parseElemType(const std::string &s);
const char *spelling(ElemType t);
std::vector<std::string> elemTypeNames();
bool isFloat(ElemType t);

struct Dim {
  int64_t size = 0;     // valid when symbol is empty
  std::string symbol;   // e.g. "B"
  bool isStatic() const { return symbol.empty(); }
  static Dim of(int64_t n) { return Dim{n, ""}; }
  static Dim sym(std::string s) { return Dim{0, std::move(s)}; }
  bool operator==(const Dim &o) const { return symbol == o.symbol && (!isStatic() || size == o.size); }
  bool operator!=(const Dim &o) const { return !(*this == o); }
  std::string str() const { return isStatic() ? std::to_string(size) : symbol; }
};

struct TensorType {
  ElemType elem = ElemType::F32;
  std::vector<Dim> dims;
  int rank() const { return static_cast<int>(dims.size()); }
  bool operator==(const TensorType &o) const { return elem == o.elem && dims == o.dims; }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
  // Product of the static dims; symbolic dims count as 1 (i.e. per sample).
  int64_t staticElements() const;
  std::string str() const;        // f32[B, 10]
  std::string shapeStr() const;   // [B, 10]
};

// Multiplication that reports overflow instead of wrapping.
bool mulOverflows(int64_t a, int64_t b, int64_t &out);

} // namespace dx
