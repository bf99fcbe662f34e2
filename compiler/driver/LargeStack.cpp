#include "driver/LargeStack.h"

#include <pthread.h>

namespace dx {
namespace {
struct Job {
  const std::function<int()> *fn;
  int result;
};
void *trampoline(void *p) {
  auto *job = static_cast<Job *>(p);
  job->result = (*job->fn)();
  return nullptr;
}
} // namespace

int runWithLargeStack(const std::function<int()> &fn) {
  constexpr size_t kStack = size_t(1) << 30; // reserved, only touched pages use memory
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStack);
  Job job{&fn, 0};
  pthread_t thread;
  if (pthread_create(&thread, &attr, trampoline, &job) != 0) {
    pthread_attr_destroy(&attr);
    return fn(); // fall back to the current stack
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.result;
}

} // namespace dx
