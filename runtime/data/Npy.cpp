// NPY files (numpy.save): "\x93NUMPY", version, header length, a Python dict
// literal {'descr': '<f4', 'fortran_order': False, 'shape': (N, 1, 28, 28), }
// padded with spaces, then the raw data. Little-endian f4/f8/u1/i1/i2/i4/i8,
// C order.
#include "common/Check.h"
#include "data/Array.h"
#include "data/Bytes.h"

#include <cctype>
#include <cstring>

namespace dxrt {

namespace {

// The value text of `key` in the header dict, up to the next top-level comma
// or closing brace; "" when absent.
std::string dict_value(const std::string &h, const std::string &key) {
  size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) k = h.find("\"" + key + "\"");
  if (k == std::string::npos) return "";
  size_t colon = h.find(':', k + key.size() + 2);
  if (colon == std::string::npos) return "";
  size_t i = colon + 1, depth = 0;
  std::string v;
  for (; i < h.size(); ++i) {
    char c = h[i];
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth) --depth;
    else if ((c == ',' || c == '}') && depth == 0) break;
    v += c;
  }
  size_t a = v.find_first_not_of(" \t"), b = v.find_last_not_of(" \t");
  return a == std::string::npos ? "" : v.substr(a, b - a + 1);
}

} // namespace

ArrayLayout parse_npy(const uint8_t *bytes, size_t size, const std::string &path) {
  const std::string what = str("NPY file '", path, "'");
  const std::string hint = "write it with numpy.save (little-endian, C order)";
  DXRT_CHECK(size >= 10 && std::memcmp(bytes, "\x93NUMPY", 6) == 0,
             str(what, " does not start with the NPY magic \\x93NUMPY"), hint);
  int major = bytes[6];
  DXRT_CHECK(major >= 1 && major <= 3, str(what, " has an unknown format version ", major, ".", int(bytes[7])), hint);
  size_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = size_t(bytes[8]) | size_t(bytes[9]) << 8;
    hstart = 10;
  } else {
    DXRT_CHECK(size >= 12, str(what, " is truncated inside its header"), hint);
    hlen = size_t(bytes[8]) | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
    hstart = 12;
  }
  DXRT_CHECK(size >= hstart + hlen,
             str(what, " is truncated inside its header (", hstart + hlen, " bytes needed, ", size, " present)"), hint);
  std::string h(bytes + hstart, bytes + hstart + hlen);

  ArrayLayout a;
  a.offset = hstart + hlen;
  std::string descr = dict_value(h, "descr"), order = dict_value(h, "fortran_order"), shape = dict_value(h, "shape");
  DXRT_CHECK(!descr.empty() && !order.empty() && !shape.empty(),
             str(what, " has a header without 'descr', 'fortran_order' or 'shape': ", h), hint);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
  struct Known { const char *descr; Dtype t; };
  static const Known known[] = {{"<f4", Dtype::F32}, {"<f8", Dtype::F64}, {"|u1", Dtype::U8}, {"<u1", Dtype::U8},
                                {"|i1", Dtype::I8},  {"<i1", Dtype::I8},  {"<i2", Dtype::I16}, {"<u2", Dtype::U16}, {"<i4", Dtype::I32}, {"<u4", Dtype::U32},
                                {"<i8", Dtype::I64}};
  bool found = false;
  for (const Known &k : known)
    if (descr == k.descr) {
      a.dtype = k.t;
      found = true;
    }
  DXRT_CHECK(found, str(what, " has element type '", descr, "', which the reader does not take"),
             descr.size() && descr[0] == '>' ? "big-endian arrays are not supported: save with dtype '<f4' (x.astype('<f4'))"
                                             : "supported: <f4 <f8 |u1 |i1 <i2 <i4 <i8 (convert with x.astype('float32'))");
  DXRT_CHECK(order == "False", str(what, " is stored in Fortran order"),
             "save a C-ordered array: numpy.save(path, numpy.ascontiguousarray(x))");
  DXRT_CHECK(shape.size() >= 2 && shape.front() == '(' && shape.back() == ')',
             str(what, " has a malformed shape ", shape), hint);
  std::string dims = shape.substr(1, shape.size() - 2);
  for (size_t i = 0; i < dims.size();) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) ++i;
    if (i >= dims.size()) break;
    DXRT_CHECK(std::isdigit(static_cast<unsigned char>(dims[i])), str(what, " has a malformed shape ", shape), hint);
    int64_t d = 0;
    while (i < dims.size() && std::isdigit(static_cast<unsigned char>(dims[i]))) {
      d = d * 10 + (dims[i++] - '0');
      DXRT_CHECK(d <= kMaxElements, str(what, " claims an absurd shape ", shape), hint);
    }
    if (i < dims.size() && dims[i] == 'L') ++i; // Python 2 longs
    a.shape.push_back(d);
  }
  DXRT_CHECK(shape_within_bounds(a.shape), str(what, " claims an absurd shape ", shape), hint);
  DXRT_CHECK(!a.shape.empty(), str(what, " holds a 0-dimensional array (a scalar)"),
             "save an array of shape [N, ...sample] (inputs) or [N] (labels)");
  uint64_t want = uint64_t(a.numel()) * dtype_size(a.dtype), have = size - a.offset;
  DXRT_CHECK(have >= want, str(what, " is truncated: its header says ", shape_str(a.shape), " ", dtype_name(a.dtype),
                               " = ", want, " bytes of data, the file has ", have),
             "write the file again");
  DXRT_CHECK(have == want, str(what, " has ", have - want, " bytes after the ", shape_str(a.shape), " data its header announces"),
             hint);
  return a;
}

Array read_npy(const std::string &path) {
  std::vector<uint8_t> bytes = read_file(path);
  const ArrayLayout l = parse_npy(bytes.data(), bytes.size(), path);
  return array_from_file(std::move(bytes), l, path);
}

} // namespace dxrt
