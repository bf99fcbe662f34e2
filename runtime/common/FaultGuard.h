// Faults inside a C library, turned into errors.
//
// Debian's libhdf5 1.10.8 reads through a null pointer on some corrupt files
// (fuzz/libhdf5-crashes/): without this, a run given such a file died of
// SIGSEGV, with no word of which file. A call made through fault_guarded()
// that faults (SIGSEGV, SIGBUS, SIGFPE, or SIGABRT: glibc's abort when it
// finds the heap corrupted, after a memcpy of a corrupt length) returns the
// signal instead, and the caller throws a dxrt::Error naming the file; the
// run then ends as for any bad input, with its message and exit status 1.
// After SIGABRT the heap itself may be unusable: the handler first writes
// the caller's `what` to stderr (write(2), no allocation), so the file is
// named even if making the error aborts again.
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

#include <cstdint>
#include <utility>

namespace dxrt {

// Runs fn(ctx) on this thread; returns 0, or the signal of a fault inside it.
// fn must not own objects with destructors when it calls into the library:
// a fault leaves its frame without unwinding.
// `what` (may be null) describes the call for SIGABRT's message.
int run_fault_guarded(void (*fn)(void *), void *ctx, const char *what = nullptr);

// f() under the guard: 0, or the signal.
template <class F> int fault_guarded(F &&f, const char *what = nullptr) {
  return run_fault_guarded([](void *p) { (*static_cast<std::remove_reference_t<F> *>(p))(); },
                           const_cast<void *>(static_cast<const void *>(&f)), what);
}

// Whether a guarded call has faulted in this process.
bool fault_guard_tripped();

// While alive, the process's address space may grow by at most `budget`
// bytes (RLIMIT_AS, lowered from what it is now and restored after; never
// raised above a limit the user set). A 1.4 KB corrupt HDF5 file made
// libhdf5 touch 21 GB while opening it, until the kernel killed the run;
// capped, its malloc fails and the open fails cleanly. The limit is the
// process's: keep the window to calls that other threads do not overlap
// with allocations of their own (start-up, loading).
class AddressSpaceCap {
public:
  explicit AddressSpaceCap(int64_t budget);
  ~AddressSpaceCap();
  AddressSpaceCap(const AddressSpaceCap &) = delete;
  AddressSpaceCap &operator=(const AddressSpaceCap &) = delete;

private:
  bool set_ = false;
  unsigned long long previous_ = 0; // the soft limit before (rlim_t)
};

// Leaves faults to whoever handles them (a sanitizer in the fuzzing build,
// which should see them, and which reserves terabytes of address space that
// a cap would break): fault_guarded() then just calls f, and
// AddressSpaceCap does nothing. Call before the first guarded call.
void disable_fault_guard();

// "SIGSEGV (invalid memory access)" and the like; async-signal-safe.
const char *fault_name(int sig);

} // namespace dxrt
