// Errors and checks, in the style of llm.c: every failure names the place in
// the runtime (file:line), says what is wrong and, where it helps, what to do.
//
// Two kinds of failure:
//  - DXRT_CHECK / dxrt::Error: a problem with the run's inputs (flags, data
//    files, metadata). They throw dxrt::Error; the driver catches it at the
//    top, prints it and exits non-zero (issue 4: MPI_Abort). Throwing keeps the
//    readers testable.
//  - DXRT_KERNEL_CHECK: a broken contract between generated code and a kernel
//    (bad descriptor). It prints and aborts at once: an exception must not
//    unwind through generated frames.
#pragma once

#include "common/Str.h"

#include <stdexcept>
#include <string>

namespace dxrt {

// Process exit codes of a training executable.
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,     // bad input: data, metadata, a failed check
  kExitUsage = 2,     // bad command line
  kExitNonFinite = 3, // the loss became NaN or Inf
  kExitStopped = 4,   // stopped by SIGTERM after writing a checkpoint: --resume continues
  kExitCommTimeout = 5, // waited longer than --comm-timeout for the other ranks (comm/Watchdog.h)
};

class Error : public std::runtime_error {
public:
  Error(std::string what, std::string hint = "", const char *file = nullptr, int line = 0)
      : std::runtime_error(std::move(what)), hint_(std::move(hint)), file_(file ? file : ""), line_(line) {}
  const std::string &hint() const { return hint_; }
  const std::string &file() const { return file_; }
  int line() const { return line_; }
  int exit_code = kExitError;
  // Every rank finds this same error at the same point (a collective result
  // says so): only rank 0 prints it and the ranks end together, instead of
  // each printing it and racing to MPI_Abort.
  bool collective = false;

private:
  std::string hint_, file_;
  int line_;
};

// Formats an error for the console: "error: what\n  hint: ...\n  (at file:line)".
std::string describe(const Error &e);

// Prints "dxrt: fatal: <what> (file:line)\n  hint: <hint>" and aborts.
[[noreturn]] void fatal(const char *file, int line, const std::string &what, const std::string &hint);

} // namespace dxrt

// Throws dxrt::Error(message, hint) unless cond holds. `message` and `hint`
// are expressions giving strings, evaluated only on failure.
#define DXRT_CHECK(cond, message, hint)                                                                           \
  do {                                                                                                            \
    if (!(cond)) throw ::dxrt::Error((message), (hint), __FILE__, __LINE__);                                     \
  } while (0)

#define DXRT_FAIL(message, hint) throw ::dxrt::Error((message), (hint), __FILE__, __LINE__)

// Aborts with the kernel's name unless cond holds.
#define DXRT_KERNEL_CHECK(cond, kernel, message)                                                                  \
  do {                                                                                                            \
    if (!(cond))                                                                                                  \
      ::dxrt::fatal(__FILE__, __LINE__, ::dxrt::str(kernel, ": ", message),                                       \
                    "the generated code passed a descriptor this kernel cannot take: a dxc bug, please report it"); \
  } while (0)
