#include "data/Hdf5.h"

#include "common/Check.h"
#include "common/FaultGuard.h"
#include "data/Dataset.h"

#include <hdf5.h>

#include <glob.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>

static_assert(sizeof(hid_t) == sizeof(int64_t), "Hdf5.h keeps HDF5 ids as int64_t");

namespace dxrt {

namespace {

const char *kHint = "check the file and the dataset path (h5ls -r FILE lists a file's datasets)";

// The address space libhdf5 may take while opening a file (its metadata:
// the superblock, groups, the dataset's header; a few MB for any real file).
constexpr int64_t kHdf5OpenBudget = int64_t(1) << 30;

// HDF5 prints its own error stack on every failed call; DeepEx reports
// errors itself, naming the file and the dataset. Nor does it close the
// library at exit: after a fault inside it (below) its state is not fit
// for that, and DeepEx only reads.
void init_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] {
    H5dont_atexit(); // before anything else initialises the library
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

// libhdf5 faults on some corrupt files (fuzz/libhdf5-crashes/). Every call
// into it runs under fault_guarded() (common/FaultGuard.h), in functions
// that hold plain data only; a fault becomes this error.
[[noreturn]] void crashed(int sig, const std::string &doing, const std::string &file) {
  throw Error(str("libhdf5 crashed with ", fault_name(sig), " while ", doing, " HDF5 file '", file, "'"),
              "the file is corrupt in a way libhdf5 does not check for (h5ls -r on it likely crashes too); "
              "write or copy it again",
              __FILE__, __LINE__);
}

void check_not_crashed(const std::string &file) {
  DXRT_CHECK(!fault_guard_tripped(),
             str("cannot read HDF5 file '", file, "': libhdf5 crashed earlier in this run, and is not usable since"),
             "the error above names the corrupt file");
}

// The element type DeepEx reads a dataset of this class, size and sign as.
bool element_type(H5T_class_t cls, size_t size, bool is_signed, Dtype *dt) {
  if (cls == H5T_FLOAT) {
    if (size == 4) return *dt = Dtype::F32, true;
    if (size == 8) return *dt = Dtype::F64, true;
    return false;
  }
  if (cls != H5T_INTEGER) return false;
  switch (size) {
  case 1: return *dt = is_signed ? Dtype::I8 : Dtype::U8, true;
  case 2: return *dt = is_signed ? Dtype::I16 : Dtype::U16, true;
  case 4: return *dt = is_signed ? Dtype::I32 : Dtype::U32, true;
  case 8:
    if (!is_signed) return false; // uint64 has no exact conversion DeepEx uses
    return *dt = Dtype::I64, true;
  }
  return false;
}

// The native HDF5 type libhdf5 converts a dataset to (byte order included).
hid_t native_of(Dtype dt) {
  switch (dt) {
  case Dtype::U8: return H5T_NATIVE_UINT8;
  case Dtype::I8: return H5T_NATIVE_INT8;
  case Dtype::U16: return H5T_NATIVE_UINT16;
  case Dtype::I16: return H5T_NATIVE_INT16;
  case Dtype::U32: return H5T_NATIVE_UINT32;
  case Dtype::I32: return H5T_NATIVE_INT32;
  case Dtype::I64: return H5T_NATIVE_INT64;
  case Dtype::F32: return H5T_NATIVE_FLOAT;
  case Dtype::F64: return H5T_NATIVE_DOUBLE;
  }
  return H5T_NATIVE_FLOAT;
}

std::string describe_class(H5T_class_t cls, size_t size, bool is_signed) {
  switch (cls) {
  case H5T_STRING: return "strings";
  case H5T_COMPOUND: return "a compound type";
  case H5T_ENUM: return "an enum";
  case H5T_ARRAY: return "an array type";
  case H5T_VLEN: return "a variable-length type";
  case H5T_INTEGER: return str(size * 8, "-bit ", is_signed ? "" : "un", "signed integers");
  case H5T_FLOAT: return str(size * 8, "-bit floats");
  default: return "an unsupported type";
  }
}

// What libhdf5 says of dataset `path` in `file`: plain data, filled by
// probe() as far as it gets (each step needs the one before), and checked
// by open_all() afterwards.
struct Probe {
  htri_t is_hdf5 = -1;
  hid_t file_id = -1, dataset_id = -1;
  bool exists = false;
  H5T_class_t cls = H5T_NO_CLASS;
  size_t type_size = 0;
  bool is_signed = false;
  int rank = -1;
  hsize_t dims[H5S_MAX_RANK] = {};
  bool filtered = false;
  hsize_t storage = 0; // bytes the dataset stores, as its layout claims
};

void probe(const char *file, const char *path, Probe *p) {
  p->is_hdf5 = H5Fis_hdf5(file);
  if (p->is_hdf5 <= 0) return;
  p->file_id = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (p->file_id < 0) return;
  p->exists = H5Lexists(p->file_id, path, H5P_DEFAULT) > 0 && H5Oexists_by_name(p->file_id, path, H5P_DEFAULT) > 0;
  if (!p->exists) return;
  p->dataset_id = H5Dopen2(p->file_id, path, H5P_DEFAULT);
  if (p->dataset_id < 0) return;
  const hid_t type = H5Dget_type(p->dataset_id);
  p->cls = H5Tget_class(type);
  p->type_size = H5Tget_size(type);
  p->is_signed = p->cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2;
  H5Tclose(type);
  const hid_t space = H5Dget_space(p->dataset_id);
  p->rank = H5Sget_simple_extent_ndims(space);
  if (p->rank > 0 && p->rank <= H5S_MAX_RANK) H5Sget_simple_extent_dims(space, p->dims, nullptr);
  H5Sclose(space);
  const hid_t dcpl = H5Dget_create_plist(p->dataset_id);
  p->filtered = dcpl >= 0 && H5Pget_nfilters(dcpl) > 0;
  if (dcpl >= 0) H5Pclose(dcpl);
  p->storage = H5Dget_storage_size(p->dataset_id);
}

// Whether the file holds the `bytes` of data its dataset's header announces
// (all of them unfiltered, a kMaxHdf5FilterRatio-th of them filtered):
// a dataspace message is a few bytes, and read_all() (and the order of the
// samples) would allocate what it says before libhdf5 reads anything. A
// dataset created but never (fully) written stores less too: its reads
// would give the fill value, which is no data either.
bool data_is_stored(const Probe &p, uint64_t bytes, const std::string &file, uint64_t *stored) {
  std::error_code ec;
  // The storage a (crafted) layout message claims lies within the file.
  *stored = std::min<uint64_t>(p.storage, std::filesystem::file_size(file, ec));
  return p.filtered ? (bytes + kMaxHdf5FilterRatio - 1) / kMaxHdf5FilterRatio <= *stored : bytes <= *stored;
}

// Rows [row, row + count[0]) of a dataset of `rank` dimensions into out.
herr_t read_hyperslab(hid_t dataset, hid_t native, int rank, const hsize_t *start, const hsize_t *count, uint8_t *out) {
  const hid_t space = H5Dget_space(dataset);
  herr_t rc = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t mem = H5Screate_simple(rank, count, nullptr);
  if (rc >= 0) rc = H5Dread(dataset, native, mem, space, H5P_DEFAULT, out);
  H5Sclose(mem);
  H5Sclose(space);
  return rc;
}

} // namespace

Hdf5Ref parse_hdf5_ref(const std::string &spec, const std::string &data_dir) {
  const size_t colon = spec.rfind(":/");
  DXRT_CHECK(colon != std::string::npos && colon > 0 && colon + 2 < spec.size(),
             str("HDF5 reference '", spec, "' does not name a dataset"),
             "write FILE:/PATH, e.g. \"data.h5:/train/inputs\"");
  Hdf5Ref r;
  r.spec = spec;
  r.path = spec.substr(colon + 1);
  const std::string file = resolve_path(spec.substr(0, colon), data_dir);
  if (file.find_first_of("*?[") == std::string::npos) {
    r.files = {file};
    return r;
  }
  glob_t g{};
  const int rc = glob(file.c_str(), 0, nullptr, &g);
  for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) r.files.push_back(g.gl_pathv[i]); // glob sorts by name
  globfree(&g);
  DXRT_CHECK(!r.files.empty(), str("HDF5 pattern '", file, "' (from '", spec, "') matches no file"),
             "check the dataset block's paths; relative paths are taken from the current directory, or from --data-dir");
  return r;
}

