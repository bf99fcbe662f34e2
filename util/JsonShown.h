// A JSON value as error messages show it: its text, cut to 80 characters,
// and a value nested deeper than 16 only named ("a list nested deeper than
// 16"), because nlohmann's dump() recurses once per level and a crafted
// value 100,000 levels deep would overflow the stack. Shared by the readers
// of untrusted JSON: dxc report's metrics logs, the model metadata, weights
// indexes. `array` names a JSON array in the message ("a list", "an array").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dx {

template <typename Json> std::string json_shown(const Json &v, const char *array = "a list") {
  constexpr int kMaxDepth = 16;
  std::vector<std::pair<const Json *, int>> todo = {{&v, 0}};
  while (!todo.empty()) {
    const auto [j, depth] = todo.back();
    todo.pop_back();
    if (!j->is_structured()) continue;
    if (depth == kMaxDepth) return v.is_array() ? std::string(array) + " nested deeper than 16" : "an object nested deeper than 16";
    for (const Json &c : *j) todo.push_back({&c, depth + 1});
  }
  std::string text = v.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

} // namespace dx
