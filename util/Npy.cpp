#include "util/Npy.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dx {
namespace {

std::runtime_error io_error(const std::string &path, const std::string &what) {
  return std::runtime_error(path + ": " + what);
}

int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t descr_size(const std::string &descr) {
  return descr == "<f4" ? 4 : descr == "<f8" || descr == "<i8" ? 8 : descr == "<i2" ? 2 : descr == "|u1" ? 1 : 0;
}

} // namespace

NpyWriter::NpyWriter(std::string path, std::vector<int64_t> shape, const char *descr)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), expected_(product(shape)), elem_(descr_size(descr)) {
  if (elem_ == 0) throw io_error(path_, std::string("NPY dtype '") + descr + "' cannot be written");
  // Python's tuple syntax: (), (N,), (N, C, H).
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw io_error(tmp_, std::string("cannot open for writing: ") + std::strerror(errno));
  const unsigned char magic[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xFF),
                                   uint8_t(header.size() >> 8)};
  if (std::fwrite(magic, 1, 10, file_) != 10 || std::fwrite(header.data(), 1, header.size(), file_) != header.size())
    throw io_error(tmp_, "write failed (disk full?)");
}

NpyWriter::~NpyWriter() {
  if (file_) {
    std::fclose(file_);
    std::remove(tmp_.c_str());
  }
}

void NpyWriter::append(const void *data, int64_t elements) {
  if (written_ + elements > expected_)
    throw io_error(path_, "more elements than the shape holds (" + std::to_string(expected_) + ")");
  const size_t bytes = size_t(elements * elem_);
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) throw io_error(tmp_, "write failed (disk full?)");
  written_ += elements;
}

void NpyWriter::finish() {
  if (written_ != expected_)
    throw io_error(path_, "got " + std::to_string(written_) + " elements, the shape holds " + std::to_string(expected_));
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) {
    std::remove(tmp_.c_str());
    throw io_error(tmp_, "write failed (disk full?)");
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
    throw io_error(path_, std::string("cannot rename: ") + std::strerror(errno));
}

void write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data) {
  NpyWriter w(path, shape, "<f4");
  w.append(data, product(shape));
  w.finish();
}
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int64_t *data) {
  NpyWriter w(path, shape, "<i8");
  w.append(data, product(shape));
  w.finish();
}
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const int16_t *data) {
  NpyWriter w(path, shape, "<i2");
  w.append(data, product(shape));
  w.finish();
}
void write_npy(const std::string &path, const std::vector<int64_t> &shape, const uint8_t *data) {
  NpyWriter w(path, shape, "|u1");
  w.append(data, product(shape));
  w.finish();
}

int64_t NpyArray::count() const { return product(shape); }

std::vector<float> NpyArray::as_floats() const {
  const int64_t n = count();
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    float &o = out[size_t(i)];
    if (descr == "<f4") std::memcpy(&o, bytes.data() + 4 * i, 4);
    else if (descr == "<f8") {
      double v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      o = float(v);
    } else if (descr == "<i8") {
      int64_t v;
      std::memcpy(&v, bytes.data() + 8 * i, 8);
      o = float(v);
    } else if (descr == "<i2") {
      int16_t v;
      std::memcpy(&v, bytes.data() + 2 * i, 2);
      o = float(v);
    } else o = float(bytes[size_t(i)]);
  }
  return out;
}

NpyArray read_npy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path, std::string("cannot open: ") + std::strerror(errno));
  char head[10];
  if (!in.read(head, 10) || std::memcmp(head, "\x93NUMPY", 6) != 0) throw io_error(path, "not an NPY file (bad magic)");
  size_t hlen = uint8_t(head[8]) | (size_t(uint8_t(head[9])) << 8);
  if (head[6] != 1) { // versions 2 and 3: a 4-byte header length
    char more[2];
    if (!in.read(more, 2)) throw io_error(path, "truncated NPY header");
    hlen |= (size_t(uint8_t(more[0])) << 16) | (size_t(uint8_t(more[1])) << 24);
  }
  std::string header(hlen, '\0');
  if (!in.read(header.data(), std::streamsize(hlen))) throw io_error(path, "truncated NPY header");
  auto value_of = [&](const std::string &key) {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) throw io_error(path, "NPY header has no '" + key + "'");
    p = header.find(':', p);
    if (p == std::string::npos) throw io_error(path, "bad NPY header");
    return header.find_first_not_of(' ', p + 1);
  };
  NpyArray a;
  size_t p = value_of("descr");
  size_t q = header.find('\'', p + 1);
  if (p == std::string::npos || header[p] != '\'' || q == std::string::npos) throw io_error(path, "bad NPY descr");
  a.descr = header.substr(p + 1, q - p - 1);
  if (header.compare(value_of("fortran_order"), 4, "True") == 0)
    throw io_error(path, "Fortran-order arrays are not supported");
  size_t s = value_of("shape"), e = header.find(')', s);
  if (s == std::string::npos || header[s] != '(' || e == std::string::npos) throw io_error(path, "bad NPY shape");
  const std::string dims = header.substr(s + 1, e - s - 1);
  for (size_t i = 0; i < dims.size();) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    size_t j = i;
    while (j < dims.size() && dims[j] >= '0' && dims[j] <= '9') ++j;
    if (j == i || j - i > 15) throw io_error(path, "bad NPY shape '(" + dims + ")'");
    a.shape.push_back(std::stoll(dims.substr(i, j - i)));
    i = j;
  }
  const int64_t elem = descr_size(a.descr);
  if (elem == 0) throw io_error(path, "NPY dtype '" + a.descr + "' is not supported here (<f4, <f8, <i8, <i2, |u1 are)");
  a.bytes.resize(size_t(a.count() * elem));
  if (!a.bytes.empty() && !in.read(reinterpret_cast<char *>(a.bytes.data()), std::streamsize(a.bytes.size())))
    throw io_error(path, "truncated: the header promises " + std::to_string(a.bytes.size()) + " bytes of data");
  return a;
}

void make_directories(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw io_error(dir, "cannot create directory: " + ec.message());
}

} // namespace dx
