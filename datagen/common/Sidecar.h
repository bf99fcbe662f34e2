// The JSON sidecar written next to every generated dataset: the command, the
// version, every parameter, the files and their shapes, so a dataset can be
// regenerated exactly and a study can cite what it trained on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace dxgen {

// Writes `doc` (pretty-printed) to path atomically (path.tmp, rename).
void write_sidecar(const std::string &path, const nlohmann::json &doc);

} // namespace dxgen
