// Helpers for the runtime's tests: a temporary directory, writers for IDX
// (optionally gzipped), NPY and text files, and random data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>
#include <zlib.h>

namespace dxtest {

// n floats uniform in [lo, hi), the same ones for the same seed.
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = u(g);
  return v;
}

// A fresh directory under $TMPDIR, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dxrt-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string &name) const { return (path / name).string(); }
};

inline void write_bytes(const std::string &path, const std::vector<uint8_t> &bytes, bool gz = false) {
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), unsigned(bytes.size()));
    gzclose(f);
    return;
  }
  std::FILE *f = std::fopen(path.c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

inline void write_text(const std::string &path, const std::string &text) {
  write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

inline std::vector<uint8_t> read_bytes(const std::string &path) {
  std::vector<uint8_t> out;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return out;
  int c;
  while ((c = std::fgetc(f)) != EOF) out.push_back(uint8_t(c));
  std::fclose(f);
  return out;
}

// An IDX file of u8 values with the given dimensions.
inline std::vector<uint8_t> idx_u8(const std::vector<uint32_t> &dims, const std::vector<uint8_t> &data) {
  std::vector<uint8_t> b = {0, 0, 0x08, uint8_t(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(d >> s));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// An NPY (version 1.0) file: descr such as "<f4", the shape, raw data bytes.
inline std::vector<uint8_t> npy(const std::string &descr, const std::vector<int64_t> &shape,
                                const std::vector<uint8_t> &data, bool fortran = false) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  s += ")";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + s + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::vector<uint8_t> b(10 + h.size() + data.size());
  const uint8_t magic[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(h.size() & 0xff), uint8_t(h.size() >> 8)};
  std::copy(magic, magic + 10, b.begin());
  std::copy(h.begin(), h.end(), b.begin() + 10);
  std::copy(data.begin(), data.end(), b.begin() + 10 + long(h.size()));
  return b;
}

template <typename T> std::vector<uint8_t> raw(const std::vector<T> &v) {
  const uint8_t *p = reinterpret_cast<const uint8_t *>(v.data());
  return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}

} // namespace dxtest
