// Whole-file reads, transparently gunzipping (zlib reads plain files as they
// are), and read-only mappings of uncompressed files; errors name the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dxrt {

std::vector<uint8_t> read_file(const std::string &path);

// A file mapped read-only and shared (MAP_SHARED: the processes of a node
// share its pages through the page cache), unmapped with its last owner.
struct MappedFile {
  const uint8_t *data = nullptr;
  size_t size = 0;
  MappedFile() = default;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();
};

// The file mapped, or null when it is gzip-compressed (read_file decompresses
// those). A file of at most 1/8 of the machine's memory is populated at once
// (its pages read and mapped: no page fault when a batch touches them);
// a larger one's pages are read when first touched.
std::shared_ptr<const MappedFile> map_file(const std::string &path);

} // namespace dxrt
