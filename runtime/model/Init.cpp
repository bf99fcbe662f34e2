// Parameter initialisation, PyTorch's defaults as the metadata names them.
#include "common/Check.h"
#include "kernels/Philox.h"
#include "model/Arenas.h"

#include <algorithm>
#include <cmath>

namespace dxrt {

Arenas::Arenas(const Metadata &m, int64_t max_batch)
    : params(size_t(m.param_floats)), grads(size_t(m.param_floats + kGradSide)), buffers(size_t(m.buffer_floats)),
      new_buffers(size_t(m.buffer_floats)), state(size_t(m.param_floats * m.state_slots)),
      x(size_t(max_batch * m.input.floats)), outputs(size_t(max_batch * m.output_floats())),
      labels(size_t(max_batch * (m.dataset ? m.dataset->label_elems() : 1))),
      targets(size_t(max_batch * (m.dataset ? m.dataset->target_floats() : 0))), max_batch(max_batch) {}

int64_t Arenas::bytes() const {
  return int64_t(sizeof(float) * (params.size() + grads.size() + buffers.size() + new_buffers.size() + state.size() +
                                  x.size() + outputs.size() + targets.size()) +
                 sizeof(int64_t) * labels.size());
}

void init_arena(const std::vector<ArenaEntry> &entries, float *arena, uint64_t seed, uint32_t stream_base) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const ArenaEntry &e = entries[i];
    float *p = arena + e.offset;
    if (e.init == "zeros") {
      std::fill(p, p + e.size, 0.0f);
    } else if (e.init == "ones") {
      std::fill(p, p + e.size, 1.0f);
    } else if (e.init == "uniform_fan_in") {
      DXRT_CHECK(e.fan_in >= 1, str("model metadata: '", e.name, "' has init uniform_fan_in but fan_in ", e.fan_in),
                 "the model object's metadata is inconsistent; rebuild it with dxc");
      // U(-1/sqrt(fan_in), 1/sqrt(fan_in)): PyTorch's default for Linear and Conv.
      const float bound = float(1.0 / std::sqrt(double(e.fan_in)));
      fill_uniform(RngKey{seed, 0, 0, stream_base + uint32_t(i)}, 0, e.size, p);
      for (int64_t k = 0; k < e.size; ++k) p[k] = (2.0f * p[k] - 1.0f) * bound;
    } else {
      DXRT_FAIL(str("model metadata: '", e.name, "' has an unknown init '", e.init, "'"),
                "this libdxrt knows uniform_fan_in, zeros and ones; rebuild the model with a matching dxc");
    }
  }
}

} // namespace dxrt
