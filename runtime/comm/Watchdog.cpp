#include "comm/Watchdog.h"

#include "common/Check.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace dxrt {

namespace {

std::atomic<int64_t> g_limit_ns{0};      // 0: not watching
std::atomic<int64_t> g_since_ns{0};      // when the current wait began; 0: not waiting
std::atomic<const char *> g_call{nullptr};
std::atomic<int64_t> g_step{0};
char g_who[256];                          // written once, before the thread starts

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void expire(int64_t waited_ns, const char *call) {
  const double limit = double(g_limit_ns.load()) * 1e-9, waited = double(waited_ns) * 1e-9;
  const int64_t step = g_step.load();
  char where[64] = "before training started";
  if (step > 0) std::snprintf(where, sizeof where, "in training step %lld", (long long)step);
  std::fflush(stdout);
  std::fprintf(stderr,
               "%s: error: waited %.0f s in %s for the other ranks (%s), longer than --comm-timeout %g\n"
               "  hint: another rank is stuck or stopped, or the network between the nodes is down; look for its "
               "message above. Raise --comm-timeout if a rank legitimately works that long alone (a very large "
               "checkpoint), or give 0 to wait for ever\n",
               g_who, waited, call ? call : "a collective", where, limit);
  std::fflush(stderr);
  // Not exit(): the main thread is inside MPI, and static destructors or
  // MPI_Finalize could wait on it. The launcher sees the status and ends the
  // other ranks.
  std::_Exit(kExitCommTimeout);
}

// The wait is measured in this thread's looks, not as now - since: a job
// that the scheduler suspends (Slurm's `scontrol suspend` sends SIGSTOP to
// every process) and resumes after longer than the limit must not end at
// once. Stopped, this thread does not look either; the suspension then
// counts for one period at most.
void watch() {
  const int64_t limit = g_limit_ns.load();
  // Look often enough to end within about 5% of the limit, at most once per
  // 10 ms and at least once per second.
  const int64_t period = std::clamp<int64_t>(limit / 20, 10'000'000, 1'000'000'000);
  int64_t watched = 0, waited = 0; // the wait being timed (its start), and how long so far
  for (;;) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(period));
    const int64_t since = g_since_ns.load(std::memory_order_acquire);
    const char *call = g_call.load(std::memory_order_acquire);
    if (since == 0 || since != watched) { // not waiting, or a new wait since the last look
      watched = since;
      waited = since ? std::min(period, std::max<int64_t>(0, now_ns() - since)) : 0;
      continue;
    }
    waited += period;
    if (waited > limit && g_since_ns.load(std::memory_order_acquire) == since) expire(waited, call);
  }
}

} // namespace

void start_comm_watchdog(double limit_s, const std::string &who) {
  if (!(limit_s > 0) || g_limit_ns.load() != 0) return;
  std::strncpy(g_who, who.c_str(), sizeof g_who - 1);
  g_limit_ns.store(int64_t(std::min(limit_s, 1e9) * 1e9));
  std::thread(watch).detach();
}

void watchdog_note_step(int64_t step) { g_step.store(step, std::memory_order_relaxed); }

CommWait::CommWait(const char *call)
    : outer_since_(g_since_ns.load(std::memory_order_relaxed)), outer_call_(g_call.load(std::memory_order_relaxed)) {
  if (outer_since_ != 0 || g_limit_ns.load(std::memory_order_relaxed) == 0) return; // an outer wait counts
  g_call.store(call, std::memory_order_relaxed);
  g_since_ns.store(now_ns(), std::memory_order_release);
}

CommWait::~CommWait() {
  if (outer_since_ != 0 || g_limit_ns.load(std::memory_order_relaxed) == 0) return;
  g_since_ns.store(0, std::memory_order_release);
  g_call.store(outer_call_, std::memory_order_relaxed);
}

} // namespace dxrt
