// The one place that sets up oneDNN (libdnnl): its CPU engine, a stream, one
// thread, and execution through the C API. Like BLAS, oneDNN runs on the
// calling thread: parallelism comes from MPI ranks.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>

namespace dxrt {

struct Onednn {
  dnnl::engine engine;
  dnnl::stream stream;
};

// The calling thread's engine and stream, created at the first call. The
// first call also limits oneDNN to one thread (see Onednn.cpp).
Onednn &onednn();

// Runs p with the n arguments in args, and the scratchpad (a workspace slot of
// scratchpad_bytes) if it needs one; aborts naming `kernel` on failure. This
// goes through dnnl_primitive_execute with the arguments in an array: the C++
// API's execute() builds a std::unordered_map on every call.
void onednn_execute(const char *kernel, const dnnl::primitive &p, int n, const dnnl_exec_arg_t *args,
                    const dnnl::memory &scratchpad, size_t scratchpad_bytes);

// Points m at data (a per-call pointer: the caller's tensor or a workspace
// slot); aborts naming `kernel` on failure.
void onednn_set_data(const char *kernel, const dnnl::memory &m, void *data);

} // namespace dxrt
