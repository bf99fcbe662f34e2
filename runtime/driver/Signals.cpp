#include "driver/Signals.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace dxrt {

static volatile std::sig_atomic_t g_usr1 = 0, g_term = 0;
static std::atomic<int64_t> g_step{0}, g_epoch{0};
static char g_who[256] = "dxrt";

static void on_usr1(int) { g_usr1 = g_usr1 + 1; }
static void on_term(int) { g_term = 1; }

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
  const char *name = sig == SIGSEGV ? "SIGSEGV (invalid memory access)"
                     : sig == SIGBUS ? "SIGBUS (bus error)"
                     : sig == SIGFPE ? "SIGFPE (arithmetic exception)"
                     : sig == SIGILL ? "SIGILL (illegal instruction: built for a newer CPU? see dxc --cpu)"
                                     : "SIGABRT (aborted)";
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
  std::strncpy(g_who, who.c_str(), sizeof g_who - 1);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, nullptr);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = on_fatal;
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void note_step(int64_t step, int64_t epoch) {
  g_step.store(step, std::memory_order_relaxed);
  g_epoch.store(epoch, std::memory_order_relaxed);
}

int64_t checkpoint_requests() { return int64_t(g_usr1); }

bool stop_requested() { return g_term != 0; }

} // namespace dxrt
