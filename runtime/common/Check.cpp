#include "common/Check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dxrt {

// "/work/main/runtime/data/Idx.cpp" -> "runtime/data/Idx.cpp"
static const char *short_path(const std::string &file) {
  const char *p = std::strstr(file.c_str(), "runtime/");
  return p ? p : file.c_str();
}

std::string describe(const Error &e) {
  std::string out = str("error: ", e.what(), "\n");
  if (!e.hint().empty()) out += str("  hint: ", e.hint(), "\n");
  if (!e.file().empty()) out += str("  (at ", short_path(e.file()), ":", e.line(), ")\n");
  return out;
}

void fatal(const char *file, int line, const std::string &what, const std::string &hint) {
  std::fflush(stdout);
  std::fprintf(stderr, "dxrt: fatal: %s (%s:%d)\n", what.c_str(), short_path(file), line);
  if (!hint.empty()) std::fprintf(stderr, "  hint: %s\n", hint.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace dxrt
