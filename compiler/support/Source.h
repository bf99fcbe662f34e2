// Source files and ranges. Every AST node and every diagnostic carries a
// SourceRange; the SourceManager turns it back into file:line:col and the text
// of the line for caret rendering.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dx {

struct SourceRange {
  int file = -1;        // index into SourceManager; -1 = no location
  uint32_t begin = 0;   // byte offset of the first character
  uint32_t end = 0;     // byte offset one past the last character
  bool valid() const { return file >= 0; }
  static SourceRange merge(const SourceRange &a, const SourceRange &b) {
    if (!a.valid()) return b;
    if (!b.valid() || a.file != b.file) return a;
    return {a.file, a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
};

struct LineCol {
  unsigned line = 0;    // 1-based
  unsigned col = 0;     // 1-based, in bytes
};

class SourceManager {
public:
  // Adds a file's contents; returns its id.
  int add(std::string path, std::string contents);
  const std::string &path(int file) const { return files_[file].path; }
  const std::string &contents(int file) const { return files_[file].contents; }
  int size() const { return static_cast<int>(files_.size()); }
  // Returns the id of an already-added file with this canonical path, or -1.
  int find(const std::string &path) const;

  LineCol lineCol(int file, uint32_t offset) const;
  // The text of the given 1-based line, without its newline.
  std::string_view lineText(int file, unsigned line) const;
  // "path:line:col" of a range's beginning.
  std::string describe(const SourceRange &r) const;
  std::string_view text(const SourceRange &r) const;

private:
  struct File {
    std::string path;
    std::string contents;
    std::vector<uint32_t> lineStarts;
  };
  std::vector<File> files_;
};

} // namespace dx