Hdf5Source::Hdf5Source(const Hdf5Ref &ref) : ref_(ref) {
  init_hdf5();
  try {
    open_all();
  } catch (...) { // the destructor does not run for a half-made object: close what is open
    close_all();
    throw;
  }
}

void Hdf5Source::open_all() {
  const Hdf5Ref &ref = ref_;
  for (const std::string &file : ref.files) {
    DXRT_CHECK(std::filesystem::exists(file), str("data file '", file, "' does not exist"),
               "check the dataset block's paths; relative paths are taken from the current directory, or from --data-dir");
    check_not_crashed(file);
    Probe pr;
    const std::string doing = str("opening dataset '", ref.path, "' of");
    const std::string what = str("libhdf5 crashed while ", doing, " HDF5 file '", file, "'");
    int sig = 0;
    {
      // Opening a file reads its metadata: a corrupt one has made libhdf5
      // touch 21 GB (fuzz/README.md); capped, it fails as for any corrupt file.
      const AddressSpaceCap cap(kHdf5OpenBudget);
      sig = fault_guarded([&] { probe(file.c_str(), ref.path.c_str(), &pr); }, what.c_str());
    }
    // After SIGABRT (glibc found the heap corrupted) the handler has said
    // what and where; any allocation now may abort again, so end here.
    if (sig == SIGABRT) std::_Exit(kExitError);
    if (sig) crashed(sig, doing, file);
    if (pr.file_id >= 0) { // closed by the destructor from here on
      Part p;
      p.file = file;
      p.file_id = pr.file_id;
      p.dataset_id = pr.dataset_id;
      parts_.push_back(p);
    }
    DXRT_CHECK(pr.is_hdf5 > 0, str("'", file, "' is not an HDF5 file (or it is truncated or corrupt)"),
               "format: hdf5 reads HDF5 files; use npy, idx or csv for other files");
    DXRT_CHECK(pr.file_id >= 0, str("cannot open the HDF5 file '", file, "' (corrupt, or not readable)"), kHint);
    Part &q = parts_.back();
    DXRT_CHECK(pr.exists, str("HDF5 file '", file, "' has no dataset '", ref.path, "'"), kHint);
    DXRT_CHECK(pr.dataset_id >= 0, str("'", ref.path, "' in HDF5 file '", file, "' is not a dataset (a group?)"), kHint);
    Dtype dt = Dtype::F32; // set by element_type() when known
    const bool known = element_type(pr.cls, pr.type_size, pr.is_signed, &dt);
    DXRT_CHECK(known,
               str("dataset '", ref.path, "' of HDF5 file '", file, "' holds ",
                   describe_class(pr.cls, pr.type_size, pr.is_signed)),
               "DeepEx reads integer (8 to 64-bit, not uint64) and 32/64-bit float datasets");
    DXRT_CHECK(pr.rank >= 1, str("dataset '", ref.path, "' of HDF5 file '", file, "' is a scalar"),
               "the first dimension counts the samples");
    DXRT_CHECK(pr.rank <= H5S_MAX_RANK,
               str("dataset '", ref.path, "' of HDF5 file '", file, "' claims ", pr.rank, " dimensions"), kHint);
    std::vector<int64_t> shape(pr.dims, pr.dims + pr.rank);
    DXRT_CHECK(shape_within_bounds(shape),
               str("dataset '", ref.path, "' of HDF5 file '", file, "' claims an absurd shape ", shape_str(shape)), kHint);
    const uint64_t bytes = uint64_t(shape_numel(shape)) * dtype_size(dt);
    uint64_t stored = 0;
    DXRT_CHECK(data_is_stored(pr, bytes, file, &stored),
               str("dataset '", ref.path, "' of HDF5 file '", file, "' has shape ", shape_str(shape), " of ",
                   dtype_name(dt), " (", bytes, " bytes), but stores only ", stored, " bytes",
                   pr.filtered ? " (compressed)" : ""),
               "the file is truncated or corrupt, or the dataset was created and not (fully) written");
    if (parts_.size() == 1) {
      shape_ = shape;
      shape_[0] = 0;
      dtype_ = dt;
      sample_elems_ = 1;
      for (size_t k = 1; k < shape.size(); ++k) sample_elems_ *= shape[k];
    } else {
      DXRT_CHECK(std::equal(shape.begin() + 1, shape.end(), shape_.begin() + 1, shape_.end()) && shape.size() == shape_.size(),
                 str("dataset '", ref.path, "' has samples of shape ", shape_str({shape.begin() + 1, shape.end()}),
                     " in '", file, "' but ", shape_str({shape_.begin() + 1, shape_.end()}), " in '", parts_[0].file, "'"),
                 "files concatenated along the sample dimension must agree on the rest");
      DXRT_CHECK(dt == dtype_,
                 str("dataset '", ref.path, "' holds ", dtype_name(dt), " in '", file, "' but ", dtype_name(dtype_),
                     " in '", parts_[0].file, "'"),
                 "files concatenated along the sample dimension must agree on the element type");
    }
    q.first = shape_[0];
    q.n = shape[0];
    shape_[0] += shape[0];
    DXRT_CHECK(shape_within_bounds(shape_),
               str("dataset '", ref.spec, "' concatenated over ", parts_.size(), " files has an absurd shape ",
                   shape_str(shape_)), "");
  }
}

