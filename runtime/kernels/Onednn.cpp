#include "kernels/Onednn.h"

#include "common/Check.h"
#include "kernels/Workspace.h"

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#elif DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_SEQ
#error "libdxrt runs oneDNN on one thread per process; it knows how to ask that of OpenMP and sequential builds only"
#endif

namespace dxrt {

namespace {

Onednn *create() {
  onednn_one_thread();
  // Never freed: primitives cached by the kernels hold on to the engine
  // until the process ends.
  Onednn *o = new Onednn;
  o->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
  o->stream = dnnl::stream(o->engine);
  return o;
}

[[noreturn]] void failed(const char *kernel, const char *what, dnnl_status_t s) {
  fatal(__FILE__, __LINE__, str(kernel, ": oneDNN could not ", what, " (status ", int(s), ")"),
        "set DXRT_CONV=im2col to run convolutions without oneDNN, and please report it");
}

} // namespace

void onednn_one_thread() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  // Debian's libdnnl is built on OpenMP (libgomp) and sizes every primitive,
  // when created and when run, by omp_get_max_threads(): all cores unless
  // OMP_NUM_THREADS says otherwise. One thread per rank, as for BLAS (whose
  // pthread build of OpenBLAS this does not touch): nothing else in an
  // executable uses OpenMP, and the setting is the calling thread's.
  omp_set_num_threads(1);
#endif
}

Onednn &onednn() {
  thread_local Onednn *o = nullptr;
  if (!o) {
    try {
      o = create();
    } catch (const dnnl::error &e) {
      failed("oneDNN", "create its CPU engine", e.status);
    }
  }
  return *o;
}

void onednn_execute(const char *kernel, const dnnl::primitive &p, int n, const dnnl_exec_arg_t *args,
                    const dnnl::memory &scratchpad, size_t scratchpad_bytes) {
  dnnl_exec_arg_t all[8];
  DXRT_KERNEL_CHECK(n < 8, kernel, str(n, " oneDNN arguments are more than 7"));
  for (int i = 0; i < n; ++i) all[i] = args[i];
  if (scratchpad_bytes > 0) {
    onednn_set_data(kernel, scratchpad, workspace((scratchpad_bytes + 3) / 4, kSlotScratchpad));
    all[n++] = {DNNL_ARG_SCRATCHPAD, scratchpad.get()};
  }
  dnnl_stream_t stream = onednn().stream.get();
  dnnl_status_t s = dnnl_primitive_execute(p.get(), stream, n, all);
  if (s != dnnl_success) failed(kernel, "execute a primitive", s);
  // A CPU stream runs in order and returns when done; wait() says so.
  s = dnnl_stream_wait(stream);
  if (s != dnnl_success) failed(kernel, "finish a primitive", s);
}

dnnl::primitive_attr onednn_user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

size_t onednn_scratchpad(const dnnl::primitive_desc_base &pd, dnnl::memory *scratchpad) {
  const dnnl::memory::desc md = pd.scratchpad_desc();
  const size_t bytes = md.get_size();
  if (bytes > 0) *scratchpad = dnnl::memory(md, onednn().engine, nullptr);
  return bytes;
}

void onednn_set_data(const char *kernel, const dnnl::memory &m, void *data) {
  dnnl_status_t s = dnnl_memory_set_data_handle_v2(m.get(), data, onednn().stream.get());
  if (s != dnnl_success) failed(kernel, "set a data pointer", s);
}

} // namespace dxrt
