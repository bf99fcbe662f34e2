#include "driver/Signals.h"

#include "common/FaultGuard.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace dxrt {

// Why the scheduler's signals are taken by a thread of their own, and never
// by a handler on a thread that computes: oneDNN's JIT sgemm points the stack
// pointer into a heap workspace while it runs (for large K). The kernel builds
// a signal's frame (about 3 KB with the AVX-512 state) below the stack
// pointer, so a SIGTERM that arrived in that window wrote over the heap chunk
// before the workspace: "malloc(): unaligned tcache chunk" a while later, and
// no checkpoint. Blocked signals build no frame; sigwait() takes them.
static std::atomic<int64_t> g_usr1{0};
static std::atomic<bool> g_term{false};
static std::atomic<int64_t> g_step{0}, g_epoch{0};
static char g_who[256] = "dxrt";
// The fatal-signal handler runs here on the thread that installed it, so it
// can still print when the fault was a stack overflow or happened while the
// stack pointer was somewhere odd (see above).
alignas(64) static char g_alt_stack[64 * 1024];

static sigset_t scheduler_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  return set;
}

// A child (mpirun's helpers, a shell) starts with the signals as a fresh
// process has them, not blocked.
static void unblock_in_child() {
  sigset_t set = scheduler_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

static void count(int sig) {
  if (sig == SIGUSR1) g_usr1.fetch_add(1);
  else if (sig == SIGTERM) g_term.store(true);
}

// Only for a thread that some library started before block_scheduler_signals
// (it has them unblocked): the same flags instead of the default action.
static void on_scheduler_signal(int sig) { count(sig); }

static void take_signals() {
  const sigset_t set = scheduler_signals();
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    count(sig);
  }
}

void block_scheduler_signals() {
  static const bool started = [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_scheduler_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGUSR1, &sa, nullptr);
    sigset_t set = scheduler_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr); // inherited by every thread started from now on
    pthread_atfork(nullptr, nullptr, unblock_in_child);
    std::thread(take_signals).detach(); // starts with the signals blocked too, as sigwait() wants
    return true;
  }();
  (void)started;
}

// Async-signal-safe: write(2) and hand-made decimal numbers only.
static void put(const char *s) {
  ssize_t r = write(STDERR_FILENO, s, strlen(s));
  (void)r;
}
static void put_int(int64_t v) {
  char buf[24];
  int i = 23;
  buf[i] = '\0';
  bool neg = v < 0;
  uint64_t u = neg ? uint64_t(-v) : uint64_t(v);
  do {
    buf[--i] = char('0' + u % 10);
    u /= 10;
  } while (u && i > 1);
  if (neg) buf[--i] = '-';
  put(buf + i);
}

static void on_fatal(int sig) {
  const char *name = fault_name(sig);
  put(g_who);
  put(": fatal signal ");
  put(name);
  if (int64_t s = g_step.load(); s > 0) {
    put(" in training step ");
    put_int(s);
    put(" (epoch ");
    put_int(g_epoch.load());
    put(")");
  } else {
    put(" before training started");
  }
  put("\n");
  // Die of the signal itself, so the exit status (and mpirun) tell the truth.
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers(const std::string &who) {
  block_scheduler_signals();
  std::strncpy(g_who, who.c_str(), sizeof g_who - 1);
  stack_t ss;
  std::memset(&ss, 0, sizeof ss);
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void note_step(int64_t step, int64_t epoch) {
  g_step.store(step, std::memory_order_relaxed);
  g_epoch.store(epoch, std::memory_order_relaxed);
}

int64_t checkpoint_requests() { return g_usr1.load(); }

bool stop_requested() { return g_term.load(); }

DeferAsyncSignals::DeferAsyncSignals() {
  sigset_t all;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS}) sigdelset(&all, sig);
  pthread_sigmask(SIG_BLOCK, &all, &saved_);
}

DeferAsyncSignals::~DeferAsyncSignals() {
  pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

} // namespace dxrt
