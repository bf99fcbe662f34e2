// IDX files (LeCun's MNIST format): 0x00 0x00, a type byte, a dimension count,
// big-endian u32 dimensions, then the big-endian data in C order.
#include "common/Check.h"
#include "data/Array.h"
#include "data/Bytes.h"

#include <algorithm>
#include <bit>

namespace dxrt {

static_assert(std::endian::native == std::endian::little, "the readers assume a little-endian host");

static uint32_t be32(const uint8_t *p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

ArrayLayout parse_idx(const uint8_t *bytes, size_t size, const std::string &path) {
  const std::string what = str("IDX file '", path, "'");
  const std::string hint = "an IDX file starts with 0x00 0x00, a type byte and a dimension count (MNIST format)";
  DXRT_CHECK(size >= 4, str(what, " is too short for a header (", size, " bytes)"), hint);
  DXRT_CHECK(bytes[0] == 0 && bytes[1] == 0, str(what, " does not start with the IDX magic 0x00 0x00"), hint);
  ArrayLayout a;
  a.big_endian = true;
  switch (bytes[2]) {
  case 0x08: a.dtype = Dtype::U8; break;
  case 0x09: a.dtype = Dtype::I8; break;
  case 0x0B: a.dtype = Dtype::I16; break;
  case 0x0C: a.dtype = Dtype::I32; break;
  case 0x0D: a.dtype = Dtype::F32; break;
  case 0x0E: a.dtype = Dtype::F64; break;
  default: DXRT_FAIL(str(what, " has an unknown element type 0x", std::hex, int(bytes[2])), hint);
  }
  int ndim = bytes[3];
  DXRT_CHECK(ndim >= 1, str(what, " has 0 dimensions"), hint);
  a.offset = 4 + 4 * size_t(ndim);
  DXRT_CHECK(size >= a.offset, str(what, " is truncated inside its header (", ndim, " dimensions need ", a.offset,
                                   " bytes, the file has ", size, ")"), hint);
  for (int d = 0; d < ndim; ++d) a.shape.push_back(int64_t(be32(&bytes[4 + 4 * size_t(d)])));
  DXRT_CHECK(shape_within_bounds(a.shape), str(what, " claims an absurd size ", shape_str(a.shape)), hint);
  uint64_t want = uint64_t(a.numel()) * dtype_size(a.dtype), have = size - a.offset;
  DXRT_CHECK(have >= want, str(what, " is truncated: its header says ", shape_str(a.shape), " ", dtype_name(a.dtype),
                               " = ", want, " bytes of data, the file has ", have),
             "download or generate the file again");
  DXRT_CHECK(have == want, str(what, " has ", have - want, " bytes after the ", shape_str(a.shape), " ",
                               dtype_name(a.dtype), " data its header announces"), hint);
  return a;
}

Array read_idx(const std::string &path) {
  std::vector<uint8_t> bytes = read_file(path);
  const ArrayLayout l = parse_idx(bytes.data(), bytes.size(), path);
  return array_from_file(std::move(bytes), l, path);
}

} // namespace dxrt
