// What every reader harness shares.
//
// The readers of the runtime and of dxc report take paths, not bytes: a
// harness writes each input to a file in a directory of its own (made once
// per process, removed at exit), so that every reader is fuzzed through the
// same calls a run makes. Several fuzzing processes (-fork, -jobs) each get
// their own directory.
//
// A reader refuses a bad file by throwing its error type (dxrt::Error,
// dx::report::InputError): allow_errors<E> catches exactly that. Anything
// else (another exception, a crash, a sanitizer report) is a finding.
// DX_FUZZ_VERBOSE=1 prints each refusal, to see how far a seed gets.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dxfuzz {

inline const std::filesystem::path &scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dx-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::perror("dx-fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

// Writes the bytes to `path`, as a new file: the old one is removed first.
// (ext4 flushes a file truncated to zero and rewritten when it is closed,
// auto_da_alloc: some milliseconds per input.) A failed write is the
// harness's problem, not a finding: it aborts loudly.
inline void write_file(const std::filesystem::path &path, const void *data, size_t size) {
  std::filesystem::create_directories(path.parent_path());
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(("dx-fuzz: writing " + path.string()).c_str());
    std::abort();
  }
}

// The whole of a file (the harnesses' valid fixtures), empty when unreadable.
inline std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes the bytes to `name` inside scratch_dir() and returns its path.
inline std::string write_scratch(const std::string &name, const void *data, size_t size) {
  const std::filesystem::path path = scratch_dir() / name;
  write_file(path, data, size);
  return path.string();
}

template <typename Error, typename F> void allow_errors(F &&f) {
  static const bool verbose = std::getenv("DX_FUZZ_VERBOSE") != nullptr;
  try {
    f();
  } catch (const Error &e) {
    if (verbose) std::fprintf(stderr, "dx-fuzz: refused: %s\n", e.what());
  }
}

} // namespace dxfuzz
