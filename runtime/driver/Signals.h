// The signals a batch scheduler sends before it ends a job, and the ones a
// failing rank dies of.
//
//   SIGUSR1   write a checkpoint at the next step, then go on training
//   SIGTERM   write a checkpoint at the next step, then stop (exit code 4)
//
// No handler runs for them: they are blocked in every thread and one thread
// of their own takes them with sigwait() and sets flags (a handler would run
// on whatever stack the interrupted thread had, and oneDNN's sgemm runs on a
// heap buffer). The trainer polls the flags between steps and the ranks agree
// on them (one rank's signal is enough), so every rank writes the same
// checkpoint. A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
// prints which rank died at which step before the process dies of it, so that
// mpirun's "process exited on signal 11" comes with a place.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>

namespace dxrt {

// Blocks SIGTERM and SIGUSR1 in the calling thread and every thread started
// after it (children of fork() get them back), and starts the thread that
// takes them. Call it first in main, before MPI, OpenMP or BLAS start threads:
// a thread started earlier would run the flag-setting handler on its own
// stack. Idempotent.
void block_scheduler_signals();

// block_scheduler_signals(), then the fatal-signal handlers, on an alternate
// stack. `who` prefixes the fatal-signal line, e.g. "mlp: rank 1 of 2".
void install_signal_handlers(const std::string &who);

// The step the fatal-signal line names (0 = before training).
void note_step(int64_t step, int64_t epoch);

// SIGUSR1s received so far. A count, not a flag: a scheduler signals every
// rank, and the ranks may see their signal in different steps; comparing the
// largest count over the ranks with the count already acted on makes that one
// checkpoint, not one per rank.
int64_t checkpoint_requests();
bool stop_requested(); // SIGTERM (stays set)

// While alive, the calling thread takes no asynchronous signal (the host
// program's SIGALRM, SIGUSR1, SIGTERM, ...): they stay pending and arrive when
// it ends. For the inference library's predict, which runs oneDNN inside a
// program whose handlers would otherwise run on a stack that is a heap buffer
// (see block_scheduler_signals). Faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT, SIGTRAP, SIGSYS) are not deferred.
class DeferAsyncSignals {
public:
  DeferAsyncSignals();
  ~DeferAsyncSignals();
  DeferAsyncSignals(const DeferAsyncSignals &) = delete;
  DeferAsyncSignals &operator=(const DeferAsyncSignals &) = delete;

private:
  sigset_t saved_; // the mask before
};

} // namespace dxrt
