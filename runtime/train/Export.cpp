#include "train/Export.h"

#include "common/Check.h"
#include "common/Str.h"
#include "data/Order.h"
#include "util/Npy.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace dxrt {

std::vector<std::string> export_outputs(const Metadata &meta, Arenas &a, Backend &backend, const Split &split, int64_t eval_batch,
                                        const std::string &dir, World &world) {
  std::vector<std::string> paths;
  if (world.is_root()) {
    try {
      dx::make_directories(dir);
      std::vector<std::unique_ptr<dx::NpyWriter>> files;
      for (const TensorSpec &out : meta.outputs) {
        std::vector<int64_t> shape = {split.n};
        shape.insert(shape.end(), out.shape.begin(), out.shape.end());
        paths.push_back(str(dir, "/", split.name, "_", out.name, ".npy"));
        files.push_back(std::make_unique<dx::NpyWriter>(paths.back(), shape, "<f4"));
      }
      for (int64_t b = 0; b < split.n; b += eval_batch) {
        const int64_t e = std::min(b + eval_batch, split.n), n = e - b;
        gather_range(split, b, e, a.x.data(), a.labels.data(), a.targets.data());
        backend.eval_step(a, n);
        // dx_eval_step leaves output k in the block after outputs 0..k-1 (docs/abi.md).
        const float *block = a.outputs.data();
        for (size_t k = 0; k < files.size(); ++k) {
          files[k]->append(block, n * meta.outputs[k].floats);
          block += n * meta.outputs[k].floats;
        }
      }
      for (auto &f : files) f->finish();
    } catch (const std::runtime_error &e) {
      if (dynamic_cast<const Error *>(&e)) throw;
      DXRT_FAIL(str("--export: ", e.what()), "check that the directory is writable and the disk has room");
    }
  }
  world.barrier();
  return paths;
}

} // namespace dxrt
