// Values during elaboration: compile-time constants (hyper-parameters, enum
// symbols, lists) and references to tensors in the graph being built.
#pragma once

#include "support/Source.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dx {

struct Value {
  enum class Kind { Error, None, Int, Float, Bool, String, Symbol, List, Tensor };
  Kind kind = Kind::Error;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;            // String, Symbol
  std::vector<Value> list;  // List
  int tensor = -1;          // Tensor: index into Graph::values
  bool unbound = false;     // Symbol made from an undefined name in argument position
  SourceRange range;        // where the value was written or computed

  static Value error() { return Value{}; }
  static Value none() { Value v; v.kind = Kind::None; return v; }
  static Value ofInt(int64_t x, SourceRange r = {}) { Value v; v.kind = Kind::Int; v.i = x; v.range = r; return v; }
  static Value ofFloat(double x, SourceRange r = {}) { Value v; v.kind = Kind::Float; v.f = x; v.range = r; return v; }
  static Value ofBool(bool x, SourceRange r = {}) { Value v; v.kind = Kind::Bool; v.b = x; v.range = r; return v; }
  static Value ofString(std::string x, SourceRange r = {}) { Value v; v.kind = Kind::String; v.s = std::move(x); v.range = r; return v; }
  static Value ofSymbol(std::string x, SourceRange r = {}) { Value v; v.kind = Kind::Symbol; v.s = std::move(x); v.range = r; return v; }
  static Value ofTensor(int t, SourceRange r = {}) { Value v; v.kind = Kind::Tensor; v.tensor = t; v.range = r; return v; }

  bool isError() const { return kind == Kind::Error; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float; }
  double number() const { return kind == Kind::Int ? static_cast<double>(i) : f; }
  // For printing in tables, dumps and messages: 3, 0.5, same, [3, 3].
  std::string str() const;
  // "an integer", "a tensor", ... for messages.
  std::string kindName() const;
};

} // namespace dx
