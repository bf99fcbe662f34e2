#include "common/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dxgen {
namespace {

std::runtime_error io_error(const std::string &path, const std::string &what) {
  return std::runtime_error(path + ": " + what);
}

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void write_raw(const std::string &path, const std::vector<int64_t> &shape, const char *descr, const void *data,
               size_t elem) {
  // Python's tuple syntax: (), (N,), (N, C, H).
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  const std::string tmp = path + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw io_error(tmp, std::string("cannot open for writing: ") + std::strerror(errno));
  const uint16_t len = uint16_t(header.size());
  const unsigned char magic[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  const unsigned char lenb[2] = {uint8_t(len & 0xFF), uint8_t(len >> 8)};
  const size_t bytes = size_t(product(shape)) * elem;
  bool ok = std::fwrite(magic, 1, 8, f) == 8 && std::fwrite(lenb, 1, 2, f) == 2 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) {
    std::remove(tmp.c_str());
    throw io_error(tmp, "write failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw io_error(path, std::string("cannot rename: ") + std::strerror(errno));
}

} // namespace

void write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data) {
  write_raw(path, shape, "<f4", data, 4);
}
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int64_t *data) {
  write_raw(path, shape, "<i8", data, 8);
}
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const uint8_t *data) {
  write_raw(path, shape, "|u1", data, 1);
}

int64_t NpyArray::count() const { return product(shape); }

std::vector<float> NpyArray::as_floats() const {
  const int64_t n = count();
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (descr == "<f4") std::memcpy(&out[size_t(i)], bytes.data() + 4 * i, 4);
    else if (descr == "<f8") {
      double v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      out[size_t(i)] = float(v);
    } else if (descr == "<i8") {
      int64_t v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      out[size_t(i)] = float(v);
    } else if (descr == "|u1") out[size_t(i)] = float(bytes[size_t(i)]);
    else throw std::runtime_error("NPY dtype '" + descr + "' is not supported here (f4, f8, i8, u1 are)");
  }
  return out;
}

NpyArray read_npy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path, std::string("cannot open: ") + std::strerror(errno));
  char head[10];
  if (!in.read(head, 10) || std::memcmp(head, "\x93NUMPY", 6) != 0) throw io_error(path, "not an NPY file (bad magic)");
  size_t hlen = uint8_t(head[8]) | (size_t(uint8_t(head[9])) << 8);
  if (head[6] != 1) {
    char more[2];
    if (!in.read(more, 2)) throw io_error(path, "truncated NPY header");
    hlen |= (size_t(uint8_t(more[0])) << 16) | (size_t(uint8_t(more[1])) << 24);
  }
  std::string header(hlen, '\0');
  if (!in.read(header.data(), std::streamsize(hlen))) throw io_error(path, "truncated NPY header");
  NpyArray a;
  auto field = [&](const std::string &key) {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) throw io_error(path, "NPY header has no '" + key + "'");
    return header.find(':', p) + 1;
  };
  size_t p = header.find('\'', field("descr"));
  a.descr = header.substr(p + 1, header.find('\'', p + 1) - p - 1);
  if (header.find("True", field("fortran_order")) == field("fortran_order") + 1) throw io_error(path, "Fortran-order arrays are not supported");
  size_t s = header.find('(', field("shape")), e = header.find(')', s);
  std::string dims = header.substr(s + 1, e - s - 1);
  for (size_t i = 0; i < dims.size();) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    size_t j = i;
    while (j < dims.size() && dims[j] >= '0' && dims[j] <= '9') ++j;
    if (j == i) throw io_error(path, "bad NPY shape '(" + dims + ")'");
    a.shape.push_back(std::stoll(dims.substr(i, j - i)));
    i = j;
  }
  size_t elem = a.descr == "<f4" ? 4 : a.descr == "<f8" || a.descr == "<i8" ? 8 : a.descr == "|u1" ? 1 : 0;
  if (elem == 0) throw io_error(path, "NPY dtype '" + a.descr + "' is not supported here (f4, f8, i8, u1 are)");
  a.bytes.resize(size_t(a.count()) * elem);
  if (!a.bytes.empty() && !in.read(reinterpret_cast<char *>(a.bytes.data()), std::streamsize(a.bytes.size())))
    throw io_error(path, "truncated: the header promises " + std::to_string(a.bytes.size()) + " bytes of data");
  return a;
}

void make_directories(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw io_error(dir, "cannot create directory: " + ec.message());
}

} // namespace dxgen
