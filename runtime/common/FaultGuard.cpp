#include "common/FaultGuard.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace dxrt {

namespace {

constexpr int kFaults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGABRT};

thread_local sigjmp_buf *t_return = nullptr; // set inside a guarded call
thread_local const char *t_what = nullptr;    // what it does, for SIGABRT's message
thread_local int t_signal = 0;                // the fault that ended it

void put(const char *s) {
  if (s) (void)!::write(2, s, std::strlen(s));
}
std::atomic<bool> g_tripped{false};
std::atomic<bool> g_disabled{false};
struct sigaction g_previous[NSIG];

void on_fault(int sig, siginfo_t *info, void *context) {
  if (sigjmp_buf *back = t_return) {
    t_return = nullptr;
    t_signal = sig;
    g_tripped.store(true);
    if (sig == SIGABRT && t_what) { // the heap may be gone: say it now, without allocating
      put("error: ");
      put(t_what);
      put(" (SIGABRT: the library found its heap corrupted)\n");
    }
    siglongjmp(*back, sig);
  }
  // Not ours: to the handler that was there before.
  const struct sigaction &prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) return prev.sa_sigaction(sig, info, context);
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler) return prev.sa_handler(sig);
  // Die of the signal itself (a real fault would repeat on return; a raised
  // one would not).
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_fault;
    // SA_NODEFER: the fault's signal stays unblocked, so siglongjmp need not
    // restore a saved mask. SA_ONSTACK: on the driver's alternate stack
    // where there is one (a fault from running out of stack).
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    for (int sig : kFaults) sigaction(sig, &sa, &g_previous[sig]);
  });
}

} // namespace

int run_fault_guarded(void (*fn)(void *), void *ctx, const char *what) {
  if (g_disabled.load(std::memory_order_relaxed)) {
    fn(ctx);
    return 0;
  }
  install_once();
  sigjmp_buf here;
  sigjmp_buf *outer = t_return;
  const char *outer_what = t_what;
  if (sigsetjmp(here, 0) != 0) { // back from on_fault
    t_return = outer;
    t_what = outer_what;
    return t_signal;
  }
  t_what = what;
  t_return = &here;
  try {
    fn(ctx);
  } catch (...) {
    t_return = outer;
    t_what = outer_what;
    throw;
  }
  t_return = outer;
  t_what = outer_what;
  return 0;
}

bool fault_guard_tripped() { return g_tripped.load(); }

// The process's mapped address space, from /proc/self/statm (its first
// field, in pages); 0 when unknown.
static unsigned long long address_space_bytes() {
  unsigned long long pages = 0;
  if (std::FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * 4096ull;
}

AddressSpaceCap::AddressSpaceCap(int64_t budget) {
  if (g_disabled.load(std::memory_order_relaxed) || budget <= 0) return;
  const unsigned long long now = address_space_bytes();
  struct rlimit r;
  if (now == 0 || getrlimit(RLIMIT_AS, &r) != 0) return;
  const unsigned long long cap = now + (unsigned long long)budget;
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur <= cap) return; // the user's limit is lower already
  previous_ = r.rlim_cur;
  r.rlim_cur = cap;
  set_ = setrlimit(RLIMIT_AS, &r) == 0;
}

AddressSpaceCap::~AddressSpaceCap() {
  if (!set_) return;
  struct rlimit r;
  if (getrlimit(RLIMIT_AS, &r) != 0) return;
  r.rlim_cur = previous_;
  setrlimit(RLIMIT_AS, &r);
}

void disable_fault_guard() { g_disabled.store(true); }

const char *fault_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV (invalid memory access)";
  case SIGBUS: return "SIGBUS (bus error)";
  case SIGFPE: return "SIGFPE (arithmetic exception)";
  case SIGILL: return "SIGILL (illegal instruction: built for a newer CPU? see dxc --cpu)";
  case SIGABRT: return "SIGABRT (aborted)";
  default: return "a fatal signal";
  }
}

} // namespace dxrt
