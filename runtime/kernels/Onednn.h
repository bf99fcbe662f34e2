// The one place that sets up oneDNN (libdnnl): its CPU engine, a stream, one
// thread, and execution through the C API. Like BLAS, oneDNN runs on the
// calling thread: parallelism comes from MPI ranks.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>

namespace dxrt {

struct Onednn {
  dnnl::engine engine;
  dnnl::stream stream;
};

// The calling thread's engine and stream, created at the first call. The
// first call also limits oneDNN to one thread (see Onednn.cpp).
Onednn &onednn();

// Limits oneDNN to one thread on the calling thread, as onednn() does for the
// threads that run kernels; for a thread that calls oneDNN without an engine
// (the sgemm warm-up in Blas.cpp).
void onednn_one_thread();

// Runs p with the n arguments in args, and the scratchpad (a workspace slot of
// scratchpad_bytes) if it needs one; aborts naming `kernel` on failure. This
// goes through dnnl_primitive_execute with the arguments in an array: the C++
// API's execute() builds a std::unordered_map on every call.
void onednn_execute(const char *kernel, const dnnl::primitive &p, int n, const dnnl_exec_arg_t *args,
                    const dnnl::memory &scratchpad, size_t scratchpad_bytes);

// Points m at data (a per-call pointer: the caller's tensor or a workspace
// slot); aborts naming `kernel` on failure.
void onednn_set_data(const char *kernel, const dnnl::memory &m, void *data);

// Attributes with scratchpad_mode::user: the primitive's scratchpad is the
// scratchpad workspace slot onednn_execute passes (in library mode oneDNN
// may allocate one per execution).
dnnl::primitive_attr onednn_user_scratchpad();

// pd's scratchpad as a memory object without data, and its size (0: none).
size_t onednn_scratchpad(const dnnl::primitive_desc_base &pd, dnnl::memory *scratchpad);

// The slot of `key` in a per-thread cache of primitives (the convolutions',
// the bf16 products'): its entry, marked used now, with `hit` true; else the
// entry to build it in, with `hit` false: the first unused one (entries fill
// from the front, so no match lies beyond it), or the least recently used.
// Entry has `key`, `used` and `last_use`.
template <class Entry, class Key, size_t N>
Entry &onednn_cache_slot(Entry (&entries)[N], uint64_t &clock, const Key &key, bool &hit) {
  Entry *victim = &entries[0];
  for (Entry &e : entries) {
    if (e.used && e.key == key) {
      e.last_use = ++clock;
      hit = true;
      return e;
    }
    if (!e.used) {
      victim = &e;
      break;
    }
    if (e.last_use < victim->last_use) victim = &e;
  }
  hit = false;
  return *victim;
}

} // namespace dxrt