Hdf5Source::~Hdf5Source() { close_all(); }

void Hdf5Source::close_all() {
  for (Part &p : parts_) {
    const hid_t dataset = p.dataset_id, file = p.file_id;
    p.dataset_id = p.file_id = -1;
    if (fault_guard_tripped()) continue; // libhdf5 is past closing anything
    fault_guarded([&] {
      if (dataset >= 0) H5Dclose(dataset);
      if (file >= 0) H5Fclose(file);
    });
  }
}

void Hdf5Source::read_rows(const Part &p, int64_t row, int64_t rows, uint8_t *out) const {
  check_not_crashed(p.file);
  const int rank = int(shape_.size()); // at most H5S_MAX_RANK: open_all checks
  hsize_t start[H5S_MAX_RANK] = {}, count[H5S_MAX_RANK] = {};
  std::copy(shape_.begin(), shape_.end(), count);
  start[0] = hsize_t(row);
  count[0] = hsize_t(rows);
  herr_t rc = -1;
  const hid_t dataset = p.dataset_id, native = native_of(dtype_);
  if (const int sig = fault_guarded([&] { rc = read_hyperslab(dataset, native, rank, start, count, out); }))
    crashed(sig, str("reading samples ", row, "..", row + rows - 1, " of dataset '", ref_.path, "' in"), p.file);
  DXRT_CHECK(rc >= 0,
             str("cannot read samples ", row, "..", row + rows - 1, " of dataset '", ref_.path, "' in HDF5 file '",
                 p.file, "' (corrupt data, or a compression filter that is not available)"),
             kHint);
}

void Hdf5Source::read_sample(int64_t i, uint8_t *out) const {
  DXRT_CHECK(i >= 0 && i < shape_[0], str("sample ", i, " is outside dataset '", ref_.spec, "' (", shape_[0], " samples)"),
             "a runtime bug");
  for (const Part &p : parts_)
    if (i < p.first + p.n) return read_rows(p, i - p.first, 1, out);
}

Array Hdf5Source::read_all() const {
  Array a;
  a.file = ref_.spec;
  a.shape = shape_;
  a.dtype = dtype_;
  a.bytes.resize(size_t(a.numel()) * dtype_size(dtype_));
  // Allocated above; what libhdf5 needs besides (chunks, conversion
  // buffers) is capped as at open, with room for one copy of the data.
  const AddressSpaceCap cap(kHdf5OpenBudget + 2 * int64_t(a.bytes.size()));
  for (const Part &p : parts_)
    if (p.n) read_rows(p, 0, p.n, a.bytes.data() + size_t(p.first * sample_elems_) * dtype_size(dtype_));
  return a;
}

} // namespace dxrt
