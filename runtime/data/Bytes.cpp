#include "data/Bytes.h"

#include "common/Check.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace dxrt {

// Deflate expands its input at most 1032-fold (zlib's FAQ), the bound on
// what a gzip file of a given size decompresses to.
static constexpr size_t kMaxDeflateRatio = 1032;

// A guess of the file's size once read, to allocate once: the file size, or
// for gzip the uncompressed size mod 2^32 its trailer records, unless that
// is more than deflate can give: the last 4 bytes are only a trailer's when
// the file ends with a gzip member (gzread ignores trailing garbage), and a
// crafted file must not make the reader reserve 4 GiB.
static size_t expected_size(const std::string &path, size_t file_size) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return file_size;
  unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
  size_t guess = file_size;
  if (std::fread(head, 1, 2, f) == 2 && head[0] == 0x1f && head[1] == 0x8b && file_size >= 18 &&
      std::fseek(f, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, f) == 4)
    guess = std::min(size_t(tail[0]) | size_t(tail[1]) << 8 | size_t(tail[2]) << 16 | size_t(tail[3]) << 24,
                     file_size * kMaxDeflateRatio);
  std::fclose(f);
  return guess;
}

static void check_exists(const std::string &path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  DXRT_CHECK(std::filesystem::exists(status), str("data file '", path, "' does not exist"),
             "check the dataset block's paths; relative paths are taken from the current directory, or from --data-dir");
  DXRT_CHECK(std::filesystem::is_regular_file(status), str("data file '", path, "' is not a regular file"), "");
}

std::vector<uint8_t> read_file(const std::string &path) {
  check_exists(path);
  std::error_code ec;
  gzFile f = gzopen(path.c_str(), "rb");
  DXRT_CHECK(f != nullptr, str("cannot open data file '", path, "': ", std::strerror(errno)), "");
  gzbuffer(f, 1 << 17);
  std::vector<uint8_t> out;
  const size_t expected = expected_size(path, size_t(std::filesystem::file_size(path, ec)));
  out.reserve(expected);
  const size_t chunk = size_t(1) << 22;
  for (;;) {
    // Up to the expected size (and one byte more, to meet the end in the
    // same call), then 4 MiB at a time: a small file costs no 4 MiB buffer.
    const size_t have = out.size(), want = std::min(have <= expected ? expected - have + 1 : chunk, chunk);
    out.resize(have + want);
    int got = gzread(f, out.data() + have, unsigned(want));
    if (got < 0) {
      int errnum = 0;
      std::string msg = gzerror(f, &errnum);
      if (errnum == Z_ERRNO) msg = std::strerror(errno);
      gzclose(f);
      DXRT_FAIL(str("cannot read data file '", path, "': ", msg),
                "the file is damaged or truncated; download or generate it again");
    }
    out.resize(have + size_t(got));
    if (size_t(got) < want) break;
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

MappedFile::~MappedFile() {
  if (data) munmap(const_cast<uint8_t *>(data), size);
}

// A file of at most 1/8 of the machine's memory gets its page-table entries
// at once (MADV_POPULATE_READ, Linux 5.14; it also reads what the page cache
// does not hold yet). Otherwise each 64 KiB (the kernel's fault-around)
// costs a page fault when a batch first touches it, and the global shuffle
// touches them all, in random order, over the first epoch. Measured on a
// 2-core virtual machine (one thread): populating the microscopy CNN's 164
// MB training file takes 7 ms; the batch gather goes from 2.35 to 1.5 ms
// per step over the first 30 steps, from 0.78 to 0.65 over the epoch.
// Larger files keep faulting in as they are read (populating them would
// read or evict more than a short run needs); an older kernel refuses the
// advice, which only leaves the faults.
static void prefault(void *p, size_t bytes) {
#ifndef MADV_POPULATE_READ
  constexpr int MADV_POPULATE_READ = 22; // linux/mman.h; glibc < 2.35 lacks it
#endif
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0 || bytes > size_t(pages) / 8 * size_t(page)) return;
  (void)madvise(p, bytes, MADV_POPULATE_READ);
}

std::shared_ptr<const MappedFile> map_file(const std::string &path) {
  check_exists(path);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  DXRT_CHECK(fd >= 0, str("cannot open data file '", path, "': ", std::strerror(errno)), "");
  struct stat st {};
  unsigned char magic[2] = {0, 0};
  const bool ok = fstat(fd, &st) == 0;
  const bool gzip = ok && st.st_size >= 2 && pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  void *p = ok && !gzip && st.st_size > 0 ? mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0) : nullptr;
  const int err = errno;
  close(fd);
  if (gzip) return nullptr;
  DXRT_CHECK(ok && p != MAP_FAILED, str("cannot map data file '", path, "': ", std::strerror(err)), "");
  if (p) prefault(p, size_t(st.st_size));
  auto file = std::make_shared<MappedFile>();
  file->data = static_cast<const uint8_t *>(p); // null for an empty file
  file->size = size_t(st.st_size);
  return file;
}

} // namespace dxrt
