// Whole-file reads, transparently gunzipping (zlib reads plain files as they
// are), with errors that name the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

std::vector<uint8_t> read_file(const std::string &path);

} // namespace dxrt
