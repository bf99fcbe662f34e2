// The scheduler's signals (SIGTERM, SIGUSR1) never interrupt a thread that
// computes. Its own test program: blocking signals is for the whole process.
//
// The regression this guards: oneDNN's sgemm runs with the stack pointer in a
// heap workspace, and a signal handled on that thread had its frame written
// over the heap ("malloc(): unaligned tcache chunk", a lost checkpoint).
#include "driver/Signals.h"
#include "kernels/Blas.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

bool blocked_here(int sig) {
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

// Waits until pred() holds, up to 5 s.
template <typename P> bool eventually(P pred) {
  for (int i = 0; i < 5000 && !pred(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return pred();
}

TEST(Signals, BlockedInThisThreadAndInThreadsStartedLater) {
  dxrt::install_signal_handlers("signals_test");
  EXPECT_TRUE(blocked_here(SIGTERM));
  EXPECT_TRUE(blocked_here(SIGUSR1));
  bool term = false, usr1 = false;
  std::thread([&] { term = blocked_here(SIGTERM), usr1 = blocked_here(SIGUSR1); }).join();
  EXPECT_TRUE(term);
  EXPECT_TRUE(usr1);
}

TEST(Signals, ForkedChildStartsWithThemUnblocked) {
  dxrt::block_scheduler_signals();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(blocked_here(SIGTERM) || blocked_here(SIGUSR1) ? 1 : 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child inherited the blocked SIGTERM/SIGUSR1";
}

TEST(Signals, EveryUsr1IsCountedAndTermIsAFlag) {
  dxrt::block_scheduler_signals();
  const int64_t before = dxrt::checkpoint_requests();
  // One at a time: signals of one kind sent faster than they are taken merge.
  for (int i = 1; i <= 20; ++i) {
    ASSERT_EQ(kill(getpid(), SIGUSR1), 0);
    ASSERT_TRUE(eventually([&] { return dxrt::checkpoint_requests() == before + i; })) << "signal " << i;
  }
  EXPECT_FALSE(dxrt::stop_requested());
  ASSERT_EQ(kill(getpid(), SIGTERM), 0); // the process lives on: SIGTERM is a request
  EXPECT_TRUE(eventually([] { return dxrt::stop_requested(); }));
}

// A storm of signals at the process while this thread multiplies with a long
// inner dimension (the case where oneDNN's kernel moves its stack into the
// heap) between heap allocations of many sizes. Before the fix this aborted in
// malloc within a few hundred products; now the signals go to the signal
// thread and the heap stays whole.
TEST(Signals, StormDuringLargeSgemmLeavesTheHeapWhole) {
  dxrt::install_signal_handlers("signals_test");
  const int64_t M = 16, N = 16, K = 8192;
  std::vector<float> a(size_t(M * K), 0.5f), b(size_t(K * N), 0.25f), c(size_t(M * N));
  std::atomic<bool> done{false};
  std::atomic<int64_t> sent{0};
  std::thread storm([&] {
    while (!done) {
      kill(getpid(), SIGUSR1);
      ++sent;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  });
  const int64_t before = dxrt::checkpoint_requests();
  std::vector<std::unique_ptr<char[]>> keep;
  for (int it = 0; it < 600; ++it) {
    for (size_t sz : {24, 40, 72, 136, 264, 520, 1032, 2056, 4104})
      keep.emplace_back(new char[sz + size_t(it % 7)]);
    dxrt::sgemm(false, false, M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c.data(), N);
    ASSERT_FLOAT_EQ(c[0], 0.125f * float(K));
    if (keep.size() > 200) keep.erase(keep.begin(), keep.begin() + 100); // frees between live chunks
  }
  done = true;
  storm.join();
  keep.clear();
  for (int i = 0; i < 1000; ++i) std::free(std::malloc(size_t(16 + i * 8)));
  EXPECT_GT(sent.load(), 0);
  EXPECT_TRUE(eventually([&] { return dxrt::checkpoint_requests() > before; }));
}

std::atomic<int> g_usr2{0};
void on_usr2(int) { ++g_usr2; }

// The inference library's guard: a host program's handler runs after the
// kernels, not inside them, and the host's mask comes back as it was.
TEST(Signals, DeferAsyncSignalsHoldsTheHostsHandlerUntilTheScopeEnds) {
  struct sigaction sa {};
  sa.sa_handler = on_usr2;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &sa, nullptr), 0);
  sigset_t before, after;
  pthread_sigmask(SIG_BLOCK, nullptr, &before);
  ASSERT_FALSE(sigismember(&before, SIGUSR2));
  {
    dxrt::DeferAsyncSignals defer;
    EXPECT_TRUE(blocked_here(SIGUSR2));
    EXPECT_TRUE(blocked_here(SIGALRM));
    EXPECT_FALSE(blocked_here(SIGSEGV)); // a fault is not deferred
    ASSERT_EQ(pthread_kill(pthread_self(), SIGUSR2), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(g_usr2.load(), 0);
  }
  EXPECT_EQ(g_usr2.load(), 1); // delivered as the mask came back
  pthread_sigmask(SIG_BLOCK, nullptr, &after);
  for (int sig = 1; sig < NSIG; ++sig) EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << sig;
}

} // namespace
