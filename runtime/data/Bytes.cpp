#include "data/Bytes.h"

#include "common/Check.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <zlib.h>

namespace dxrt {

std::vector<uint8_t> read_file(const std::string &path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  DXRT_CHECK(std::filesystem::exists(status), str("data file '", path, "' does not exist"),
             "check the dataset block's paths; relative paths are taken from the current directory, or from --data-dir");
  DXRT_CHECK(std::filesystem::is_regular_file(status), str("data file '", path, "' is not a regular file"), "");
  gzFile f = gzopen(path.c_str(), "rb");
  DXRT_CHECK(f != nullptr, str("cannot open data file '", path, "': ", std::strerror(errno)), "");
  gzbuffer(f, 1 << 17);
  std::vector<uint8_t> out;
  const size_t chunk = size_t(1) << 20;
  for (;;) {
    size_t have = out.size();
    out.resize(have + chunk);
    int got = gzread(f, out.data() + have, unsigned(chunk));
    if (got < 0) {
      int errnum = 0;
      std::string msg = gzerror(f, &errnum);
      if (errnum == Z_ERRNO) msg = std::strerror(errno);
      gzclose(f);
      DXRT_FAIL(str("cannot read data file '", path, "': ", msg),
                "the file is damaged or truncated; download or generate it again");
    }
    out.resize(have + size_t(got));
    if (size_t(got) < chunk) break;
  }
  int errnum = 0;
  std::string msg = gzerror(f, &errnum);
  int rc = gzclose(f);
  DXRT_CHECK(errnum == Z_OK && rc == Z_OK,
             str("cannot read data file '", path, "': ",
                 errnum != Z_OK ? msg : rc == Z_BUF_ERROR ? "the compressed stream ends early (truncated .gz)" : "gzclose failed"),
             "the file is damaged or truncated; download or generate it again");
  return out;
}

} // namespace dxrt
