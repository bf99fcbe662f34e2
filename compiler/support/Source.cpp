#include "support/Source.h"

#include <algorithm>

namespace dx {

int SourceManager::add(std::string path, std::string contents) {
  File f;
  f.path = std::move(path);
  f.contents = std::move(contents);
  f.lineStarts.push_back(0);
  for (uint32_t i = 0; i < f.contents.size(); ++i)
    if (f.contents[i] == '\n') f.lineStarts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<int>(files_.size()) - 1;
}

int SourceManager::find(const std::string &path) const {
  for (size_t i = 0; i < files_.size(); ++i)
    if (files_[i].path == path) return static_cast<int>(i);
  return -1;
}

LineCol SourceManager::lineCol(int file, uint32_t offset) const {
  const File &f = files_[file];
  auto it = std::upper_bound(f.lineStarts.begin(), f.lineStarts.end(), offset);
  unsigned line = static_cast<unsigned>(it - f.lineStarts.begin());
  return {line, offset - f.lineStarts[line - 1] + 1};
}

std::string_view SourceManager::lineText(int file, unsigned line) const {
  const File &f = files_[file];
  if (line == 0 || line > f.lineStarts.size()) return {};
  uint32_t b = f.lineStarts[line - 1];
  uint32_t e = line < f.lineStarts.size() ? f.lineStarts[line] : f.contents.size();
  std::string_view s(f.contents.data() + b, e - b);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string SourceManager::describe(const SourceRange &r) const {
  if (!r.valid()) return "<unknown>";
  LineCol lc = lineCol(r.file, r.begin);
  return files_[r.file].path + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

std::string_view SourceManager::text(const SourceRange &r) const {
  if (!r.valid()) return {};
  const std::string &c = files_[r.file].contents;
  uint32_t b = std::min<uint32_t>(r.begin, c.size());
  uint32_t e = std::min<uint32_t>(std::max(r.end, b), c.size());
  return std::string_view(c.data() + b, e - b);
}

} // namespace dx
