// Faults inside a C library, turned into errors.
//
// Debian's libhdf5 1.10.8 reads through a null pointer on some corrupt files
// (fuzz/libhdf5-crashes/): without this, a run given such a file died of
// SIGSEGV, with no word of which file. A call made through fault_guarded()
// that faults (SIGSEGV, SIGBUS, SIGFPE) returns the signal instead, and the
// caller throws a dxrt::Error naming the file; the run then ends as for any
// bad input, with its message and exit status 1.
//
// What this does not do: make the library usable again. Its state after
// the fault is whatever the fault left (locks held, lists half-linked), so
// a caller must not call into it again once fault_guard_tripped(); the
// process is expected to end. Faults outside a guarded call go to the
// handler that was there before (the driver's report, or the default).
//
// The guard costs no system call per call (the handler is installed once;
// the signal mask is not saved, since SA_NODEFER leaves it unchanged), so
// it can wrap each sample's read.
#pragma once

#include <utility>

namespace dxrt {

// Runs fn(ctx) on this thread; returns 0, or the signal of a fault inside it.
// fn must not own objects with destructors when it calls into the library:
// a fault leaves its frame without unwinding.
int run_fault_guarded(void (*fn)(void *), void *ctx);

// f() under the guard: 0, or the signal.
template <class F> int fault_guarded(F &&f) {
  return run_fault_guarded([](void *p) { (*static_cast<std::remove_reference_t<F> *>(p))(); },
                           const_cast<void *>(static_cast<const void *>(&f)));
}

// Whether a guarded call has faulted in this process.
bool fault_guard_tripped();

// Leaves faults to whoever handles them (a sanitizer in the fuzzing build,
// which should see them); fault_guarded() then just calls f. Call before the
// first guarded call.
void disable_fault_guard();

// "SIGSEGV (invalid memory access)" and the like; async-signal-safe.
const char *fault_name(int sig);

} // namespace dxrt
