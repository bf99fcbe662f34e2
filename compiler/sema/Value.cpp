#include "sema/Value.h"

#include <cstdio>

namespace dx {

std::string Value::str() const {
  switch (kind) {
  case Kind::Error: return "<error>";
  case Kind::None: return "none";
  case Kind::Int: return std::to_string(i);
  case Kind::Float: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
  }
  case Kind::Bool: return b ? "true" : "false";
  case Kind::String: return "\"" + s + "\"";
  case Kind::Symbol: return s;
  case Kind::List: {
    std::string out = "[";
    for (size_t k = 0; k < list.size(); ++k) out += (k ? ", " : "") + list[k].str();
    return out + "]";
  }
  case Kind::Tensor: return "tensor";
  }
  return "?";
}

std::string Value::kindName() const {
  switch (kind) {
  case Kind::Error: return "an invalid value";
  case Kind::None: return "none";
  case Kind::Int: return "an integer";
  case Kind::Float: return "a number";
  case Kind::Bool: return "a boolean";
  case Kind::String: return "a string";
  case Kind::Symbol: return "the name '" + s + "'";
  case Kind::List: return "a list";
  case Kind::Tensor: return "a tensor";
  }
  return "?";
}

} // namespace dx
