// A limit on how long a rank waits for the others.
//
// A rank that dies ends the job: mpirun (or srun) sees it and ends the other
// ranks. A rank that hangs does not: stopped (SIGSTOP), stuck in a file
// system, or cut off by a network that drops packets without closing the
// connection, it leaves every other rank blocked in the next collective for
// ever, burning its allocation. As PyTorch's NCCL watchdog does, a thread
// watches the collectives of World (all-reduce, broadcast, barrier, the wait
// for the gradient buckets): one that waits longer than the limit
// (`--comm-timeout`, default 600 s) prints who waited, in which call, at
// which step and for how long, and ends this process with
// kExitCommTimeout; the launcher then ends the rest of the job.
//
// The thread is detached and reads only atomics, so exit() and MPI_Abort
// never wait for it. Arming and disarming a wait are two relaxed stores and
// a clock read: nothing on the step's path allocates or makes a system call.
#pragma once

#include <cstdint>
#include <string>

namespace dxrt {

// Starts watching with this limit (seconds; 0 or less: no limit). `who`
// names this rank in the message ("./mlp: rank 1 of 2"). Once per process.
void start_comm_watchdog(double limit_s, const std::string &who);

// The training step the rank is in, for the message (0: before training).
void watchdog_note_step(int64_t step);

// While alive, this rank waits in `call` (a string literal: the watchdog
// reads it from its thread).
class CommWait {
public:
  explicit CommWait(const char *call);
  ~CommWait();
  CommWait(const CommWait &) = delete;
  CommWait &operator=(const CommWait &) = delete;

private:
  int64_t outer_since_;
  const char *outer_call_;
};

} // namespace dxrt
