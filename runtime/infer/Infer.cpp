// The inference library's C API (dxrt/infer.h) over the generated
// dx_eval_step: one context = the metadata, host arenas for max_batch
// samples with the loaded weights, the backend the model was compiled for
// (the host, or the GPU with the weights in device memory: model/Backend.h)
// and the dataset's normalisation. Every dxrt::Error becomes a return code
// and a message; nothing here exits.
#include "dxrt/infer.h"

#include "comm/World.h"
#include "common/Check.h"
#include "data/Array.h"
#include "data/Dataset.h"
#include "driver/Signals.h"
#include "kernels/Conv2d.h"
#include "kernels/Precision.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "model/Metadata.h"
#include "model/Model.h"
#include "train/Checkpoint.h"
#include "train/Weights.h"

#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

struct dx_model {
  dxrt::Metadata meta;
  std::unique_ptr<dxrt::Arenas> arenas;
  std::unique_ptr<dxrt::Backend> backend;
  std::vector<float> staging; // inputs in device memory, copied here to be normalised (CUDA builds)
  dxrt::Normalization norm;
  std::string error;
};

namespace {

thread_local std::string g_open_error;

// The CUDA backend's kernels share one stream and one scratch per process
// (cuda/Context.h): predictions of a CUDA build run one at a time, whatever
// the context. The host's contexts share nothing and run concurrently.
std::mutex g_device_mutex;

std::string message(const dxrt::Error &e) {
  std::string m = e.what();
  if (!e.hint().empty()) m += " (hint: " + e.hint() + ")";
  return m;
}

int fail(dx_model *m, int code, const std::string &msg) {
  if (m) m->error = msg;
  return code;
}

// Runs f, turning exceptions into codes and messages on m.
template <typename F> int guarded(dx_model *m, int code_for_errors, F &&f) {
  try {
    m->error.clear();
    return f();
  } catch (const dxrt::Error &e) {
    return fail(m, code_for_errors, message(e));
  } catch (const std::bad_alloc &) {
    return fail(m, DX_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception &e) {
    return fail(m, DX_ERROR_INTERNAL, e.what());
  }
}

bool has_step_dirs(const std::string &dir) {
  std::error_code ec;
  for (const auto &e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_directory() && e.path().filename().string().rfind("step-", 0) == 0) return true;
  return false;
}

const dxrt::TensorSpec *output(const dx_model *m, int k) {
  if (!m || k < 0 || k >= int(m->meta.outputs.size())) return nullptr;
  return &m->meta.outputs[size_t(k)];
}

} // namespace

extern "C" {

int dx_model_open(const char *weights_dir, int64_t max_batch, dx_model **out) {
  g_open_error.clear();
  if (!out || !weights_dir) {
    g_open_error = "dx_model_open: weights_dir and out must not be null";
    return DX_ERROR_ARGUMENT;
  }
  *out = nullptr;
  if (max_batch < 0) {
    g_open_error = "dx_model_open: max_batch must be >= 0 (0: 256)";
    return DX_ERROR_ARGUMENT;
  }
  auto m = std::make_unique<dx_model>();
  int rc = guarded(m.get(), DX_ERROR_WEIGHTS, [&] {
    m->meta = dxrt::parse_metadata(dxrt::model_metadata());
    try {
      dxrt::set_matmul_precision("dx_model_open", m->meta.precision().c_str(), m->meta.target.c_str());
      dxrt::conv_backend(), dxrt::conv_algorithm(); // a bad DXRT_CONV or DXRT_CONV_ALGORITHM is an error here
    } catch (const dxrt::Error &e) {
      return fail(m.get(), DX_ERROR_INTERNAL, message(e));
    }
    // A --save-weights directory (index.json), or a checkpoint: a step-*
    // directory with DONE, or a --checkpoint-dir holding such.
    const std::string dir = weights_dir, index = dir + "/index.json";
    std::error_code ec;
    const bool weights = std::filesystem::exists(index, ec);
    const bool checkpoint = !weights && std::filesystem::is_directory(dir, ec) &&
                            (std::filesystem::exists(dir + "/DONE", ec) || has_step_dirs(dir));
    if (!std::filesystem::exists(dir, ec))
      return fail(m.get(), DX_ERROR_FILE,
                  "dx_model_open: '" + dir + "' does not exist (a --save-weights directory or a checkpoint)");
    if (!weights && !checkpoint)
      return fail(m.get(), DX_ERROR_FILE,
                  "dx_model_open: '" + dir + "' holds neither weights ('" + index +
                      "' does not exist; write them with --save-weights DIR) nor a checkpoint (DONE or step-* directories)");
    m->arenas = std::make_unique<dxrt::Arenas>(m->meta, max_batch ? max_batch : 256);
    if (weights) dxrt::load_weights(m->meta, *m->arenas, dir, "dx_model_open");
    else dxrt::load_checkpoint_weights(m->meta, *m->arenas, dir, "dx_model_open");
    {
      // The host, or this process's GPU (no fallback to the CPU: an error
      // where there is none) with the weights copied there. A world of one:
      // the library never starts MPI.
      std::unique_lock<std::mutex> device;
      if (m->meta.target != "cpu") device = std::unique_lock<std::mutex>(g_device_mutex);
      try {
        m->backend = dxrt::make_backend(m->meta, *m->arenas, dxrt::World::get(), 1);
        m->backend->upload_model(*m->arenas);
      } catch (const dxrt::Error &e) {
        return fail(m.get(), DX_ERROR_INTERNAL, message(e));
      }
    }
    if (m->meta.dataset) m->norm = dxrt::normalization(*m->meta.dataset, m->meta.input.floats);
    else m->norm = dxrt::Normalization{false, 1, {0}, {1}, m->meta.input.floats};
    return int(DX_OK);
  });
  if (rc != DX_OK) {
    g_open_error = m->error;
    return rc;
  }
  *out = m.release();
  return DX_OK;
}

void dx_model_close(dx_model *m) { delete m; }

const char *dx_model_error(const dx_model *m) { return m ? m->error.c_str() : "dx_model_error: null model"; }
const char *dx_model_last_error(void) { return g_open_error.c_str(); }

const char *dx_model_name(const dx_model *m) { return m ? m->meta.model.c_str() : ""; }
int64_t dx_model_input_floats(const dx_model *m) { return m ? m->meta.input.floats : -1; }
int dx_model_input_rank(const dx_model *m) { return m ? int(m->meta.input.shape.size()) : -1; }
int64_t dx_model_input_dim(const dx_model *m, int d) {
  if (!m || d < 0 || d >= int(m->meta.input.shape.size())) return -1;
  return m->meta.input.shape[size_t(d)];
}
int dx_model_num_outputs(const dx_model *m) { return m ? int(m->meta.outputs.size()) : -1; }
const char *dx_model_output_name(const dx_model *m, int k) {
  const dxrt::TensorSpec *o = output(m, k);
  return o ? o->name.c_str() : "";
}
int64_t dx_model_output_floats(const dx_model *m, int k) {
  const dxrt::TensorSpec *o = output(m, k);
  return o ? o->floats : -1;
}
int dx_model_output_rank(const dx_model *m, int k) {
  const dxrt::TensorSpec *o = output(m, k);
  return o ? int(o->shape.size()) : -1;
}
int64_t dx_model_output_dim(const dx_model *m, int k, int d) {
  const dxrt::TensorSpec *o = output(m, k);
  if (!o || d < 0 || d >= int(o->shape.size())) return -1;
  return o->shape[size_t(d)];
}

int dx_model_predict(dx_model *m, const float *x, int64_t n, float *const *outputs) {
  if (!m) return DX_ERROR_ARGUMENT;
  if (n < 0) return fail(m, DX_ERROR_ARGUMENT, "dx_model_predict: n must be >= 0, not " + std::to_string(n));
  if (n > 0 && (!x || !outputs))
    return fail(m, DX_ERROR_ARGUMENT, "dx_model_predict: x and outputs must not be null");
  for (size_t k = 0; n > 0 && k < m->meta.outputs.size(); ++k)
    if (!outputs[k])
      return fail(m, DX_ERROR_ARGUMENT, "dx_model_predict: outputs[" + std::to_string(k) + "] ('" +
                                            m->meta.outputs[k].name + "') is null");
  // The host's signal handlers wait until the kernels are done: oneDNN's
  // matrix product runs with its stack in a heap buffer, where a handler's
  // frame would overwrite the heap.
  const dxrt::DeferAsyncSignals defer;
  std::unique_lock<std::mutex> device;
  if (m->meta.target != "cpu") device = std::unique_lock<std::mutex>(g_device_mutex);
  return guarded(m, DX_ERROR_INTERNAL, [&] {
    dxrt::Arenas &a = *m->arenas;
    dxrt::Backend &backend = *m->backend;
    const dxrt::Normalization &nm = m->norm;
    const int64_t in = m->meta.input.floats, cap = a.max_batch;
    // Inputs in device memory are normalised on the host, as the loader
    // does it: copied into `staging` a chunk at a time (allocated once).
    const bool x_on_device = n > 0 && backend.device_pointer(x);
    if (x_on_device && m->staging.size() < size_t(cap * in)) m->staging.resize(size_t(cap * in));
    for (int64_t lo = 0; lo < n; lo += cap) {
      const int64_t b = std::min(cap, n - lo);
      const float *xb = x + lo * in;
      if (x_on_device) {
        backend.copy_floats(m->staging.data(), xb, b * in);
        xb = m->staging.data();
      }
      // The dataset's normalisation, as the loader applies it to training samples.
      for (int64_t i = 0; i < b; ++i)
        for (size_t c = 0; c < nm.mean.size(); ++c) {
          const int64_t at = i * in + int64_t(c) * nm.plane;
          const auto *src = reinterpret_cast<const uint8_t *>(xb + at);
          const int64_t bad = dxrt::convert(src, dxrt::Dtype::F32, false, nm.plane, nm.scale, nm.mean[c],
                                            nm.inv_std[c], a.x.data() + at, nm.log1p);
          if (bad >= 0)
            return fail(m, DX_ERROR_INPUT, "dx_model_predict: input " + std::to_string((lo + i) * in + int64_t(c) * nm.plane + bad) +
                                               " (sample " + std::to_string(lo + i) + ") is not finite after normalisation");
        }
      backend.eval_step(a, b); // every output in a.outputs, on the host
      // Output k is the block after outputs 0..k-1 (docs/abi.md), to host or
      // device memory, whichever outputs[k] is.
      const float *block = a.outputs.data();
      for (size_t k = 0; k < m->meta.outputs.size(); ++k) {
        const int64_t f = m->meta.outputs[k].floats;
        backend.copy_floats(outputs[k] + lo * f, block, b * f);
        block += b * f;
      }
    }
    return int(DX_OK);
  });
}

} // extern "C"
