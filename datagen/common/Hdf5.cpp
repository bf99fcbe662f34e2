#include "common/Hdf5.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace dxgen {

Hdf5Writer::Hdf5Writer(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // errors are reported as exceptions below
  file_ = H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0) throw std::runtime_error("cannot create the HDF5 file '" + tmp_ + "'");
}

Hdf5Writer::~Hdf5Writer() {
  if (file_ < 0) return;
  H5Fclose(file_);
  std::remove(tmp_.c_str());
}

int64_t Hdf5Writer::native_type(const float *) { return H5T_NATIVE_FLOAT; }
int64_t Hdf5Writer::native_type(const int64_t *) { return H5T_NATIVE_INT64; }
int64_t Hdf5Writer::native_type(const int16_t *) { return H5T_NATIVE_INT16; }
int64_t Hdf5Writer::native_type(const uint8_t *) { return H5T_NATIVE_UINT8; }

void Hdf5Writer::write_typed(const std::string &name, const std::vector<int64_t> &shape, int64_t type,
                             const void *data, int64_t chunk_samples) {
  const std::vector<hsize_t> dims(shape.begin(), shape.end());
  // Chunks of up to 64 samples by default: a reader of one sample decompresses 64 at most.
  std::vector<hsize_t> chunk = dims;
  const hsize_t per_chunk = chunk_samples > 0 ? hsize_t(chunk_samples) : 64;
  if (!chunk.empty()) chunk[0] = std::max<hsize_t>(1, std::min<hsize_t>(per_chunk, chunk[0]));
  const hid_t space = H5Screate_simple(int(dims.size()), dims.data(), nullptr);
  const hid_t links = H5Pcreate(H5P_LINK_CREATE), props = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  bool ok = space >= 0 && links >= 0 && props >= 0;
  if (ok && !dims.empty() && dims[0] > 0) ok = H5Pset_chunk(props, int(chunk.size()), chunk.data()) >= 0 &&
                                               H5Pset_deflate(props, 4) >= 0;
  const hid_t set = ok ? H5Dcreate2(file_, name.c_str(), type, space, links, props, H5P_DEFAULT) : -1;
  ok = set >= 0 && H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
  if (set >= 0) H5Dclose(set);
  H5Pclose(props);
  H5Pclose(links);
  H5Sclose(space);
  if (!ok) throw std::runtime_error("cannot write the dataset '" + name + "' of '" + tmp_ + "'");
}

void Hdf5Writer::close() {
  const bool ok = H5Fclose(file_) >= 0;
  file_ = -1;
  if (!ok || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    throw std::runtime_error("cannot write the HDF5 file '" + path_ + "'");
  }
}

} // namespace dxgen
