// What the NPY and IDX harnesses share: an inputs file read both ways
// load_split reads one (Access::Read: whole, gunzipped, converted to floats;
// Access::Map: parsed where it lies and converted as gather() does), and the
// conversion to labels that a second file goes through.
#pragma once

#include "common/Check.h"
#include "data/Array.h"
#include "data/Bytes.h"
#include "ReaderFuzz.h"

#include <string>
#include <vector>

namespace dxfuzz {

using ReadArray = dxrt::Array (*)(const std::string &path);
using ParseLayout = dxrt::ArrayLayout (*)(const uint8_t *bytes, size_t size, const std::string &path);

inline void fuzz_array_file(const std::string &path, ReadArray read, ParseLayout parse) {
  allow_errors<dxrt::Error>([&] {
    const dxrt::Array a = read(path);
    allow_errors<dxrt::Error>([&] { dxrt::to_floats(a); });
    allow_errors<dxrt::Error>([&] { dxrt::to_labels(a, 0); });  // no class count: any index >= 0
    allow_errors<dxrt::Error>([&] { dxrt::to_labels(a, 10); });
  });
  allow_errors<dxrt::Error>([&] {
    const auto file = dxrt::map_file(path); // null when gzip-compressed
    if (!file) return;
    const dxrt::ArrayLayout l = parse(file->data, file->size, path);
    std::vector<float> out(size_t(l.numel()));
    for (bool log1p : {false, true})
      dxrt::convert(file->data + l.offset, l.dtype, l.big_endian, l.numel(), 0.5f, 0.1f, 2.0f, out.data(), log1p);
  });
}

} // namespace dxfuzz
